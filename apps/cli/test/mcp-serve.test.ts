/**
 * `plugboard mcp` driven by the MCP SDK's own `Client`, over stdio and over Streamable HTTP,
 * against the real process and the five first-party plugins.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client as CurrentClient, StreamableHTTPClientTransport as CurrentHttpTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport as CurrentStdioTransport } from "@modelcontextprotocol/client/stdio";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { cleanEnv, FIRST_PARTY, plugboard, spawnPlugboard, tempFolder, watch, writeConfig } from "./helpers.ts";

const MAIN = fileURLToPath(new URL("../src/main.ts", import.meta.url));

/** Each test starts real processes (plugboard, the server); a busy machine needs more than bun's default 5 s. */
const TIMEOUT = 60_000;

let dir = "";
let remove = async () => {};
let config = "";

beforeAll(async () => {
  ({ dir, remove } = await tempFolder({ "workspace/README.md": "# Demo\nsecond line\n" }));
  config = await writeConfig(dir, { policy: { default: "allow", rules: [{ tool: "write_file", args: { path: "secrets/*" }, action: "deny" }] } });
});
afterAll(() => remove());

/** What every transport must show: the five tools, their schemas and annotations, and calls through the runtime and its policy. */
async function checkServed(client: Client): Promise<void> {
  const { tools } = await client.listTools();
  expect(tools.map((tool) => tool.name)).toEqual(["bash", "read_file", "write_file", "edit_file", "glob"]);
  const readFile = tools.find((tool) => tool.name === "read_file");
  expect(readFile?.inputSchema).toMatchObject({ type: "object", properties: { path: { type: "string" } }, required: ["path"] });
  expect(Object.fromEntries(tools.map((tool) => [tool.name, tool.annotations]))).toEqual({
    bash: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
    read_file: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
    write_file: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
    edit_file: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
    glob: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
  });

  // glob declares its output: served as outputSchema, its results as structuredContent beside the text.
  expect(tools.find((tool) => tool.name === "glob")?.outputSchema).toMatchObject({
    type: "object",
    properties: { matches: { type: "array", items: { type: "string" } }, more: { type: "integer" } },
    required: ["matches", "more"],
  });
  expect(readFile?.outputSchema).toBeUndefined();
  expect(await client.callTool({ name: "glob", arguments: { pattern: "*.md" } })).toEqual({
    content: [{ type: "text", text: "README.md" }],
    structuredContent: { matches: ["README.md"], more: 0 },
    isError: false,
  });

  const read = await client.callTool({ name: "read_file", arguments: { path: "README.md" } });
  expect(read.isError).toBe(false);
  expect(read.content).toEqual([{ type: "text", text: expect.stringContaining("# Demo\nsecond line") }]);

  const missing = await client.callTool({ name: "read_file", arguments: { path: "nope.md" } });
  expect(missing.isError).toBe(true);
  expect(missing.content).toEqual([{ type: "text", text: expect.stringMatching(/^Error: .*nope\.md/) }]);

  const denied = await client.callTool({ name: "write_file", arguments: { path: "secrets/key.txt", content: "x" } });
  expect(denied).toEqual({ content: [{ type: "text", text: "Error: Denied by policy: write_file path=secrets/*" }], isError: true });

  const unknown = await client.callTool({ name: "no_such_tool", arguments: {} });
  expect(unknown).toEqual({
    content: [{ type: "text", text: "Error: Unknown tool: no_such_tool (available: bash, read_file, write_file, edit_file, glob)" }],
    isError: true,
  });
}

describe("plugboard mcp", () => {
  test("over stdio: the SDK's client lists and calls the tools", async () => {
    await withStdioClient(["--config", config], checkServed);
  }, TIMEOUT);

  test("over Streamable HTTP: the SDK's client lists and calls the tools; Ctrl-C stops it", async () => {
    const child = spawnPlugboard(["mcp", "--http", "--port", "0", "--config", config], { cwd: dir });
    const output = watch(child);
    const url = await servedUrl(output);
    const client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    try {
      await checkServed(client);
    } finally {
      await client.close();
      child.kill("SIGINT");
    }
    expect((await output.finished()).code).toBe(130);
  }, TIMEOUT);

  test("the current SDK's client gets the newest revision, 2026-07-28, over stdio and over HTTP", async () => {
    const negotiating = () => new CurrentClient({ name: "current", version: "2.0.0" }, { versionNegotiation: { mode: "auto" } });
    const viaStdio = negotiating();
    await viaStdio.connect(new CurrentStdioTransport({ command: process.execPath, args: [MAIN, "mcp", "--config", config], cwd: dir, env: cleanEnv(), stderr: "pipe" }));
    const child = spawnPlugboard(["mcp", "--http", "--port", "0", "--config", config], { cwd: dir });
    const output = watch(child);
    const viaHttp = negotiating();
    try {
      await viaHttp.connect(new CurrentHttpTransport(new URL(await servedUrl(output))));
      for (const client of [viaStdio, viaHttp]) {
        expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
        expect((await client.listTools()).tools).toHaveLength(5);
        expect(await client.callTool({ name: "glob", arguments: { pattern: "*.md" } })).toMatchObject({ structuredContent: { matches: ["README.md"], more: 0 } });
        const read = await client.callTool({ name: "read_file", arguments: { path: "README.md" } });
        expect(read).toMatchObject({ isError: false, content: [{ type: "text", text: expect.stringContaining("# Demo") }] });
      }
    } finally {
      await Promise.all([viaStdio.close(), viaHttp.close()]);
      child.kill("SIGINT");
      await output.finished();
    }
  }, TIMEOUT);

  test("with PLUGBOARD_MCP_TOKEN, HTTP clients must send it", async () => {
    const child = spawnPlugboard(["mcp", "--http", "--port", "0", "--config", config], { cwd: dir, env: { PLUGBOARD_MCP_TOKEN: "s3cret-token" } });
    const output = watch(child);
    try {
      const url = new URL(await servedUrl(output));
      await expect(new Client({ name: "test", version: "1.0.0" }).connect(new StreamableHTTPClientTransport(url))).rejects.toThrow();
      const client = new Client({ name: "test", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: "Bearer s3cret-token" } } }));
      expect((await client.listTools()).tools).toHaveLength(5);
      await client.close();
    } finally {
      child.kill("SIGINT");
      await output.finished();
    }
  }, TIMEOUT);

  test("the config's policy and audit log apply: deny, ask without --yes, ask with --yes", async () => {
    const policy = {
      default: "allow",
      rules: [
        { tool: "write_file", args: { path: "secrets/*" }, action: "deny" },
        { tool: "bash", action: "ask" },
      ],
    };
    const policed = join(dir, "policed.json");
    await Bun.write(policed, JSON.stringify({ workspace: "./workspace", plugins: FIRST_PARTY, policy, audit: "audit.jsonl" }));
    const denied = { content: [{ type: "text" as const, text: "Error: Denied by policy: write_file path=secrets/*" }], isError: true };
    await withStdioClient(["--config", policed], async (client) => {
      expect(await client.callTool({ name: "write_file", arguments: { path: "secrets/key.txt", content: "x" } })).toEqual(denied);
      expect(await client.callTool({ name: "bash", arguments: { command: "echo asked" } })).toEqual({
        content: [{ type: "text", text: "Error: Denied: approval required and no one to ask (allow it in the config's policy, or run with --yes)" }],
        isError: true,
      });
    });
    await withStdioClient(["--config", policed, "--yes"], async (client) => {
      const approved = await client.callTool({ name: "bash", arguments: { command: "echo asked" } });
      expect(approved.isError).toBe(false);
      expect(approved.content).toEqual([{ type: "text", text: expect.stringContaining("asked") }]);
      expect(await client.callTool({ name: "write_file", arguments: { path: "secrets/key.txt", content: "x" } })).toEqual(denied);
    });
    const records = (await Bun.file(join(dir, "audit.jsonl")).text()).trim().split("\n").map((line) => JSON.parse(line));
    expect(records.map((record) => [record.tool, record.decision])).toEqual([
      ["write_file", "deny"],
      ["bash", "ask:no"],
      ["bash", "ask:yes"],
      ["write_file", "deny"],
    ]);
    expect(await Bun.file(join(dir, "workspace/secrets/key.txt")).exists()).toBe(false);
  }, TIMEOUT);

  test("refuses a non-loopback address without a token, a token no header can carry, and --peers that are not URLs", async () => {
    const result = await plugboard(["mcp", "--http", "--host", "0.0.0.0", "--config", config], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("refusing to serve on 0.0.0.0 without PLUGBOARD_MCP_TOKEN");
    const spaced = await plugboard(["mcp", "--http", "--config", config], { cwd: dir, env: { PLUGBOARD_MCP_TOKEN: "two words" } });
    expect(spaced.code).toBe(2);
    expect(spaced.stderr).toContain("PLUGBOARD_MCP_TOKEN may hold only letters, digits");
    const peerless = await plugboard(["mcp", "--peers", "http://127.0.0.1:1/mcp", "--config", config], { cwd: dir });
    expect(peerless.code).toBe(2);
    expect(peerless.stderr).toContain("--port, --host and --peers apply to --http");
    const notUrl = await plugboard(["mcp", "--http", "--peers", "http://127.0.0.1:1/mcp,10.0.0.2:8808", "--config", config], { cwd: dir });
    expect(notUrl.code).toBe(2);
    expect(notUrl.stderr).toContain("--peers takes the other copies' URLs, comma-separated (http://10.0.0.2:8808/mcp,…), got '10.0.0.2:8808'");
  }, TIMEOUT);
});

describe("plugboard mcp --http, a body over 4 MiB", () => {
  const MiB = 1024 * 1024;

  test("written in chunks, 5 MiB with Content-Length or chunked, by a client that asks to close: it reads the 413, and none of its writes fails", async () => {
    await withHttpServer(async (port) => {
      // Closing as the answer went out reset the connection under a client still writing: its write failed (EPIPE), mostly before it read the status.
      for (let attempt = 0; attempt < 5; attempt++) {
        for (const framing of ["length", "chunked"] as const) {
          const posted = await rawPost(port, { framing, close: true, bytes: 5 * MiB });
          expect({ framing, status: posted.status, error: posted.error, sent: posted.sent }).toEqual({ framing, status: "HTTP/1.1 413 Payload Too Large", error: undefined, sent: 5 * MiB });
          expect(posted.answer).toContain('"message":"Payload Too Large: a request body may hold at most 4194304 bytes (4 MiB)"');
        }
      }
    });
  }, TIMEOUT);

  test("a client that never stops writing reads the 413 and is cut off once 32 MiB of its body are thrown away; one gone mid-body leaves it serving", async () => {
    await withHttpServer(async (port) => {
      // Up to 256 MiB: without the bound the server reads (and drops) a kept-alive body for as long as it comes.
      const posted = await rawPost(port, { framing: "chunked", close: false, bytes: 256 * MiB });
      expect(posted.status).toBe("HTTP/1.1 413 Payload Too Large");
      expect(posted.sent).toBeGreaterThan(32 * MiB);
      expect(posted.sent).toBeLessThan(256 * MiB);
      // Gone once the status came, its body half written: the throwing away ends, the server goes on.
      const gone = connect(port, "127.0.0.1");
      gone.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${5 * MiB}\r\n\r\n`);
      gone.write(Buffer.alloc(MiB, "x"));
      await new Promise((resolve) => gone.once("data", resolve));
      gone.destroy();
      const client = new Client({ name: "test", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
      expect((await client.listTools()).tools).toHaveLength(5);
      await client.close();
    });
  }, TIMEOUT);
});

/** Runs `plugboard mcp --http` on a free port for `use`, then stops it. */
async function withHttpServer(use: (port: number) => Promise<void>): Promise<void> {
  const child = spawnPlugboard(["mcp", "--http", "--port", "0", "--config", config], { cwd: dir });
  const output = watch(child);
  try {
    await use(Number(new URL(await servedUrl(output)).port));
  } finally {
    child.kill("SIGINT");
    await output.finished();
  }
}

interface RawPost {
  /** The answer's status line, once read. */
  readonly status: string | undefined;
  readonly answer: string;
  /** Body bytes written before the connection ended (or all of them). */
  readonly sent: number;
  /** The first socket error (`EPIPE`, `ECONNRESET`), and whether the status had been read by then. */
  readonly error: { readonly code: string; readonly afterStatus: boolean } | undefined;
}

/**
 * POSTs `bytes` of body to `/mcp` over a raw socket, 64 KiB at a time, each write waiting
 * until the one before went out (as an HTTP client streams a body); stops writing when the
 * connection ends. `close` sends `Connection: close` (Node's `http.request` without an
 * agent does).
 */
function rawPost(port: number, options: { framing: "length" | "chunked"; close: boolean; bytes: number }): Promise<RawPost> {
  const chunk = Buffer.alloc(64 * 1024, "x");
  const { framing, close, bytes } = options;
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let answer = "";
    let sent = 0;
    let ended = false;
    let error: RawPost["error"];
    const status = () => (answer.includes("\r\n") ? answer.slice(0, answer.indexOf("\r\n")) : undefined);
    socket.on("data", (data) => {
      answer += data.toString();
    });
    socket.on("end", () => {
      ended = true;
    });
    socket.on("error", (failure: NodeJS.ErrnoException) => {
      error ??= { code: failure.code ?? failure.message, afterStatus: status() !== undefined };
    });
    socket.on("close", () => resolve({ status: status(), answer, sent, error }));
    const head = [
      "POST /mcp HTTP/1.1",
      `Host: 127.0.0.1:${port}`,
      "Content-Type: application/json",
      "Accept: application/json, text/event-stream",
      framing === "chunked" ? "Transfer-Encoding: chunked" : `Content-Length: ${bytes}`,
      ...(close ? ["Connection: close"] : []),
      "",
      "",
    ];
    socket.write(head.join("\r\n"));
    const next = () => {
      if (ended || socket.destroyed) return;
      if (sent >= bytes) {
        socket.end(framing === "chunked" ? "0\r\n\r\n" : "");
        return;
      }
      const written = () => {
        sent += chunk.length;
        setImmediate(next);
      };
      if (framing === "chunked") socket.write(Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n")]), (failed) => failed || written());
      else socket.write(chunk, (failed) => failed || written());
    };
    next();
  });
}

/** Runs `plugboard mcp ARGS` as the SDK's stdio client does, and `use`s the connected client. */
async function withStdioClient(args: string[], use: (client: Client) => Promise<void>): Promise<void> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [MAIN, "mcp", ...args], cwd: dir, env: cleanEnv(), stderr: "pipe" });
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(transport);
  try {
    await use(client);
  } finally {
    await client.close();
  }
}

/** The URL the server announces on stderr. */
async function servedUrl(output: ReturnType<typeof watch>): Promise<string> {
  await output.waitFor("stderr", "/mcp ");
  const found = output.text().stderr.match(/at (http:\/\/\S+\/mcp) /);
  if (!found?.[1]) throw new Error("plugboard mcp --http never said where it serves");
  return found[1];
}
