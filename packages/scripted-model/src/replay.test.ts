import { describe, expect, test } from "bun:test";
import OpenAI from "openai";
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import { RECORDED_STREAMS, recordedStream } from "./recorded.ts";
import { REASONING_REQUIRED } from "./routes.ts";
import { startScriptedModel } from "./scripted-model.ts";

const user = [{ role: "user" as const, content: "What does notes.txt say?" }];

function clientFor(baseURL: string): OpenAI {
  return new OpenAI({ baseURL, apiKey: "test", maxRetries: 0 });
}

async function chunksOf(client: OpenAI): Promise<ChatCompletionChunk[]> {
  const chunks: ChatCompletionChunk[] = [];
  for await (const chunk of await client.chat.completions.create({ model: "m", messages: user, stream: true })) chunks.push(chunk);
  return chunks;
}

describe("replaying a recorded stream", () => {
  test.each([...RECORDED_STREAMS])("%s goes out byte for byte as recorded", async (name) => {
    const reply = await recordedStream(name);
    await using model = await startScriptedModel([reply]);
    const response = await fetch(`${model.baseURL}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", messages: user, stream: true }),
    });
    expect(response.headers.get("content-type")).toStartWith("text/event-stream");
    expect(await response.text()).toBe(String(reply.replay));
  });

  test("through the SDK every chunk arrives with its own fields: no index, extra usage fields", async () => {
    await using model = await startScriptedModel([await recordedStream("mistral-tool-calls"), await recordedStream("deepseek-reasoning-tool-call")]);
    const client = clientFor(model.baseURL);

    const mistral = await chunksOf(client);
    expect(mistral).toHaveLength(3);
    const calls: unknown[] = mistral.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []);
    expect(calls).toEqual([
      { id: "k3Xq9TzR2", function: { name: "read_file", arguments: '{"path": "notes.txt"}' } },
      { id: "Bv7LmW0pQ", function: { name: "glob", arguments: '{"pattern": "*.txt"}' } },
    ]);

    const deepseek = await chunksOf(client);
    expect(deepseek).toHaveLength(7);
    const reasoning = deepseek.map((chunk) => Reflect.get(chunk.choices[0]?.delta ?? {}, "reasoning_content")).filter(Boolean);
    expect(reasoning.join("")).toBe("The user wants to know what notes.txt says. I should read the file first.");
    expect(deepseek.at(-1)?.usage).toMatchObject({ prompt_cache_hit_tokens: 384, completion_tokens_details: { reasoning_tokens: 21 } });
  });

  test("chunks given as an array: objects as data events, strings verbatim, then [DONE]", async () => {
    const chunk = { id: "c", object: "chat.completion.chunk", choices: [{ index: 0, delta: { content: "Hi" }, x_vendor: 1 }] };
    await using model = await startScriptedModel([{ replay: [chunk, ": keep-alive\n\n"] }]);
    const response = await fetch(`${model.baseURL}/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ model: "m", messages: user, stream: true }),
    });
    expect(await response.text()).toBe(`data: ${JSON.stringify(chunk)}\n\n: keep-alive\n\ndata: [DONE]\n\n`);
  });

  test("a replay scripted for a request that is not streamed is the test's mistake, said as such", async () => {
    await using model = await startScriptedModel([await recordedStream("mistral-tool-calls")]);
    const error = await clientFor(model.baseURL)
      .chat.completions.create({ model: "m", messages: user })
      .then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect((error as Error).message).toContain("a replay reply answers only a streamed request");
  });
});

describe("reasoning", () => {
  test("a scripted reply's reasoning is sent as reasoning_content, plain and streamed", async () => {
    const reply = { content: "It says hello.", reasoning: "Read it, then answer." };
    await using model = await startScriptedModel([reply, reply]);
    const client = clientFor(model.baseURL);
    const completion = await client.chat.completions.create({ model: "m", messages: user });
    expect(completion.choices[0]?.message).toMatchObject({ content: "It says hello.", reasoning_content: "Read it, then answer." });
    const deltas = (await chunksOf(client)).map((chunk) => chunk.choices[0]?.delta ?? {});
    expect(deltas.map((delta) => Reflect.get(delta, "reasoning_content") ?? "").join("")).toBe("Read it, then answer.");
    const firstContent = deltas.findIndex((delta) => typeof delta.content === "string" && delta.content !== "");
    const lastReasoning = deltas.findLastIndex((delta) => Reflect.get(delta, "reasoning_content") !== undefined);
    expect(lastReasoning).toBeLessThan(firstContent);
  });

  test("requireReasoning answers 400 like DeepSeek when a tool-call message comes back without it, using no reply", async () => {
    await using model = await startScriptedModel([{ content: "Done." }], { requireReasoning: true });
    const client = clientFor(model.baseURL);
    const toolCall = { id: "call_1", type: "function" as const, function: { name: "read_file", arguments: "{}" } };
    const history = (reasoning: object) => [
      ...user,
      { role: "assistant" as const, content: null, tool_calls: [toolCall], ...reasoning },
      { role: "tool" as const, tool_call_id: "call_1", content: "hello" },
    ];
    const error = await client.chat.completions.create({ model: "m", messages: history({}) }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as Error).message).toContain(REASONING_REQUIRED);
    expect(model.pending).toBe(1);

    const answer = await client.chat.completions.create({ model: "m", messages: history({ reasoning_content: "Read the file first." }) });
    expect(answer.choices[0]?.message.content).toBe("Done.");
    expect(model.requests[1]?.body.messages?.[1]?.reasoning_content).toBe("Read the file first.");
  });
});
