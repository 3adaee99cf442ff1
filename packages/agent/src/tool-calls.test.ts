/**
 * Parallel tool calls, proven by what the handlers observe (never by timings): calls that may
 * overlap do (one waits for another that could only run meanwhile), the others run in call
 * order, results and events come back in call order, and cancellation reaches every call.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { appendFile, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type ScriptedToolCall, startScriptedModel } from "@plugboard/scripted-model";
import { Type } from "@sinclair/typebox";
import OpenAI from "openai";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { type AgentEvent, runAgentLoop } from "./agent-loop.ts";
import { type ApprovalRequest, type Policy, ToolRuntime } from "@plugboard/runtime";
import { type Concurrency, defineTool, textResult, ToolError, ToolRegistry, Workspace } from "@plugboard/core";
import { PluginError } from "@plugboard/core/internal";
import { settlesWithin } from "@plugboard/core/process";

const CANCELLED = "Error: Cancelled before the tool finished";
let root: string;
let workspace: Workspace;
/** What the handlers did, in order. */
const log: string[] = [];
interface Latch {
  readonly promise: Promise<void>;
  resolve(): void;
}
/** Settles once the call with that label has finished. */
const finished = new Map<string, Latch>();
/** Settles once the call with that label has started. */
const started = new Map<string, Latch>();

const latch = (map: Map<string, Latch>, label: string): Latch => {
  const existing = map.get(label);
  if (existing) return existing;
  const created = Promise.withResolvers<void>();
  map.set(label, created);
  return created;
};

const Step = Type.Object({
  label: Type.String(),
  path: Type.Optional(Type.String()),
  /** Finish only after the call with this label finished: possible only if both overlap. */
  after: Type.Optional(Type.String()),
  /** Wait for the turn to be cancelled. */
  hold: Type.Optional(Type.Boolean()),
});

/** A tool of the given concurrency whose calls log their start and end. */
function stepTool(name: string, concurrency: Concurrency<typeof Step> | undefined) {
  return defineTool({
    name,
    description: `A ${name} step.`,
    parameters: Step,
    ...(concurrency === undefined ? {} : { concurrency }),
    handler: async ({ label, path, after, hold }, ctx) => {
      log.push(`start ${label}`);
      latch(started, label).resolve();
      if (after !== undefined) await awaitLatch(latch(finished, after).promise, `${after} never finished while ${label} waited: the calls did not overlap`);
      if (hold) {
        await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve, { once: true }));
        log.push(`${label} saw aborted=${ctx.signal.aborted}`);
        throw ctx.signal.reason;
      }
      // Yield, so that a call allowed to overlap this one would start now.
      await Bun.sleep(1);
      if (path !== undefined) await appendFile(join(ctx.workspace.root, path), `${label};`);
      log.push(`end ${label}`);
      latch(finished, label).resolve();
      return textResult(`done ${label}`);
    },
  });
}

const look = stepTool("look", "read-only");
// As the file plugins declare it: the absolute path the call names.
const put = stepTool("put", { writes: ({ path }, workspace) => resolve(workspace.root, path ?? "") });
const run = stepTool("run", undefined);

/** Waits up to 2 s for `promise` (a latch, not a poll), or fails the call (as an `Error:` result) saying what never happened. */
async function awaitLatch(promise: Promise<void>, never: string): Promise<void> {
  if (!(await settlesWithin(promise, 2_000))) throw new ToolError(never);
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "plugboard-tool-calls-"));
  workspace = await Workspace.open(root);
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

interface TurnOptions {
  readonly signal?: AbortSignal;
  readonly policy?: Policy;
  readonly approve?: (request: ApprovalRequest) => Promise<{ decision: "allow" }>;
}

/** One turn whose first response proposes `calls`; the turn starts at once, the test awaits it. */
async function turnWith(calls: readonly { name: string; args: Record<string, unknown> }[], options: TurnOptions = {}) {
  log.length = 0;
  finished.clear();
  started.clear();
  const toolCalls: ScriptedToolCall[] = calls.map((call, index) => ({ id: `call_${index + 1}`, name: call.name, arguments: call.args }));
  const model = await startScriptedModel([{ toolCalls }, { content: "All done." }]);
  const runtime = new ToolRuntime(new ToolRegistry([look, put, run]), { workspace, ...(options.policy ? { policy: options.policy } : {}) });
  const messages: ChatCompletionMessageParam[] = [{ role: "user", content: "Go." }];
  const events: AgentEvent[] = [];
  const result = runAgentLoop({
    messages,
    runtime,
    client: new OpenAI({ baseURL: model.baseURL, apiKey: "test", maxRetries: 0 }),
    model: "m",
    maxSteps: 3,
    onEvent: (event) => events.push(event),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.approve ? { approve: options.approve } : {}),
  }).finally(() => model.close());
  return { result, messages, events };
}

const toolContents = (messages: readonly ChatCompletionMessageParam[]) =>
  messages.flatMap((message) => (message.role === "tool" ? [`${message.tool_call_id}: ${String(message.content)}`] : []));

describe("calls that may overlap do", () => {
  test("read-only calls run together; results and events come back in call order, whatever order they finish in", async () => {
    const { result, messages, events } = await turnWith([
      { name: "look", args: { label: "a", after: "b" } },
      { name: "look", args: { label: "b" } },
    ]);
    expect((await result).status).toBe("answered");
    // Both started before either ended (which of the two started first is up to the event loop).
    expect(log.slice(0, 2).toSorted()).toEqual(["start a", "start b"]);
    expect(log.slice(2)).toEqual(["end b", "end a"]);
    expect(toolContents(messages)).toEqual(["call_1: done a", "call_2: done b"]);
    const order = events.flatMap((event) => (event.type === "tool_call" || event.type === "tool_result" ? [`${event.type} ${event.id}`] : []));
    expect(order).toEqual(["tool_call call_1", "tool_call call_2", "tool_result call_1", "tool_result call_2"]);
  });

  test("writes to different paths run together", async () => {
    const { result, messages } = await turnWith([
      { name: "put", args: { label: "x", path: "x.txt", after: "y" } },
      { name: "put", args: { label: "y", path: "y.txt" } },
    ]);
    await result;
    expect(toolContents(messages)).toEqual(["call_1: done x", "call_2: done y"]);
    expect(log.slice(0, 2).toSorted()).toEqual(["start x", "start y"]);
    expect(log.slice(2)).toEqual(["end y", "end x"]);
  });
});

describe("calls that may not overlap run in call order", () => {
  test("two writes of the same file apply in the order of the calls", async () => {
    const calls = ["1", "2", "3"].map((label) => ({ name: "put", args: { label, path: "same.txt" } }));
    const { result, messages } = await turnWith(calls);
    await result;
    expect(log).toEqual(["start 1", "end 1", "start 2", "end 2", "start 3", "end 3"]);
    expect(await readFile(join(root, "same.txt"), "utf8")).toBe("1;2;3;");
    expect(toolContents(messages)).toEqual(["call_1: done 1", "call_2: done 2", "call_3: done 3"]);
  });

  test("writes of one file through other names (a symlink to it, a symlinked folder, a dangling link) apply in the order of the calls", async () => {
    await mkdir(join(root, "real-dir"));
    await writeFile(join(root, "real-dir/file.txt"), "");
    await symlink("real-dir/file.txt", join(root, "file-link.txt"));
    await symlink("real-dir", join(root, "dir-link"));
    await symlink("real-dir/new.txt", join(root, "dangling-link.txt"));
    const { result } = await turnWith([
      { name: "put", args: { label: "1", path: "real-dir/file.txt" } },
      { name: "put", args: { label: "2", path: "file-link.txt" } },
      { name: "put", args: { label: "3", path: "dir-link/file.txt" } },
      { name: "put", args: { label: "4", path: "dir-link/new.txt" } },
      { name: "put", args: { label: "5", path: "dangling-link.txt" } },
    ]);
    await result;
    // Each file's writes one after another (the two files' writes may overlap each other).
    const of = (labels: string) => log.filter((line) => labels.includes(line.slice(-1)));
    expect(of("123")).toEqual(["start 1", "end 1", "start 2", "end 2", "start 3", "end 3"]);
    expect(of("45")).toEqual(["start 4", "end 4", "start 5", "end 5"]);
    expect(await readFile(join(root, "real-dir/file.txt"), "utf8")).toBe("1;2;3;");
    expect(await readFile(join(root, "real-dir/new.txt"), "utf8")).toBe("4;5;");
  });

  test("a write waits for an earlier read, and a later read for the write", async () => {
    const { result } = await turnWith([
      { name: "look", args: { label: "read1" } },
      { name: "put", args: { label: "write", path: "w.txt" } },
      { name: "look", args: { label: "read2" } },
    ]);
    await result;
    expect(log).toEqual(["start read1", "end read1", "start write", "end write", "start read2", "end read2"]);
  });

  test("a tool that declares nothing is serial: it overlaps no call before or after it", async () => {
    const { result } = await turnWith([
      { name: "look", args: { label: "a" } },
      { name: "run", args: { label: "cmd" } },
      { name: "look", args: { label: "b" } },
      { name: "look", args: { label: "c" } },
    ]);
    await result;
    expect(log.slice(0, 4)).toEqual(["start a", "end a", "start cmd", "end cmd"]);
    expect(log.slice(4, 6).toSorted()).toEqual(["start b", "start c"]);
  });
});

describe("cancellation", () => {
  test("reaches every running call; a call that had not started is answered without running", async () => {
    const controller = new AbortController();
    const { result, messages } = await turnWith(
      [
        { name: "look", args: { label: "a", hold: true } },
        { name: "look", args: { label: "b", hold: true } },
        { name: "put", args: { label: "c", path: "c.txt", hold: true } },
        { name: "put", args: { label: "d", path: "d.txt", hold: true } },
        { name: "run", args: { label: "later" } },
      ],
      { signal: controller.signal },
    );
    await Promise.all(["a", "b"].map((label) => awaitLatch(latch(started, label).promise, `${label} never started`)));
    controller.abort();
    expect(await result).toEqual({ status: "aborted", text: "", steps: 1, usage: expect.any(Object) });
    expect(log.toSorted()).toEqual(["a saw aborted=true", "b saw aborted=true", "start a", "start b"]);
    expect(toolContents(messages)).toEqual(["call_1", "call_2", "call_3", "call_4", "call_5"].map((id) => `${id}: ${CANCELLED}`));
  });

  test("reaches every running write too", async () => {
    const controller = new AbortController();
    const { result, messages } = await turnWith(
      [
        { name: "put", args: { label: "c", path: "c.txt", hold: true } },
        { name: "put", args: { label: "d", path: "d.txt", hold: true } },
      ],
      { signal: controller.signal },
    );
    await Promise.all(["c", "d"].map((label) => awaitLatch(latch(started, label).promise, `${label} never started`)));
    controller.abort();
    expect((await result).status).toBe("aborted");
    expect(log.filter((line) => line.includes("saw")).toSorted()).toEqual(["c saw aborted=true", "d saw aborted=true"]);
    expect(toolContents(messages)).toEqual([`call_1: ${CANCELLED}`, `call_2: ${CANCELLED}`]);
  });
});

test("approvals are asked one at a time, even for calls that run together", async () => {
  let asking = 0;
  let most = 0;
  const asked: string[] = [];
  const approve = async (request: ApprovalRequest) => {
    asking++;
    most = Math.max(most, asking);
    asked.push(String(request.arguments.label));
    await Bun.sleep(1);
    asking--;
    return { decision: "allow" as const };
  };
  const { result, messages } = await turnWith(
    [
      { name: "look", args: { label: "a" } },
      { name: "look", args: { label: "b" } },
      { name: "look", args: { label: "c" } },
    ],
    { policy: { default: "ask", rules: [] }, approve },
  );
  await result;
  expect(most).toBe(1);
  expect(asked).toEqual(["a", "b", "c"]);
  expect(toolContents(messages)).toEqual(["call_1: done a", "call_2: done b", "call_3: done c"]);
});

test("a bug in naming what a call writes rejects the turn, naming the tool and the phase", async () => {
  const broken = defineTool({
    name: "broken",
    description: "Its writes() throws.",
    parameters: Type.Object({}),
    concurrency: {
      writes: () => {
        throw new RangeError("no path");
      },
    },
    handler: async () => textResult("never"),
  });
  await using model = await startScriptedModel([{ toolCalls: [{ name: "broken", arguments: {} }] }]);
  const runtime = new ToolRuntime(new ToolRegistry([{ tool: broken, owner: "plugin-x" }]), { workspace });
  const error = await runAgentLoop({
    messages: [{ role: "user", content: "Go." }],
    runtime,
    client: new OpenAI({ baseURL: model.baseURL, apiKey: "test", maxRetries: 0 }),
    model: "m",
    maxSteps: 2,
  }).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(PluginError);
  expect(error).toMatchObject({ tool: "broken", plugin: "plugin-x", phase: "concurrency" });
  expect((error as Error).message).toBe("Tool broken (plugin plugin-x) failed in its concurrency: RangeError: no path");
});

test("a call is read once: what it writes and what its handler gets come from one prepared call", async () => {
  // Nested values are not copied on the way: the same object in both places is the same reading.
  const seen: { writes?: unknown; handler?: unknown } = {};
  const tagged = defineTool({
    name: "tagged",
    description: "Writes the path its options name.",
    parameters: Type.Object({ options: Type.Object({ path: Type.String() }) }),
    concurrency: {
      writes: ({ options }) => {
        seen.writes = options;
        return options.path;
      },
    },
    handler: async ({ options }) => {
      seen.handler = options;
      return textResult(`wrote ${options.path}`);
    },
  });
  // Almost JSON: the one read repairs it.
  await using model = await startScriptedModel([{ toolCalls: [{ name: "tagged", arguments: '{"options":{"path":"a.txt",},}' }] }, { content: "done" }]);
  const runtime = new ToolRuntime(new ToolRegistry([tagged]), { workspace });
  const messages: ChatCompletionMessageParam[] = [{ role: "user", content: "Go." }];
  await runAgentLoop({ messages, runtime, client: new OpenAI({ baseURL: model.baseURL, apiKey: "test", maxRetries: 0 }), model: "m", maxSteps: 2 });
  expect(toolContents(messages)).toEqual([expect.stringMatching(/: wrote a\.txt$/)]);
  expect(seen.handler).toEqual({ path: "a.txt" });
  expect(seen.handler).toBe(seen.writes);
});

test("defineTool refuses a concurrency it does not know", () => {
  expect(() =>
    defineTool({
      name: "odd",
      description: "Odd.",
      parameters: Type.Object({}),
      concurrency: "sometimes" as never,
      handler: async () => textResult(""),
    }),
  ).toThrow('Tool odd: concurrency must be "serial", "read-only" or { writes(args) }');
});
