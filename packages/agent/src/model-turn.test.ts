/**
 * Real providers' answers, replayed as recorded through the real `openai` SDK over HTTP:
 * tool calls without `index` or `type`, empty ids on later chunks, calls with no id at all,
 * reasoning that must go back with its message, and answers with neither text nor tool calls.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RecordedMessage, recordedStream, type ScriptedReply, type StaticReply, startScriptedModel } from "@plugboard/scripted-model";
import { Type } from "@sinclair/typebox";
import OpenAI from "openai";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { type AgentEvent, runAgentLoop } from "./agent-loop.ts";
import { defineTool, textResult, ToolRegistry, Workspace } from "@plugboard/core";
import { ToolRuntime } from "@plugboard/runtime";

let root: string;
let runtime: ToolRuntime;

const readFile = defineTool({
  name: "read_file",
  description: "Read a file.",
  parameters: Type.Object({ path: Type.String() }),
  handler: async ({ path }, ctx) => textResult(await Bun.file(await ctx.workspace.resolve(path)).text()),
});

const glob = defineTool({
  name: "glob",
  description: "List files.",
  parameters: Type.Object({ pattern: Type.String() }),
  handler: async ({ pattern }) => textResult(`matches of ${pattern}: notes.txt`),
});

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "plugboard-model-turn-"));
  await writeFile(join(root, "notes.txt"), "buy milk");
  runtime = new ToolRuntime(new ToolRegistry([readFile, glob]), { workspace: await Workspace.open(root) });
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Runs one turn against `script`; `requireReasoning` makes the server behave like DeepSeek. */
async function turnWith(script: readonly ScriptedReply[], options: { stream?: boolean; requireReasoning?: boolean } = {}) {
  const model = await startScriptedModel(script, { requireReasoning: options.requireReasoning ?? false });
  const messages: ChatCompletionMessageParam[] = [{ role: "user", content: "What does notes.txt say?" }];
  const events: AgentEvent[] = [];
  try {
    const result = await runAgentLoop({
      messages,
      runtime,
      client: new OpenAI({ baseURL: model.baseURL, apiKey: "test", maxRetries: 0 }),
      model: "m",
      maxSteps: 5,
      stream: options.stream ?? true,
      onEvent: (event) => events.push(event),
    });
    return { result, messages, events, requests: model.requests };
  } finally {
    await model.close();
  }
}

const toolResults = (events: readonly AgentEvent[]) =>
  events.flatMap((event) => (event.type === "tool_result" ? [`${event.id} ${event.name}: ${event.content}`] : []));

/** The assistant messages the model received back in its second request. */
function sentBack(requests: readonly { body: { messages?: readonly RecordedMessage[] } }[]): RecordedMessage[] {
  return (requests[1]?.body.messages ?? []).filter((message) => message.role === "assistant");
}

describe("streamed tool calls as providers send them", () => {
  test("Mistral: whole calls with an id and neither index nor type are each executed", async () => {
    const { result, events, requests } = await turnWith([await recordedStream("mistral-tool-calls"), { content: "It says buy milk." }]);
    expect(result).toEqual({ status: "answered", text: "It says buy milk.", steps: 2, usage: expect.any(Object) });
    expect(toolResults(events)).toEqual(["k3Xq9TzR2 read_file: buy milk", "Bv7LmW0pQ glob: matches of *.txt: notes.txt"]);
    expect(sentBack(requests)[0]?.tool_calls).toEqual([
      { id: "k3Xq9TzR2", type: "function", function: { name: "read_file", arguments: '{"path": "notes.txt"}' } },
      { id: "Bv7LmW0pQ", type: "function", function: { name: "glob", arguments: '{"pattern": "*.txt"}' } },
    ]);
  });

  test("an empty id on later chunks continues the call it belongs to", async () => {
    const { result, events } = await turnWith([await recordedStream("empty-id-continuation"), { content: "It says buy milk." }]);
    expect(result.status).toBe("answered");
    expect(toolResults(events)).toEqual(["call_5d2e9a71 read_file: buy milk"]);
  });

  test("calls numbered alike but with different ids stay apart", async () => {
    const chunk = (toolCall: object) => ({ id: "c", object: "chat.completion.chunk", choices: [{ index: 0, delta: { tool_calls: [toolCall] } }] });
    const replay = [
      chunk({ index: 0, id: "call_a", type: "function", function: { name: "read_file", arguments: '{"path":"notes.txt"}' } }),
      chunk({ index: 0, id: "call_b", type: "function", function: { name: "glob", arguments: '{"pattern":"*"}' } }),
    ];
    const { events } = await turnWith([{ replay }, { content: "Done." }]);
    expect(toolResults(events)).toEqual(["call_a read_file: buy milk", "call_b glob: matches of *: notes.txt"]);
  });

  test("arguments sent as an object, or not at all, read as in a plain response", async () => {
    const toolCalls = [
      { index: 0, id: "call_object", type: "function", function: { name: "read_file", arguments: { path: "notes.txt" } } },
      { index: 1, id: "call_none", type: "function", function: { name: "glob" } },
    ];
    const chunk = { id: "c", object: "chat.completion.chunk", choices: [{ index: 0, delta: { role: "assistant", tool_calls: toolCalls } }] };
    const message = { role: "assistant", content: null, tool_calls: toolCalls.map(({ index: _, ...call }) => call) };
    const raw = { id: "x", object: "chat.completion", created: 0, model: "m", choices: [{ index: 0, finish_reason: "tool_calls", message }] };
    const streamed = await turnWith([{ replay: [chunk] }, { content: "Done." }]);
    const plain = await turnWith([{ raw }, { content: "Done." }], { stream: false });
    const expected = ["call_object read_file: buy milk", "call_none glob: Error: Invalid arguments for glob: pattern: expected required property"];
    expect(toolResults(streamed.events)).toEqual(expected);
    expect(toolResults(plain.events)).toEqual(expected);
    expect(sentBack(streamed.requests)[0]?.tool_calls?.map((call) => call.function?.arguments)).toEqual(['{"path":"notes.txt"}', "{}"]);
  });

  test("arguments sent as an empty string read as none, and go back as {}", async () => {
    const toolCalls = [
      { index: 0, id: "call_empty", type: "function", function: { name: "glob", arguments: "" } },
      { index: 1, id: "call_blank", type: "function", function: { name: "glob", arguments: "  " } },
    ];
    const chunk = { id: "c", object: "chat.completion.chunk", choices: [{ index: 0, delta: { role: "assistant", tool_calls: toolCalls } }] };
    const message = { role: "assistant", content: null, tool_calls: toolCalls.map(({ index: _, ...call }) => call) };
    const raw = { id: "x", object: "chat.completion", created: 0, model: "m", choices: [{ index: 0, finish_reason: "tool_calls", message }] };
    const expected = ["call_empty", "call_blank"].map((id) => `${id} glob: Error: Invalid arguments for glob: pattern: expected required property`);
    const streamed = await turnWith([{ replay: [chunk] }, { content: "Done." }]);
    const plain = await turnWith([{ raw }, { content: "Done." }], { stream: false });
    expect(toolResults(streamed.events)).toEqual(expected);
    expect(toolResults(plain.events)).toEqual(expected);
    expect(sentBack(plain.requests)[0]?.tool_calls?.map((call) => call.function?.arguments)).toEqual(["{}", "{}"]);
  });

  test("a plain response's tool call without type is a function call", async () => {
    const raw = {
      id: "x",
      object: "chat.completion",
      created: 0,
      model: "m",
      choices: [
        {
          index: 0,
          finish_reason: "tool_calls",
          message: { role: "assistant", content: "", tool_calls: [{ id: "k3Xq9TzR2", function: { name: "read_file", arguments: '{"path": "notes.txt"}' } }] },
        },
      ],
    };
    const { result, events } = await turnWith([{ raw }, { content: "It says buy milk." }], { stream: false });
    expect(result.status).toBe("answered");
    expect(toolResults(events)).toEqual(["k3Xq9TzR2 read_file: buy milk"]);
  });
});

describe("content as a list of chunks (Mistral's reasoning models)", () => {
  const thinking = (text: string) => ({ type: "thinking", thinking: [{ type: "text", text }] });
  const chunk = (content: unknown, extra: object = {}) => ({ id: "c", object: "chat.completion.chunk", choices: [{ index: 0, delta: { content, ...extra } }] });

  test("streamed: thinking chunks are reasoning, text chunks the answer; the message goes back with its text only", async () => {
    const replay = [
      chunk([thinking("The user asks what notes.txt says;")]),
      chunk([thinking(" read it.")]),
      chunk(null, { tool_calls: [{ index: 0, id: "call_m", type: "function", function: { name: "read_file", arguments: '{"path":"notes.txt"}' } }] }),
    ];
    const answer = [chunk([thinking("It is read.")]), chunk([{ type: "text", text: "It says " }]), chunk([{ type: "text", text: "buy milk." }])];
    const { result, events, requests } = await turnWith([{ replay }, { replay: answer }]);
    expect(result).toEqual({ status: "answered", text: "It says buy milk.", steps: 2 });
    expect(events.flatMap((event) => (event.type === "reasoning" ? [event.text] : []))).toEqual(["The user asks what notes.txt says; read it.", "It is read."]);
    expect(toolResults(events)).toEqual(["call_m read_file: buy milk"]);
    const [back] = sentBack(requests);
    expect(back).toEqual({ role: "assistant", content: null, tool_calls: [{ id: "call_m", type: "function", function: { name: "read_file", arguments: '{"path":"notes.txt"}' } }] });
  });

  test("plain: the same, and chunks of other types are left out", async () => {
    const content = [thinking("Short question."), { type: "image_url", image_url: { url: "x" } }, { type: "text", text: "It says buy milk." }];
    const raw = { id: "x", object: "chat.completion", created: 0, model: "m", choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content } }] };
    const { result, events } = await turnWith([{ raw }], { stream: false });
    expect(result).toEqual({ status: "answered", text: "It says buy milk.", steps: 1 });
    expect(events.flatMap((event) => (event.type === "reasoning" ? [event.text] : []))).toEqual(["Short question."]);
  });
});

describe("tool calls without ids", () => {
  const CALL_ID = /^call_[0-9a-f]{24}$/;
  const chunk = (...toolCalls: object[]) => ({ id: "c", object: "chat.completion.chunk", choices: [{ index: 0, delta: { tool_calls: toolCalls } }] });

  /** The ids of the calls sent back, and the ids the tool results answer, from the second request. */
  function idsSentBack(requests: readonly { body: { messages?: readonly RecordedMessage[] } }[]) {
    const messages = requests[1]?.body.messages ?? [];
    const calls = messages.filter((message) => message.role === "assistant").flatMap((message) => message.tool_calls ?? []);
    const results = messages.flatMap((message) => (message.role === "tool" ? [(message as { tool_call_id?: string }).tool_call_id] : []));
    return { calls: calls.map((call) => call.id), results };
  }

  test("streamed calls with no id (NVIDIA NIM, vLLM) get ids of ours, and each result goes back under its call's", async () => {
    const replay = [
      chunk({ index: 0, type: "function", function: { name: "read_file", arguments: "" } }),
      chunk({ index: 0, function: { arguments: '{"path":"notes.txt"}' } }),
      chunk({ index: 1, type: "function", function: { name: "glob", arguments: '{"pattern":"*"}' } }),
    ];
    const { result, events, requests } = await turnWith([{ replay }, { content: "Done." }]);
    expect(result.status).toBe("answered");
    const ids = events.flatMap((event) => (event.type === "tool_result" ? [event.id] : []));
    expect(ids).toHaveLength(2);
    for (const id of ids) expect(id).toMatch(CALL_ID);
    expect(new Set(ids).size).toBe(2);
    expect(toolResults(events)).toEqual([`${ids[0]} read_file: buy milk`, `${ids[1]} glob: matches of *: notes.txt`]);
    expect(idsSentBack(requests)).toEqual({ calls: ids, results: ids });
  });

  test("a plain response's calls with an empty or missing id get ids of ours", async () => {
    const message = {
      role: "assistant",
      content: null,
      tool_calls: [
        { id: "", type: "function", function: { name: "read_file", arguments: '{"path":"notes.txt"}' } },
        { type: "function", function: { name: "glob", arguments: '{"pattern":"*"}' } },
      ],
    };
    const raw = { id: "x", object: "chat.completion", created: 0, model: "m", choices: [{ index: 0, finish_reason: "tool_calls", message }] };
    const { events, requests } = await turnWith([{ raw }, { content: "Done." }], { stream: false });
    const { calls, results } = idsSentBack(requests);
    expect(calls).toHaveLength(2);
    for (const id of calls) expect(id).toMatch(CALL_ID);
    expect(results).toEqual(calls);
    expect(toolResults(events)).toEqual([`${calls[0]} read_file: buy milk`, `${calls[1]} glob: matches of *: notes.txt`]);
  });

  test("an id that comes after the call's name and arguments is the call's", async () => {
    const replay = [
      chunk({ index: 0, type: "function", function: { name: "read_file", arguments: '{"path":"notes.txt"}' } }),
      chunk({ index: 0, id: "call_late" }),
    ];
    const { events } = await turnWith([{ replay }, { content: "Done." }]);
    expect(toolResults(events)).toEqual(["call_late read_file: buy milk"]);
  });

  test("whole calls with neither index nor id stay apart", async () => {
    const replay = [
      chunk({ type: "function", function: { name: "read_file", arguments: '{"path":"notes.txt"}' } }),
      chunk({ type: "function", function: { name: "glob", arguments: '{"pattern":"*"}' } }),
    ];
    const { events } = await turnWith([{ replay }, { content: "Done." }]);
    expect(toolResults(events).map((line) => line.replace(/^call_[0-9a-f]{24} /, ""))).toEqual(["read_file: buy milk", "glob: matches of *: notes.txt"]);
  });

  test("two calls of one answer with the same id: the second gets one of ours", async () => {
    const message = {
      role: "assistant",
      content: null,
      tool_calls: [
        { id: "call_0", type: "function", function: { name: "read_file", arguments: '{"path":"notes.txt"}' } },
        { id: "call_0", type: "function", function: { name: "glob", arguments: '{"pattern":"*"}' } },
      ],
    };
    const raw = { id: "x", object: "chat.completion", created: 0, model: "m", choices: [{ index: 0, finish_reason: "tool_calls", message }] };
    const { requests } = await turnWith([{ raw }, { content: "Done." }], { stream: false });
    const { calls, results } = idsSentBack(requests);
    expect(calls[0]).toBe("call_0");
    expect(calls[1]).toMatch(CALL_ID);
    expect(results).toEqual(calls);
  });
});

describe("reasoning", () => {
  // The server refuses (400) a tool-call message sent back without its reasoning, as DeepSeek does.
  test("DeepSeek: streamed reasoning stays on its tool-call message and goes back with it, so the next step is not refused", async () => {
    const final = { content: "It says buy milk.", reasoning: "The file says buy milk." };
    const { result, events, requests } = await turnWith([await recordedStream("deepseek-reasoning-tool-call"), final], {
      requireReasoning: true,
    });
    expect(result).toEqual({ status: "answered", text: "It says buy milk.", steps: 2, usage: expect.any(Object) });
    expect(sentBack(requests)[0]?.reasoning_content).toBe("The user wants to know what notes.txt says. I should read the file first.");
    expect(events.filter((event) => event.type === "reasoning")).toEqual([
      { type: "reasoning", step: 1, text: "The user wants to know what notes.txt says. I should read the file first." },
      { type: "reasoning", step: 2, text: "The file says buy milk." },
    ]);
    const deltas = events.flatMap((event) => (event.type === "reasoning_delta" ? [event.text] : []));
    expect(deltas.join("")).toBe("The user wants to know what notes.txt says. I should read the file first.The file says buy milk.");
  });

  test("reasoning of a plain response goes back too; `reasoning` (not `reasoning_content`) keeps its name", async () => {
    const call = { id: "call_1", type: "function", function: { name: "read_file", arguments: '{"path":"notes.txt"}' } };
    const raw = {
      id: "x",
      object: "chat.completion",
      created: 0,
      model: "m",
      choices: [{ index: 0, finish_reason: "tool_calls", message: { role: "assistant", content: null, reasoning: "Read it first.", tool_calls: [call] } }],
    };
    const { messages, requests } = await turnWith([{ raw }, { content: "It says buy milk." }], { stream: false });
    expect(sentBack(requests)[0]).toMatchObject({ reasoning: "Read it first." });
    expect(sentBack(requests)[0]?.reasoning_content).toBeUndefined();
    expect(messages[1]).toMatchObject({ role: "assistant", reasoning: "Read it first." });
  });
});

describe("an answer with neither text nor tool calls", () => {
  test.each([
    ["streamed", true],
    ["plain", false],
  ])("%s: the turn ends as empty, not as answered", async (_, stream) => {
    const { result, messages } = await turnWith([{ content: "" }], { stream });
    expect(result).toEqual({ status: "empty", text: "", steps: 1, usage: expect.any(Object) });
    expect(messages.at(-1)).toEqual({ role: "assistant", content: "" });
  });

  test("reasoning alone is still no answer", async () => {
    const { result, events } = await turnWith([{ content: "", reasoning: "Hmm." }]);
    expect(result.status).toBe("empty");
    expect(events.some((event) => event.type === "reasoning" && event.text === "Hmm.")).toBe(true);
  });
});

describe("token usage", () => {
  const call = { toolCalls: [{ name: "read_file", arguments: { path: "notes.txt" } }] };

  test.each([
    ["streamed", true],
    ["plain", false],
  ])("%s: the turn's usage is its requests' counts added up", async (_, stream) => {
    const { result, requests } = await turnWith(
      [
        { ...call, usage: { promptTokens: 1000, completionTokens: 20 } },
        { content: "It says buy milk.", usage: { promptTokens: 1234, completionTokens: 36 } },
      ],
      { stream },
    );
    expect(result).toEqual({ status: "answered", text: "It says buy milk.", steps: 2, usage: { promptTokens: 2234, completionTokens: 56 } });
    // A stream reports its usage only when asked.
    expect(requests[0]?.body.stream_options).toEqual(stream ? { include_usage: true } : undefined);
  });

  test("absent when the endpoint reports none", async () => {
    const { result } = await turnWith([{ ...call, usage: false }, { content: "It says buy milk.", usage: false }]);
    expect(result).toEqual({ status: "answered", text: "It says buy milk.", steps: 2 });
  });

  test("reported unasked (Mistral, which sends it on its last chunk)", async () => {
    const { result } = await turnWith([await recordedStream("mistral-tool-calls"), { content: "It says buy milk.", usage: false }]);
    expect(result.usage).toEqual({ promptTokens: 412, completionTokens: 35 });
  });

  test("an endpoint that refuses stream_options (Mistral's 422) is asked again without it, and not asked again", async () => {
    const refused = { detail: [{ type: "extra_forbidden", loc: ["body", "stream_options", "include_usage"], msg: "Extra inputs are not permitted", input: true }] };
    const mistral = (reply: StaticReply): ScriptedReply => (request) =>
      request.body.stream_options === undefined ? reply : { status: 422, body: { object: "error", message: refused, type: "invalid_request_error", param: null, code: null } };
    const model = await startScriptedModel([mistral(call), mistral(call), { content: "It says buy milk.", usage: { promptTokens: 9, completionTokens: 3 } }]);
    try {
      const result = await runAgentLoop({
        messages: [{ role: "user", content: "What does notes.txt say?" }],
        runtime,
        client: new OpenAI({ baseURL: model.baseURL, apiKey: "test", maxRetries: 0 }),
        model: "m",
        maxSteps: 5,
        stream: true,
      });
      expect(result).toMatchObject({ status: "answered", text: "It says buy milk." });
      expect(model.requests.map((request) => request.body.stream_options)).toEqual([{ include_usage: true }, undefined, undefined]);
    } finally {
      await model.close();
    }
  });
});
