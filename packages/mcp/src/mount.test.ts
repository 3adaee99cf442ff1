import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { Workspace, ToolRegistry } from "@plugboard/core";
import { ToolRuntime } from "@plugboard/runtime";
import { isRunning, survivors, waitFor } from "@plugboard/test-helpers";
import type { ElicitationAnswer, ElicitationRequest, Elicitor } from "./elicitation.ts";
import { McpMount, McpMountError, type MountOptions } from "./mount.ts";

// Real server processes: a busy machine needs more than bun's default 5 s per test.
setDefaultTimeout(30_000);

const FIXTURE = join(import.meta.dir, "../test/fixture-server.ts");
const fixture = (env: Record<string, string> = {}): MountOptions["server"] => ({ command: process.execPath, args: [FIXTURE], env });

const opened: McpMount[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((mount) => mount.close()));
});

async function mount(options: Partial<MountOptions> = {}): Promise<McpMount> {
  const mounted = await McpMount.open({ name: "fixture", server: fixture(), ...options });
  opened.push(mounted);
  return mounted;
}

async function runtimeOf(mounted: McpMount): Promise<ToolRuntime> {
  return new ToolRuntime(new ToolRegistry(mounted.entries), { workspace: await Workspace.open(tmpdir()) });
}

describe("McpMount over stdio", () => {
  test("lists every page of tools, in order, with names the model can use and the prefix", async () => {
    const mounted = await mount({ prefix: "fx_" });
    const names = mounted.entries.map((entry) => entry.tool.name);
    expect(names).toEqual(["fx_echo", "fx_fail", "fx_fail_prefixed", "fx_mixed", "fx_slow", "fx_ticking", "fx_crash", "fx_spawn_child", "fx_pid", "fx_dotted_name"]);
    expect(mounted.entries.every((entry) => entry.owner === "fixture")).toBe(true);
    // A read-only hint lets the tool's calls overlap; without it, calls run in turn.
    expect(mounted.entries.map((entry) => entry.tool.concurrency)).toEqual(["read-only", ...Array(8).fill(undefined)]);
    const runtime = await runtimeOf(mounted);
    expect(runtime.schemas()[0]?.function.parameters).toEqual({ type: "object", properties: { message: { type: "string" } }, required: ["message"] });
    expect(await runtime.execute("fx_echo", '{"message":"hi"}')).toEqual({ content: "hi", isError: false });
    // The call reaches the server under its own name.
    expect((await runtime.execute("fx_dotted_name", "{}")).content).toBe("Error: no such tool: dotted.name");
  });

  test("arguments are checked against the server's JSON Schema before the call", async () => {
    const runtime = await runtimeOf(await mount());
    expect((await runtime.execute("echo", "{}")).content).toBe("Error: Invalid arguments for echo: message: must be present");
    expect((await runtime.execute("slow", '{"ms":0}')).content).toBe("Error: Invalid arguments for slow: ms: must be >= 1");
    expect((await runtime.execute("echo", '{"message":7}')).content).toBe("Error: Invalid arguments for echo: message: must be string");
  });

  test("isError results become Error: results, the prefix added once", async () => {
    const runtime = await runtimeOf(await mount());
    expect(await runtime.execute("fail", "{}")).toEqual({ content: "Error: it broke", isError: true });
    expect(await runtime.execute("fail_prefixed", "{}")).toEqual({ content: "Error: already said", isError: true });
  });

  test("other content is summarised in text", async () => {
    const runtime = await runtimeOf(await mount());
    expect((await runtime.execute("mixed", "{}")).content).toBe(
      [
        "caption",
        "[image: image/png, 5 bytes]",
        "[audio: audio/wav, 2 bytes]",
        "[resource: file:///notes.txt, text/plain]",
        "note text",
        "[resource: file:///blob.bin, 3 bytes]",
        "[resource link: linked.md file:///linked.md]",
      ].join("\n"),
    );
  });

  test("aborting a call cancels it on the server", async () => {
    const dir = await mkdtemp(join(tmpdir(), "plugboard-mcp-"));
    const marker = join(dir, "marker");
    try {
      const runtime = await runtimeOf(await mount({ server: fixture({ FIXTURE_MARKER: marker }) }));
      const controller = new AbortController();
      const call = runtime.execute("slow", '{"ms":60000}', { signal: controller.signal });
      await Bun.sleep(200);
      controller.abort();
      expect((await call).content).toBe("Error: Cancelled before the tool finished");
      await waitFor("the server saw the cancellation", async () => (await readFile(marker, "utf8").catch(() => "")) === "cancelled", { timeoutMs: 3000 });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  describe("a call's timeout starts again at each progress notification, up to a total bound", () => {
    // Bounds of seconds, with progress every 100 ms: thirty notifications to each bound, far from a busy machine's jitter.
    test("a call that tells progress runs past the timeout; one that goes silent longer is ended at it", async () => {
      const runtime = await runtimeOf(await mount({ timeoutMs: 3000 }));
      expect((await runtime.execute("ticking", '{"ms":4000,"every":100}')).content).toStartWith("ran ");
      const silent = await runtime.execute("ticking", '{"ms":4000,"every":10000}');
      expect(silent.isError).toBe(true);
      expect(silent.content).toStartWith("Error: MCP server fixture failed during ticking: it neither answered nor told progress for 3 s");
    });

    test("progress holds a call no longer than the total bound", async () => {
      const runtime = await runtimeOf(await mount({ timeoutMs: 3000, maxTotalMs: 3500 }));
      // The tool would run 20 s: the message says the total bound ended it.
      const result = await runtime.execute("ticking", '{"ms":20000,"every":100}');
      expect(result.isError).toBe(true);
      expect(result.content).toStartWith("Error: MCP server fixture failed during ticking: it was still at work after 3.5 s, the most one call may take, progress or not");
    });
  });

  test("a server that dies fails the running call and is restarted by the next", async () => {
    const mounted = await mount();
    const runtime = await runtimeOf(mounted);
    const before = Number((await runtime.execute("pid", "{}")).content);
    const crashed = await runtime.execute("crash", "{}");
    expect(crashed.isError).toBe(true);
    expect(crashed.content).toStartWith("Error: MCP server fixture failed during crash: ");
    expect(crashed.content).toContain("  fixture server crashing on purpose");
    const after = Number((await runtime.execute("pid", "{}")).content);
    expect(after).toBeGreaterThan(0);
    expect(after).not.toBe(before);
    expect(await survivors([before], 3000)).toEqual([]);
  });

  test("close ends the server and everything it started", async () => {
    const mounted = await mount();
    const runtime = await runtimeOf(mounted);
    const server = Number((await runtime.execute("pid", "{}")).content);
    const child = Number((await runtime.execute("spawn_child", "{}")).content);
    expect([server, child].filter(isRunning)).toEqual([server, child]);
    await mounted.close();
    expect(await survivors([server, child], 3000)).toEqual([]);
    expect((await runtime.execute("pid", "{}")).content).toBe("Error: MCP server fixture is closed");
  });

  test("a launcher can replace the command line", async () => {
    const seen: string[][] = [];
    const mounted = await mount({
      server: { command: "not-a-real-command", args: ["--flag"] },
      launcher: (launch) => {
        seen.push([...launch.argv]);
        return { ...launch, argv: [process.execPath, FIXTURE] };
      },
    });
    expect(seen).toEqual([["not-a-real-command", "--flag"]]);
    expect(mounted.tools.length).toBe(10);
  });

  test("a server that dies and cannot be started again answers the call with an Error: result", async () => {
    let launches = 0;
    const runtime = await runtimeOf(
      await mount({
        // The second start fails as a server missing its token does.
        launcher: (launch) => (++launches === 1 ? launch : { ...launch, env: { ...launch.env, FIXTURE_FAIL_START: "1" } }),
      }),
    );
    expect((await runtime.execute("crash", "{}")).isError).toBe(true);
    const result = await runtime.execute("echo", '{"message":"hi"}');
    expect(launches).toBe(2);
    expect(result.isError).toBe(true);
    expect(result.content).toStartWith("Error: MCP server fixture could not be restarted: MCP server fixture failed to start or list its tools: ");
    expect(result.content).toContain("boom: missing API token");
  });

  test("a server that fails to start is an error naming it, with its stderr's last lines", async () => {
    const failing = McpMount.open({ name: "broken", server: fixture({ FIXTURE_FAIL_START: "1" }) });
    await expect(failing).rejects.toBeInstanceOf(McpMountError);
    const error = (await failing.catch((e: unknown) => e)) as McpMountError;
    expect(error.message).toStartWith("MCP server broken failed to start or list its tools: ");
    expect(error.message).toEndWith("Last lines of its stderr:\n  starting fixture server\n  boom: missing API token");
  });

  test("a tool whose input schema cannot be compiled is a start error naming the tool", async () => {
    const error = await McpMount.open({ name: "odd", server: fixture({ FIXTURE_BAD_SCHEMA: "1" }) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpMountError);
    expect((error as McpMountError).reason).toStartWith("its tool broken has an input schema that cannot be used: ");
  });

  test("a tool whose schema holds more than 10,000 schemas is a start error naming the tool, refused before it is compiled; 9,000 mount", async () => {
    const error = await McpMount.open({ name: "vast", server: fixture({ FIXTURE_HUGE_SCHEMA: "20000" }) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpMountError);
    expect((error as McpMountError).reason).toBe("its tool huge has an input schema that cannot be used: it holds more than 10,000 schemas (objects and arrays), the most a tool's schema may hold");
    const mounted = await mount({ server: fixture({ FIXTURE_HUGE_SCHEMA: "9000" }) });
    expect(mounted.tools.map((tool) => tool.name)).toContain("huge");
  });

  test("a command that does not exist is an error naming it", async () => {
    const error = await McpMount.open({ name: "ghost", server: { command: "no-such-mcp-server-command" } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpMountError);
    expect((error as Error).message).toBe("MCP server ghost failed to start or list its tools: command not found: no-such-mcp-server-command");
  });
});

describe("McpMount over Streamable HTTP", () => {
  test("a server that keeps sessions gets its session ended on close", async () => {
    const opened: string[] = [];
    const closed: string[] = [];
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      onsessioninitialized: (id) => {
        opened.push(id);
      },
      onsessionclosed: (id) => {
        closed.push(id);
      },
    });
    const server = new McpServer({ name: "stateful", version: "2.0.0" });
    server.registerTool("ping", { description: "Answers pong." }, async () => ({ content: [{ type: "text", text: "pong" }] }));
    await server.connect(transport);
    const http = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (request) => transport.handleRequest(request) });
    try {
      const mounted = await McpMount.open({ name: "stateful", server: { url: `http://127.0.0.1:${http.port}/mcp` } });
      expect(mounted.serverInfo).toEqual({ name: "stateful", version: "2.0.0" });
      expect(await (await runtimeOf(mounted)).execute("ping", "{}")).toEqual({ content: "pong", isError: false });
      expect(closed).toEqual([]);
      await mounted.close();
      expect(opened).toHaveLength(1);
      expect(closed).toEqual(opened);
    } finally {
      await server.close();
      await http.stop(true);
    }
  });
});

const MODERN = join(import.meta.dir, "../test/modern-server.ts");

describe("McpMount and protocol revisions", () => {
  test("a server on the current SDK is spoken to in the newest revision, over stdio", async () => {
    const mounted = await mount({ name: "modern", server: { command: process.execPath, args: [MODERN] } });
    expect(mounted.protocolVersion).toBe("2026-07-28");
    expect(mounted.serverInfo).toEqual({ name: "modern", version: "2.4.0" });
    expect(await (await runtimeOf(mounted)).execute("era", "{}")).toEqual({ content: "modern", isError: false });
  });

  test("a server on the current SDK is spoken to in the newest revision, over Streamable HTTP", async () => {
    const dir = await mkdtemp(join(tmpdir(), "plugboard-mcp-"));
    const portFile = join(dir, "port");
    const server = Bun.spawn([process.execPath, MODERN], { env: { ...process.env, MODERN_HTTP_PORT_FILE: portFile }, stdio: ["ignore", "ignore", "inherit"] });
    try {
      const port = await waitFor("the HTTP server wrote its port", async () => Number(await readFile(portFile, "utf8").catch(() => "")) || undefined, { timeoutMs: 10_000 });
      const mounted = await mount({ name: "modern", server: { url: `http://127.0.0.1:${port}/mcp` } });
      expect(mounted.protocolVersion).toBe("2026-07-28");
      expect(await (await runtimeOf(mounted)).execute("era", "{}")).toEqual({ content: "modern", isError: false });
    } finally {
      server.kill();
      await server.exited;
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("a server that exits on the probe is started again and spoken to in the 2025 revisions", async () => {
    const dir = await mkdtemp(join(tmpdir(), "plugboard-mcp-"));
    const starts = join(dir, "starts");
    try {
      const mounted = await mount({ server: fixture({ FIXTURE_EXIT_ON_UNKNOWN: "1", FIXTURE_STARTS: starts }) });
      expect(mounted.protocolVersion).toBe("2025-11-25");
      expect(await readFile(starts, "utf8")).toBe("start\nstart\n");
      const runtime = await runtimeOf(mounted);
      expect(await runtime.execute("echo", '{"message":"hi"}')).toEqual({ content: "hi", isError: false });
      // Restarted after a crash, it is not probed again.
      expect((await runtime.execute("crash", "{}")).isError).toBe(true);
      expect(await runtime.execute("echo", '{"message":"again"}')).toEqual({ content: "again", isError: false });
      expect(await readFile(starts, "utf8")).toBe("start\nstart\nstart\n");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("a server on the 1.x SDK, which knows only the 2025 revisions, is spoken to in its own", async () => {
    const mounted = await mount();
    expect(mounted.protocolVersion).toBe("2025-11-25");
    expect(await (await runtimeOf(mounted)).execute("echo", '{"message":"still here"}')).toEqual({ content: "still here", isError: false });
  });
});

describe("McpMount: structured results", () => {
  const STATS = '{"count":2,"names":["a","b"]}';

  test("the model reads the text the server wrote; structured content, checked against the output schema, only when there is no text", async () => {
    const runtime = await runtimeOf(await mount({ server: fixture({ FIXTURE_STRUCTURED: "1" }) }));
    expect(await runtime.execute("stats_told", "{}")).toEqual({ content: "Two names: a and b.", isError: false });
    // The server wrote the JSON as text: sent as written, once.
    expect(await runtime.execute("stats", "{}")).toEqual({ content: JSON.stringify(JSON.parse(STATS), null, 2), isError: false });
    expect(await runtime.execute("stats_only", "{}")).toEqual({ content: STATS, isError: false });
    expect(await runtime.execute("stats_wrong", "{}")).toEqual({
      content: "Error: MCP server fixture answered stats_wrong with structured content that does not match its output schema: count: must be integer; names[0]: must be string",
      isError: true,
    });
    expect(await runtime.execute("stats_none", "{}")).toEqual({
      content: "Error: MCP server fixture answered stats_none without the structured content its output schema promises",
      isError: true,
    });
  });

  test("after a restart the output schema is still checked", async () => {
    const runtime = await runtimeOf(await mount({ server: fixture({ FIXTURE_STRUCTURED: "1" }) }));
    expect((await runtime.execute("crash", "{}")).isError).toBe(true);
    expect((await runtime.execute("stats_wrong", "{}")).content).toStartWith("Error: MCP server fixture answered stats_wrong with structured content that does not match");
  });

  test("a tool whose output schema cannot be compiled is a start error naming the tool", async () => {
    const error = await McpMount.open({ name: "odd", server: fixture({ FIXTURE_BAD_OUTPUT: "1" }) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpMountError);
    expect((error as McpMountError).reason).toStartWith("its tool odd_output has an output schema that cannot be used: ");
  });

  test("a server on the current SDK: structured results and resource links, in the newest revision", async () => {
    const runtime = await runtimeOf(await mount({ name: "modern", server: { command: process.execPath, args: [MODERN] } }));
    expect(await runtime.execute("stats", "{}")).toEqual({ content: STATS, isError: false });
    expect(await runtime.execute("links", "{}")).toEqual({
      content: ["two files", "[resource link: report.pdf file:///srv/report.pdf (application/pdf): The monthly report]", "[resource link: data.csv https://example.com/data.csv]"].join("\n"),
      isError: false,
    });
  });
});

describe("McpMount: elicitation", () => {
  const asked: ElicitationRequest[] = [];
  const answering =
    (answer: ElicitationAnswer): Elicitor =>
    async (request) => {
      asked.push(request);
      return answer;
    };
  afterEach(() => {
    asked.length = 0;
  });

  test("a 2025 server's request for input is shown to the person, and their answer reaches it", async () => {
    const elicit = answering({ action: "accept", content: { name: "Ada", color: "green" } });
    const runtime = await runtimeOf(await mount({ server: fixture({ FIXTURE_ASK: "1" }), elicit }));
    expect(await runtime.execute("ask", "{}")).toEqual({ content: 'accept {"name":"Ada","color":"green"}', isError: false });
    expect(asked).toHaveLength(1);
    expect(asked[0]?.server).toBe("fixture");
    expect(asked[0]?.message).toBe("Who are you?");
    expect(asked[0]?.fields).toEqual([
      { name: "name", title: "Name", required: true, type: "string" },
      { name: "color", title: "color", required: false, type: "choice", options: [{ value: "red", label: "red" }, { value: "green", label: "green" }] },
    ]);
  });

  test("in the newest revision the request comes within the call's answer, and is shown the same way", async () => {
    const elicit = answering({ action: "accept", content: { name: "Ada", color: "blue", age: 36 } });
    const runtime = await runtimeOf(await mount({ name: "modern", server: { command: process.execPath, args: [MODERN] }, elicit }));
    expect(await runtime.execute("ask", "{}")).toEqual({ content: 'accept {"name":"Ada","color":"blue","age":36}', isError: false });
    expect(asked.map((request) => [request.server, request.message, request.fields.map((field) => `${field.name}:${field.type}`)])).toEqual([
      ["modern", "Tell us about yourself", ["name:string", "age:integer", "color:choice", "subscribe:boolean"]],
    ]);
  });

  test("declined when there is no one to ask, in both revisions", async () => {
    const legacy = await runtimeOf(await mount({ server: fixture({ FIXTURE_ASK: "1" }) }));
    expect(await legacy.execute("ask", "{}")).toEqual({ content: "decline", isError: false });
    const modern = await runtimeOf(await mount({ name: "modern", server: { command: process.execPath, args: [MODERN] } }));
    expect(await modern.execute("ask", "{}")).toEqual({ content: "decline", isError: false });
  });

  test("the person's decline and cancel reach the server", async () => {
    const runtime = await runtimeOf(await mount({ server: fixture({ FIXTURE_ASK: "1" }), elicit: answering({ action: "cancel" }) }));
    expect(await runtime.execute("ask", "{}")).toEqual({ content: "cancel", isError: false });
  });
});
