import { beforeAll, describe, expect, test } from "bun:test";
import { tmpdir } from "node:os";
import { Type } from "@sinclair/typebox";
import { defineTool, type ToolContext, structuredResult, textResult, ToolError, ToolRegistry, Workspace } from "@plugboard/core";
import { PluginError, type ToolSource } from "@plugboard/core/internal";
import { ToolRuntime } from "./runtime.ts";
import type { AuditRecord } from "./audit.ts";

const calls: unknown[] = [];
/** Called by the `failing` tool's `aborts` kind once it waits for its signal. */
let started = () => {};
let seenContext: ToolContext | undefined;

const readFile = defineTool({
  name: "read_file",
  description: "Read a file.",
  parameters: Type.Object({
    path: Type.String({ minLength: 1 }),
    offset: Type.Optional(Type.Integer({ minimum: 1 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  }),
  handler: async (args, ctx) => {
    calls.push(args);
    seenContext = ctx;
    return textResult(`read ${args.path}`);
  },
});

const failing = defineTool({
  name: "failing",
  description: "Fails in the two ways a handler can.",
  parameters: Type.Object({ kind: Type.Union([Type.Literal("expected"), Type.Literal("bug"), Type.Literal("aborts")]) }),
  handler: async ({ kind }, ctx) => {
    if (kind === "expected") throw new ToolError("File not found: nope.txt");
    if (kind === "aborts") {
      started();
      await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve, { once: true }));
      throw ctx.signal.reason;
    }
    throw new RangeError("index out of range");
  },
});

let runtime: ToolRuntime;
beforeAll(async () => {
  const registry = new ToolRegistry([{ tool: readFile, owner: "plugin-a" }, { tool: failing, owner: "plugin-b" }]);
  runtime = new ToolRuntime(registry, { workspace: await Workspace.open(tmpdir()) });
});

async function run(name: string, raw: string) {
  calls.length = 0;
  const result = await runtime.execute(name, raw, { callId: "call_7" });
  return { ...result, handlerCalls: calls.length };
}

describe("ToolRuntime.execute", () => {
  test("a valid call reaches the handler with the parsed arguments and its context", async () => {
    const result = await run("read_file", '{"path":"README.md","limit":1}');
    expect(result).toEqual({ content: "read README.md", isError: false, handlerCalls: 1 });
    expect(calls[0]).toEqual({ path: "README.md", limit: 1 });
    expect(seenContext?.callId).toBe("call_7");
    expect(seenContext?.workspace).toBe(runtime.workspace);
    expect(seenContext?.signal.aborted).toBe(false);
  });

  test("an unknown tool is an error result listing the available names", async () => {
    expect(await run("write_file", "{}")).toEqual({
      content: "Error: Unknown tool: write_file (available: read_file, failing)",
      isError: true,
      handlerCalls: 0,
    });
  });

  test("an unknown tool in an empty registry says that no tools are enabled", async () => {
    const empty = new ToolRuntime(new ToolRegistry([]), { workspace: runtime.workspace });
    expect((await empty.execute("bash", "{}")).content).toBe("Error: Unknown tool: bash (no tools are enabled)");
  });

  test.each(["not json", "{", '{"path":', ""])("arguments that are not JSON (%p) are an Invalid arguments error", async (raw) => {
    const result = await run("read_file", raw);
    expect(result.content).toStartWith("Error: Invalid arguments: ");
    expect(result.content).not.toStartWith("Error: Invalid arguments for");
    expect(result).toMatchObject({ isError: true, handlerCalls: 0 });
  });

  test.each(["[]", "null", "123", '"path"', "true"])("JSON that is not an object (%s) is refused", async (raw) => {
    expect(await run("read_file", raw)).toEqual({
      content: "Error: Invalid arguments: expected a JSON object",
      isError: true,
      handlerCalls: 0,
    });
  });

  test.each([
    ["a missing field", "{}", "path: expected required property"],
    ["a wrong type", '{"path":42}', "path: expected string"],
    ["a number out of range", '{"path":"a","limit":0}', "limit: expected integer to be greater or equal to 1"],
    ["a number above the maximum", '{"path":"a","limit":101}', "limit: expected integer to be less or equal to 100"],
    ["a float for an integer", '{"path":"a","offset":1.5}', "offset: expected integer"],
    ["an extra property", '{"path":"a","mode":"w"}', "mode: unexpected property"],
    ["an empty string below minLength", '{"path":""}', "path: expected string length greater or equal to 1"],
  ])("%s is refused before the handler runs", async (_, raw, problem) => {
    const result = await run("read_file", raw);
    expect(result.content).toStartWith("Error: Invalid arguments for read_file: ");
    expect(result.content).toContain(problem);
    expect(result).toMatchObject({ isError: true, handlerCalls: 0 });
  });

  test("every failing field is named, once each", async () => {
    const result = await run("read_file", '{"limit":"ten","extra":1}');
    expect(result.content).toContain("path: expected required property");
    expect(result.content).toContain("limit: expected integer");
    expect(result.content).toContain("extra: unexpected property");
    expect(result.content.match(/limit:/g)).toHaveLength(1);
  });

  test("a ToolError thrown by a handler becomes an Error: result", async () => {
    expect(await runtime.execute("failing", '{"kind":"expected"}')).toEqual({
      content: "Error: File not found: nope.txt",
      isError: true,
    });
  });

  test("a programming error in a handler propagates, naming its plugin, tool and phase, with the error as cause", async () => {
    const error = await runtime.execute("failing", '{"kind":"bug"}').catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(PluginError);
    expect(error).toMatchObject({ plugin: "plugin-b", tool: "failing", phase: "handler" });
    expect((error as Error).cause).toBeInstanceOf(RangeError);
    expect((error as Error).message).toBe("Tool failing (plugin plugin-b) failed in its handler: RangeError: index out of range");
  });

  test("a handler that rethrows the abort of its signal was cancelled: that is a result, not a bug", async () => {
    const controller = new AbortController();
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const call = runtime.execute("failing", '{"kind":"aborts"}', { signal: controller.signal });
    await running;
    controller.abort();
    expect(await call).toEqual({ content: "Error: Cancelled before the tool finished", isError: true });
  });

  test("the signal given to execute reaches the handler", async () => {
    const controller = new AbortController();
    controller.abort();
    await runtime.execute("read_file", '{"path":"x"}', { signal: controller.signal });
    expect(seenContext?.signal.aborted).toBe(true);
  });

  test("schemas() is the registry's tools array", () => {
    expect(runtime.schemas().map((tool) => tool.function.name)).toEqual(["read_file", "failing"]);
  });

  test("a secret learnt during the session is taken out of the descriptions already sent", async () => {
    const token = "fresh-token-0123456789";
    const leaky = defineTool({ name: "leaky", description: `Calls the API with ${token}.`, parameters: Type.Object({}), handler: async () => textResult("ok") });
    const session = new ToolRuntime(new ToolRegistry([{ tool: leaky, owner: "server" }]), { workspace: runtime.workspace });
    expect(session.schemas()[0]?.function.description).toBe(`Calls the API with ${token}.`);
    session.keepSecrets([{ name: "OAUTH_TOKEN", value: token }]);
    expect(session.schemas()[0]?.function.description).toBe("Calls the API with [redacted: OAUTH_TOKEN].");
    expect(session.schema("leaky")?.function.description).toBe("Calls the API with [redacted: OAUTH_TOKEN].");
  });
});

describe("repaired calls", () => {
  test("almost-JSON arguments and a loosely written tool name run, and the audit keeps what the model sent", async () => {
    const records: AuditRecord[] = [];
    const registry = new ToolRegistry([{ tool: readFile, owner: "plugin-a" }, { tool: failing, owner: "plugin-b" }]);
    const audited = new ToolRuntime(registry, { workspace: runtime.workspace, audit: (record) => records.push(record) });
    calls.length = 0;
    expect(await audited.execute("read_file", '{"path":"a.txt",}')).toEqual({ content: "read a.txt", isError: false });
    expect(await audited.execute("Read-File", '{"path":"b.txt"}')).toEqual({ content: "read b.txt", isError: false });
    expect(await audited.execute("read_file", '{"path":"c.txt"}')).toEqual({ content: "read c.txt", isError: false });
    expect(calls).toEqual([{ path: "a.txt" }, { path: "b.txt" }, { path: "c.txt" }]);
    expect(records.map(({ tool, repaired }) => ({ tool, repaired }))).toEqual([
      { tool: "read_file", repaired: { arguments: '{"path":"a.txt",}' } },
      { tool: "read_file", repaired: { tool: "Read-File" } },
      { tool: "read_file", repaired: undefined },
    ]);
  });

  test("a truncated call is not completed: the usual Invalid arguments, nothing runs", async () => {
    const result = await run("read_file", '{"path":"a.t');
    expect(result.content).toStartWith("Error: Invalid arguments: JSON Parse error");
    expect(result.handlerCalls).toBe(0);
  });

  test("a name two tools could be is the usual unknown tool", async () => {
    const tool = (name: string) => defineTool({ name, description: "x", parameters: Type.Object({}), handler: async () => textResult(name) });
    const two = new ToolRuntime(new ToolRegistry([{ tool: tool("run_it") }, { tool: tool("run-it") }]), { workspace: runtime.workspace });
    expect((await two.execute("Run_It", "{}")).content).toBe("Error: Unknown tool: Run_It (available: run_it, run-it)");
    expect((await two.execute("run-it", "{}")).content).toBe("run-it");
  });
});

describe("a tool's output schema", () => {
  const shaped = defineTool({
    name: "shaped",
    description: "Answers with data of the declared shape, or not.",
    parameters: Type.Object({ kind: Type.Union([Type.Literal("good"), Type.Literal("bad"), Type.Literal("missing"), Type.Literal("error")]) }),
    outputSchema: Type.Object({ count: Type.Integer() }),
    handler: async ({ kind }) => {
      if (kind === "error") throw new ToolError("nothing to count");
      if (kind === "missing") return textResult("forgot the data");
      return structuredResult("counted", kind === "good" ? { count: 2 } : { count: "two" });
    },
  });
  const shapedRuntime = async () => new ToolRuntime(new ToolRegistry([{ tool: shaped, owner: "plugin-c" }]), { workspace: await Workspace.open(tmpdir()) });

  test("a result of that shape passes with its data; an Error: result is not checked", async () => {
    const runtime = await shapedRuntime();
    expect(await runtime.execute("shaped", '{"kind":"good"}')).toEqual({ content: "counted", isError: false, structuredContent: { count: 2 } });
    expect(await runtime.execute("shaped", '{"kind":"error"}')).toEqual({ content: "Error: nothing to count", isError: true });
  });

  test("a result unlike it, or without data, is the plugin's bug: a PluginError of phase result", async () => {
    const runtime = await shapedRuntime();
    for (const [kind, problem] of [
      ["bad", "count: expected integer"],
      ["missing", "(structuredContent): expected object"],
    ] as const) {
      const error = await runtime.execute("shaped", JSON.stringify({ kind })).catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(PluginError);
      expect(error).toMatchObject({ tool: "shaped", plugin: "plugin-c", phase: "result" });
      expect((error as PluginError).message).toBe(
        `Tool shaped (plugin plugin-c) failed in its result: TypeError: its structuredContent does not match its outputSchema: ${problem}`,
      );
    }
  });

  test("must be an object schema", () => {
    expect(() => defineTool({ ...shaped, name: "listy", outputSchema: Type.Array(Type.String()) as never })).toThrow("Tool listy: outputSchema must be a Type.Object schema");
  });
});

describe("a tool's source", () => {
  /** A source that answers each call with what it was given, or throws for `text: "bug"`. */
  const source = (given: unknown[]): ToolSource => ({
    owner: "@acme/host",
    entries: [],
    call: async (tool, args, ctx) => {
      given.push({ tool, args, callId: ctx.callId });
      if (args.text === "bug") throw new RangeError("index out of range");
      return textResult(`${tool} answered by its source`);
    },
    warm() {},
    async close() {},
  });
  const echo = defineTool({
    name: "echo",
    description: "Echo the text.",
    parameters: Type.Object({ text: Type.String() }),
    handler: async () => textResult("the handler of the definition itself"),
  });

  test("gets each valid call once, with the validated arguments and the call's id; the definition's handler is not run here", async () => {
    const given: unknown[] = [];
    const sourced = new ToolRuntime(new ToolRegistry([{ tool: echo, owner: "@acme/plugin", source: source(given) }]), { workspace: runtime.workspace });
    expect(await sourced.execute("echo", '{"text":"hi"}', { callId: "call_9" })).toEqual({ content: "echo answered by its source", isError: false });
    expect(await sourced.execute("echo", '{"text":1}')).toMatchObject({ isError: true });
    expect(given).toEqual([{ tool: "echo", args: { text: "hi" }, callId: "call_9" }]);
  });

  test("what its call throws is the plugin's bug: a PluginError naming the entry's owner", async () => {
    const sourced = new ToolRuntime(new ToolRegistry([{ tool: echo, owner: "@acme/plugin", source: source([]) }]), { workspace: runtime.workspace });
    const error = await sourced.execute("echo", '{"text":"bug"}').catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(PluginError);
    expect(error).toMatchObject({ tool: "echo", plugin: "@acme/plugin", phase: "handler" });
  });
});
