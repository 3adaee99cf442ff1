import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ScriptedModel, type ScriptedReply, startScriptedModel } from "@plugboard/scripted-model";
import { Type } from "@sinclair/typebox";
import OpenAI from "openai";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { type AgentEvent, type AgentLoopOptions, runAgentLoop } from "./agent-loop.ts";
import { type AnyToolDefinition, defineTool, textResult, ToolError, ToolRegistry, Workspace } from "@plugboard/core";
import { PluginError } from "@plugboard/core/internal";
import { ModelResponseError } from "./model-response-error.ts";
import { ToolRuntime } from "@plugboard/runtime";

const CANCELLED = "Error: Cancelled before the tool finished";
let root: string;
let workspace: Workspace;
/** What the tools did, in order. */
const log: string[] = [];

const readFile = defineTool({
  name: "read_file",
  description: "Read the first lines of a text file.",
  parameters: Type.Object({ path: Type.String(), limit: Type.Optional(Type.Integer({ minimum: 1 })) }),
  handler: async ({ path, limit }, ctx) => {
    log.push(`read_file ${path}`);
    const text = await Bun.file(await ctx.workspace.resolve(path)).text();
    return textResult(text.split("\n").slice(0, limit).join("\n"));
  },
});

const note = defineTool({
  name: "note",
  description: "Write a note to the log.",
  parameters: Type.Object({ text: Type.String() }),
  handler: async ({ text }, ctx) => {
    log.push(`start ${text}`);
    // Yield to the event loop so a loop that ran calls concurrently would interleave them.
    await Bun.sleep(5);
    log.push(`end ${text}`);
    return textResult(`noted ${text} (${ctx.callId})`);
  },
});

const locked = defineTool({
  name: "locked",
  description: "Always fails the expected way.",
  parameters: Type.Object({}),
  handler: async () => {
    throw new ToolError("File is locked: data.db");
  },
});

const bug = new TypeError("Cannot read properties of undefined (reading 'length')");
const buggy = defineTool({
  name: "buggy",
  description: "Always fails the unexpected way.",
  parameters: Type.Object({}),
  handler: async () => {
    throw bug;
  },
});

/** Resolves once the `wait` tool has started, for tests that abort mid-tool. */
let waitStarted = Promise.withResolvers<void>();
const wait = defineTool({
  name: "wait",
  description: "Waits until the turn is cancelled.",
  parameters: Type.Object({ reject: Type.Optional(Type.Boolean()) }),
  handler: async ({ reject }, ctx) => {
    log.push("wait started");
    waitStarted.resolve();
    await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve, { once: true }));
    log.push(`wait saw aborted=${ctx.signal.aborted}`);
    // A handler may also stop by rethrowing the abort reason, as fetch or a child process would.
    if (reject) throw ctx.signal.reason;
    return textResult("stopped early");
  },
});

function runtimeOf(tools: readonly AnyToolDefinition[]): ToolRuntime {
  return new ToolRuntime(new ToolRegistry(tools), { workspace });
}

const everyTool = [readFile, note, locked, buggy, wait];

/** Models started by `turn`, closed after each test. */
const models: ScriptedModel[] = [];

/** Starts one turn against a scripted model; the test awaits `run` when it wants to. */
async function turn(
  script: readonly ScriptedReply[],
  options: Partial<Omit<AgentLoopOptions, "client" | "messages">> = {},
) {
  log.length = 0;
  waitStarted = Promise.withResolvers<void>();
  const model = await startScriptedModel(script);
  models.push(model);
  const client = new OpenAI({ baseURL: model.baseURL, apiKey: "test", maxRetries: 0 });
  const messages: ChatCompletionMessageParam[] = [{ role: "user", content: "Read the first line of README.md" }];
  const events: AgentEvent[] = [];
  const runtime = options.runtime ?? runtimeOf(everyTool);
  const run = runAgentLoop({
    model: "test-model",
    maxSteps: 10,
    onEvent: (event) => events.push(event),
    ...options,
    runtime,
    client,
    messages,
  });
  return { model, run, messages, events, runtime };
}

/** The rejection of `promise`; fails the test when it fulfils. */
async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected the agent loop to reject");
    },
    (error: unknown) => error,
  );
}

const toolMessages = (messages: readonly ChatCompletionMessageParam[]) => messages.filter((m) => m.role === "tool");

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "plugboard-agent-loop-"));
  workspace = await Workspace.open(root);
  await writeFile(join(root, "README.md"), "# s02: Tool Use\n\nA chapter about tools.\n");
});

afterEach(async () => {
  await Promise.all(models.splice(0).map((model) => model.close()));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const readFirstLine: ScriptedReply = {
  toolCalls: [{ id: "call_read_1", name: "read_file", arguments: { path: "README.md", limit: 1 } }],
};
const answer: ScriptedReply = { content: "The first line of README.md is: # s02: Tool Use" };

describe("runAgentLoop", () => {
  test("the seed trace: a tool call, its result, then the answer", async () => {
    const { run, messages, events, model } = await turn([readFirstLine, answer]);
    expect(await run).toEqual({ status: "answered", text: "The first line of README.md is: # s02: Tool Use", steps: 2, usage: expect.any(Object) });
    expect(messages).toEqual([
      { role: "user", content: "Read the first line of README.md" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "call_read_1", type: "function", function: { name: "read_file", arguments: '{"path":"README.md","limit":1}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_read_1", content: "# s02: Tool Use" },
      { role: "assistant", content: "The first line of README.md is: # s02: Tool Use" },
    ]);
    expect(model.requests).toHaveLength(2);
    expect(model.requests[0]?.body.messages).toEqual(messages.slice(0, 1));
    expect(model.requests[1]?.body.messages).toEqual(messages.slice(0, 3));
    expect(model.requests[1]?.body.model).toBe("test-model");
    expect(events.map((event) => event.type)).toEqual([
      "model_request",
      "assistant_message",
      "tool_call",
      "tool_result",
      "model_request",
      "assistant_message",
    ]);
    expect(events[3]).toEqual({
      type: "tool_result",
      id: "call_read_1",
      name: "read_file",
      content: "# s02: Tool Use",
      isError: false,
    });
  });

  test("two tool calls in one response run one after the other, each answered once by id", async () => {
    const { run, messages } = await turn([
      {
        toolCalls: [
          { id: "call_a", name: "note", arguments: { text: "first" } },
          { id: "call_b", name: "note", arguments: { text: "second" } },
        ],
      },
      { content: "Done." },
    ]);
    expect((await run).status).toBe("answered");
    expect(log).toEqual(["start first", "end first", "start second", "end second"]);
    expect(toolMessages(messages)).toEqual([
      { role: "tool", tool_call_id: "call_a", content: "noted first (call_a)" },
      { role: "tool", tool_call_id: "call_b", content: "noted second (call_b)" },
    ]);
    expect(messages.map((message) => message.role)).toEqual(["user", "assistant", "tool", "tool", "assistant"]);
  });

  test("an unknown tool's error is sent back and the loop goes on", async () => {
    const { run, messages, model } = await turn([
      { toolCalls: [{ id: "call_x", name: "delete_everything", arguments: {} }] },
      { content: "That tool does not exist." },
    ]);
    expect(await run).toMatchObject({ status: "answered", text: "That tool does not exist.", steps: 2 });
    const [result] = toolMessages(messages);
    expect(result).toMatchObject({ role: "tool", tool_call_id: "call_x" });
    expect(String(result?.content)).toStartWith("Error: Unknown tool: delete_everything");
    expect(model.requests[1]?.body.messages?.at(-1)).toEqual(result);
  });

  test("invalid arguments never reach the handler; each call still gets its error", async () => {
    const { run, messages } = await turn([
      {
        toolCalls: [
          { id: "call_1", name: "note", arguments: "{oops" },
          { id: "call_2", name: "note", arguments: { text: 5 } },
          { id: "call_3", name: "note", arguments: { text: "hi", extra: true } },
          { id: "call_4", name: "note", arguments: "[]" },
        ],
      },
      { content: "Sorry." },
    ]);
    expect((await run).status).toBe("answered");
    expect(log).toEqual([]);
    const results = toolMessages(messages);
    expect(results.map((message) => message.role === "tool" && message.tool_call_id)).toEqual([
      "call_1",
      "call_2",
      "call_3",
      "call_4",
    ]);
    for (const result of results) expect(String(result.content)).toStartWith("Error: Invalid arguments");
  });

  test("a handler's programming error rejects the loop, naming the tool, with the error as its cause", async () => {
    const { run } = await turn([{ toolCalls: [{ name: "buggy", arguments: {} }] }, { content: "never" }]);
    const error = await failure(run);
    expect(error).toBeInstanceOf(PluginError);
    expect(error).toMatchObject({ tool: "buggy", phase: "handler", cause: bug });
  });

  test("a ToolError becomes an Error: tool message", async () => {
    const { run, messages, events } = await turn([
      { toolCalls: [{ id: "call_l", name: "locked", arguments: {} }] },
      { content: "It is locked." },
    ]);
    expect((await run).status).toBe("answered");
    expect(toolMessages(messages)).toEqual([{ role: "tool", tool_call_id: "call_l", content: "Error: File is locked: data.db" }]);
    expect(events.find((event) => event.type === "tool_result")).toMatchObject({ isError: true });
  });

  test("the step limit stops after exactly maxSteps model requests", async () => {
    const again: ScriptedReply = { toolCalls: [{ name: "note", arguments: { text: "again" } }] };
    const { run, model, messages } = await turn([again, again, again, again, again], { maxSteps: 3 });
    expect(await run).toMatchObject({ status: "step_limit", steps: 3 });
    expect(model.requests).toHaveLength(3);
    expect(model.pending).toBe(2);
    expect(toolMessages(messages)).toHaveLength(3);
  });

  test("an empty registry sends neither tools nor tool_choice", async () => {
    const { run, model } = await turn([{ content: "No tools here." }], { runtime: runtimeOf([]) });
    expect((await run).status).toBe("answered");
    const body = model.requests[0]?.body ?? {};
    expect(body.messages).toHaveLength(1);
    expect("tools" in body).toBe(false);
    expect("tool_choice" in body).toBe(false);
  });

  test("an endpoint fault rejects with the SDK's APIError and its status", async () => {
    const { run, messages } = await turn([{ status: 401 }]);
    const error = await failure(run);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(error).toMatchObject({ status: 401 });
    expect(messages).toHaveLength(1);
  });

  test("tool call arguments sent as a JSON object (not a string) still run", async () => {
    const call = { id: "call_o", type: "function", function: { name: "note", arguments: { text: "object" } } };
    const message = { role: "assistant", content: null, tool_calls: [call] };
    const { run, messages } = await turn([{ raw: { choices: [{ index: 0, message, finish_reason: "tool_calls" }] } }, answer]);
    expect((await run).status).toBe("answered");
    expect(log).toEqual(["start object", "end object"]);
    expect(toolMessages(messages)).toEqual([{ role: "tool", tool_call_id: "call_o", content: "noted object (call_o)" }]);
  });

  test("the tools sent are the runtime's schemas, with tool_choice auto", async () => {
    const { run, model, runtime } = await turn([{ content: "Fine." }]);
    await run;
    expect(model.requests[0]?.body.tools).toEqual(runtime.schemas());
    expect(model.requests[0]?.body.tools).toHaveLength(everyTool.length);
    expect(model.requests[0]?.body.tool_choice).toBe("auto");
  });
});

describe("runAgentLoop cancellation", () => {
  test("an abort during the model request ends the turn as aborted", async () => {
    const controller = new AbortController();
    const { run, model, messages } = await turn([{ hang: true }, { content: "never" }], { signal: controller.signal });
    await model.waitForRequests(1);
    controller.abort();
    expect(await run).toEqual({ status: "aborted", text: "", steps: 1 });
    expect(messages).toHaveLength(1);
    expect(model.requests).toHaveLength(1);
  });

  test("a signal aborted before the turn makes no request", async () => {
    const { run, model } = await turn([{ content: "never" }], { signal: AbortSignal.abort() });
    expect(await run).toEqual({ status: "aborted", text: "", steps: 0 });
    expect(model.requests).toHaveLength(0);
  });

  for (const reject of [false, true]) {
    const how = reject ? "rethrows the abort reason" : "returns";
    test(`an abort during a tool that ${how}: every call id is still answered`, async () => {
      const controller = new AbortController();
      const { run, model, messages } = await turn(
        [
          {
            content: "Working on it.",
            toolCalls: [
              { id: "call_w", name: "wait", arguments: { reject } },
              { id: "call_n1", name: "note", arguments: { text: "skipped" } },
              { id: "call_n2", name: "read_file", arguments: { path: "README.md" } },
            ],
          },
          { content: "never" },
        ],
        { signal: controller.signal },
      );
      await waitStarted.promise;
      controller.abort();
      expect(await run).toEqual({ status: "aborted", text: "Working on it.", steps: 1, usage: expect.any(Object) });
      expect(log).toEqual(["wait started", "wait saw aborted=true"]);
      expect(model.requests).toHaveLength(1);
      const results = toolMessages(messages);
      expect(results.map((message) => message.role === "tool" && message.tool_call_id)).toEqual([
        "call_w",
        "call_n1",
        "call_n2",
      ]);
      expect(results[0]?.content).toBe(reject ? CANCELLED : "stopped early");
      expect(results.slice(1).map((message) => message.content)).toEqual([CANCELLED, CANCELLED]);
    });
  }
});

describe("runAgentLoop streaming", () => {
  const script: ScriptedReply[] = [
    {
      content: "Let me look at the file.",
      toolCalls: [
        { id: "call_r", name: "read_file", arguments: { path: "README.md", limit: 1 } },
        { id: "call_n", name: "note", arguments: { text: "read" } },
      ],
    },
    answer,
  ];

  test("stream: true yields the same messages as a plain request, plus text_delta events", async () => {
    const plain = await turn(script);
    const plainResult = await plain.run;
    const streamed = await turn(script, { stream: true });
    const streamedResult = await streamed.run;
    // The same but for the estimated usage: a streamed request's body is longer.
    const { usage: _streamed, ...streamedRest } = streamedResult;
    const { usage: _plain, ...plainRest } = plainResult;
    expect(streamedRest).toEqual(plainRest);
    expect(streamed.messages).toEqual(plain.messages);
    expect(streamed.messages.map((message) => message.role)).toEqual(["user", "assistant", "tool", "tool", "assistant"]);
    expect(streamed.model.requests.map((request) => request.body.stream)).toEqual([true, true]);
    expect(plain.model.requests.map((request) => request.body.stream)).toEqual([undefined, undefined]);

    const deltas = streamed.events.flatMap((event) => (event.type === "text_delta" ? [event.text] : []));
    expect(deltas.length).toBeGreaterThan(2);
    expect(deltas.join("")).toBe(`Let me look at the file.${plainResult.text}`);
    expect(plain.events.some((event) => event.type === "text_delta")).toBe(false);
    const withoutDeltas: AgentEvent[] = streamed.events.filter((event) => event.type !== "text_delta");
    expect(withoutDeltas).toEqual(plain.events);
  });

  test("an abort while streaming ends the turn as aborted", async () => {
    const controller = new AbortController();
    const { run, model } = await turn([{ hang: true }], { signal: controller.signal, stream: true });
    await model.waitForRequests(1);
    controller.abort();
    expect((await run).status).toBe("aborted");
  });
});

describe("runAgentLoop malformed responses", () => {
  const completionWith = (toolCall: unknown) => ({
    id: "chatcmpl-1",
    object: "chat.completion",
    created: 0,
    model: "test-model",
    choices: [{ index: 0, finish_reason: "tool_calls", message: { role: "assistant", content: null, tool_calls: [toolCall] } }],
  });
  const custom = completionWith({ id: "call_c", type: "custom", custom: { name: "x", input: "y" } });
  const cases: [string, ScriptedReply, boolean, string][] = [
    ["no choices", { raw: { choices: [] } }, false, "the response has no choices"],
    ["no body fields at all", { raw: {} }, false, "the response has no choices"],
    [
      "an error object with status 200 (OpenRouter)",
      { raw: { error: { message: "Provider returned error", code: 502 } } },
      false,
      "The model endpoint answered an error instead of a completion: Provider returned error",
    ],
    ["a tool call of type custom", { raw: custom }, false, 'unsupported tool call type "custom"'],
    ["a tool call without a name", { raw: completionWith({ id: "call_1", type: "function", function: { arguments: "{}" } }) }, false, "call_1 has no function name"],
    ["a tool call without a name or an id", { raw: completionWith({ type: "function", function: { arguments: "{}" } }) }, false, "tool call without an id has no function name"],
    ["a stream with no choices", { raw: [{ id: "c", object: "chat.completion.chunk", choices: [] }] }, true, "no choices"],
    [
      "a streamed tool call of type custom",
      {
        raw: [
          {
            id: "c",
            object: "chat.completion.chunk",
            choices: [{ index: 0, delta: { role: "assistant", tool_calls: [{ index: 0, id: "call_c", type: "custom" }] } }],
          },
        ],
      },
      true,
      'unsupported tool call type "custom"',
    ],
  ];
  for (const [name, reply, stream, message] of cases) {
    test(`${name} rejects with ModelResponseError`, async () => {
      const { run, messages } = await turn([reply], { stream });
      const error = await failure(run);
      expect(error).toBeInstanceOf(ModelResponseError);
      expect((error as Error).message).toContain(message);
      expect(messages).toHaveLength(1);
    });
  }
});
