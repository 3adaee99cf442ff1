import { describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { pieces } from "./completion.ts";
import { startScriptedModel } from "./scripted-model.ts";

const params = { model: "m", messages: [{ role: "user" as const, content: "Hi" }] };

/** The `data:` payloads of a raw SSE body, in order. */
async function events(response: Response): Promise<string[]> {
  const text = await response.text();
  expect(text.endsWith("\n\n")).toBe(true);
  return text
    .slice(0, -2)
    .split("\n\n")
    .map((frame) => {
      expect(frame).toStartWith("data: ");
      return frame.slice("data: ".length);
    });
}

describe("streamed answers", () => {
  test("text: role delta first, content in several pieces, finish_reason stop, then [DONE]", async () => {
    await using model = await startScriptedModel([{ content: "The first line is: # Plugboard" }]);
    const response = await fetch(`${model.baseURL}/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ ...params, stream: true }),
    });
    expect(response.headers.get("content-type")).toStartWith("text/event-stream");
    const data = await events(response);
    expect(data.at(-1)).toBe("[DONE]");
    const chunks = data.slice(0, -1).map((payload) => JSON.parse(payload));
    for (const chunk of chunks) expect(chunk).toMatchObject({ object: "chat.completion.chunk", model: "m" });
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
    expect(chunks[0].choices[0].delta).toMatchObject({ role: "assistant", content: "" });
    const contents = chunks.slice(1, -1).map((chunk) => chunk.choices[0].delta.content);
    expect(contents.length).toBeGreaterThan(1);
    expect(contents.join("")).toBe("The first line is: # Plugboard");
    expect(chunks.at(-1).choices[0]).toEqual({ index: 0, delta: {}, logprobs: null, finish_reason: "stop" });
  });

  test("tool calls: index, id, type and name first, then argument fragments", async () => {
    await using model = await startScriptedModel([
      { toolCalls: [{ name: "read_file", arguments: { path: "README.md" } }, { id: "call_b", name: "glob", arguments: "{}" }] },
    ]);
    const response = await fetch(`${model.baseURL}/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ ...params, stream: true }),
    });
    const chunks = (await events(response)).slice(0, -1).map((payload) => JSON.parse(payload));
    const deltas = chunks.map((chunk) => chunk.choices[0].delta);
    expect(deltas[0]).toMatchObject({ role: "assistant", content: null });
    expect(deltas[1]).toEqual({
      tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "read_file", arguments: "" } }],
    });
    const fragments = deltas
      .filter((delta) => delta.tool_calls?.[0]?.index === 0 && delta.tool_calls[0].id === undefined)
      .map((delta) => {
        expect(Object.keys(delta.tool_calls[0])).toEqual(["index", "function"]);
        return delta.tool_calls[0].function.arguments;
      });
    expect(fragments.length).toBeGreaterThan(1);
    expect(fragments.join("")).toBe('{"path":"README.md"}');
    expect(deltas).toContainEqual({
      tool_calls: [{ index: 1, id: "call_b", type: "function", function: { name: "glob", arguments: "" } }],
    });
    expect(chunks.at(-1).choices[0].finish_reason).toBe("tool_calls");
  });

  test("the SDK's stream helper reassembles the same message as a plain request", async () => {
    const reply = {
      content: "Reading it now.",
      toolCalls: [{ name: "read_file", arguments: { path: "a.txt", limit: 1 } }],
    };
    await using model = await startScriptedModel([reply, reply]);
    const client = new OpenAI({ baseURL: model.baseURL, apiKey: "test", maxRetries: 0 });
    const plain = await client.chat.completions.create(params);
    const streamed = await client.chat.completions.stream(params).finalChatCompletion();
    const { tool_calls: plainCalls, content: plainContent } = plain.choices[0]?.message ?? {};
    const { tool_calls: streamedCalls, content: streamedContent } = streamed.choices[0]?.message ?? {};
    expect(streamedContent).toBe("Reading it now.");
    expect(streamedContent).toBe(plainContent ?? "");
    expect(plainCalls?.[0]).toMatchObject({ id: "call_1", function: { arguments: '{"path":"a.txt","limit":1}' } });
    expect(streamedCalls?.[0]).toMatchObject({ id: "call_2", function: { arguments: '{"path":"a.txt","limit":1}' } });
    expect(streamed.choices[0]?.finish_reason).toBe("tool_calls");
  });

  test("stream_options.include_usage adds a final usage chunk without choices", async () => {
    await using model = await startScriptedModel([{ content: "counted" }]);
    const client = new OpenAI({ baseURL: model.baseURL, apiKey: "test", maxRetries: 0 });
    const stream = await client.chat.completions.create({ ...params, stream: true, stream_options: { include_usage: true } });
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.at(-1)?.choices).toEqual([]);
    expect(chunks.at(-1)?.usage?.completion_tokens).toBeGreaterThan(0);
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe("stop");
  });

  test("a reply's usage is what it reports; usage: false reports none, asked or not", async () => {
    await using model = await startScriptedModel([
      { content: "a", usage: { promptTokens: 1234, completionTokens: 56 } },
      { content: "b", usage: { promptTokens: 7, completionTokens: 8 } },
      { content: "c", usage: false },
      { content: "d", usage: false },
    ]);
    const client = new OpenAI({ baseURL: model.baseURL, apiKey: "test", maxRetries: 0 });
    const streamed = async () => {
      const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
      for await (const chunk of await client.chat.completions.create({ ...params, stream: true, stream_options: { include_usage: true } })) chunks.push(chunk);
      return chunks;
    };
    expect((await streamed()).at(-1)?.usage).toEqual({ prompt_tokens: 1234, completion_tokens: 56, total_tokens: 1290 });
    expect((await client.chat.completions.create(params)).usage).toEqual({ prompt_tokens: 7, completion_tokens: 8, total_tokens: 15 });
    expect((await streamed()).some((chunk) => chunk.usage !== undefined && chunk.usage !== null)).toBe(false);
    expect((await client.chat.completions.create(params)).usage).toBeUndefined();
    expect(() => model.enqueue({ content: "x", usage: { promptTokens: -1, completionTokens: 2 } })).toThrow("usage must be");
  });
});

describe("pieces", () => {
  test("splits into up to three parts without breaking code points", () => {
    expect(pieces("")).toEqual([]);
    expect(pieces("a")).toEqual(["a"]);
    expect(pieces("abcdefg")).toEqual(["abc", "def", "g"]);
    expect(pieces("😀😀😀😀").join("")).toBe("😀😀😀😀");
    for (const part of pieces("😀😀😀😀")) expect(part).toMatch(/^(😀)+$/u);
  });
});
