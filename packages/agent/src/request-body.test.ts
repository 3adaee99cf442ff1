import { expect, test } from "bun:test";
import type { ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources/chat/completions";
import { encodeRequestBody, sealMessage } from "./request-body.ts";

const tools: ChatCompletionTool[] = [
  { type: "function", function: { name: "echo", description: "Repeat.", parameters: { type: "object", properties: { text: { type: "string" } } } } },
];

test("the body is exactly JSON.stringify of the request, sealed messages or not", () => {
  const messages: ChatCompletionMessageParam[] = [
    { role: "user", content: 'say "hi"\n' },
    sealMessage({ role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "echo", arguments: '{"text":"é"}' } }] }),
    sealMessage({ role: "tool", tool_call_id: "c1", content: "é\u2028" }),
  ];
  for (const stream of [false, true]) {
    for (const withTools of [tools, []]) {
      const expected = JSON.stringify({
        model: "m",
        messages,
        ...(withTools.length > 0 ? { tools: withTools, tool_choice: "auto" } : {}),
        ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
      });
      expect(encodeRequestBody({ model: "m", messages, tools: withTools, stream })).toBe(expected);
    }
  }
});

test("a sealed message cannot change after it is encoded, down to its tool calls", () => {
  const message = sealMessage({
    role: "assistant" as const,
    content: null,
    tool_calls: [{ id: "c1", type: "function" as const, function: { name: "echo", arguments: "{}" } }],
  });
  expect(() => {
    (message as { content: string | null }).content = "changed";
  }).toThrow(TypeError);
  expect(() => message.tool_calls.push(message.tool_calls[0] as never)).toThrow(TypeError);
  expect(() => {
    (message.tool_calls[0]?.function as { arguments: string }).arguments = '{"x":1}';
  }).toThrow(TypeError);
});

test("a message the caller owns is encoded again at every request, so a change in place is sent", () => {
  const user: { role: "user"; content: string } = { role: "user", content: "first" };
  const body = () => JSON.parse(encodeRequestBody({ model: "m", messages: [user], tools: [], stream: false }));
  expect(body().messages[0].content).toBe("first");
  user.content = "second";
  expect(body().messages[0].content).toBe("second");
});
