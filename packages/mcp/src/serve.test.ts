import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { tmpdir } from "node:os";
import { Client as CurrentClient, StreamableHTTPClientTransport as CurrentHttpTransport } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { defineTool, errorResult, structuredResult, textResult, Type, Workspace, ToolRegistry } from "@plugboard/core";
import { ToolRuntime } from "@plugboard/runtime";
import { waitFor } from "@plugboard/test-helpers";
import { McpMount } from "./mount.ts";
import { annotationsFor } from "./serve.ts";
import { mcpHttpHandler } from "./serve-http.ts";

// Real server processes: a busy machine needs more than bun's default 5 s per test.
setDefaultTimeout(30_000);

const seen: AbortSignal[] = [];
const tools = [
  defineTool({
    name: "greet",
    description: "Greet someone.",
    parameters: Type.Object({ name: Type.String() }),
    handler: async ({ name }) => textResult(`hello ${name}`),
  }),
  defineTool({
    name: "refuse",
    description: "Always fails.",
    parameters: Type.Object({}),
    handler: async () => errorResult("refused"),
  }),
  defineTool({
    name: "wait",
    description: "Waits until cancelled.",
    parameters: Type.Object({}),
    handler: async (_args, ctx) => {
      seen.push(ctx.signal);
      await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve));
      return textResult("stopped");
    },
  }),
  defineTool({
    name: "count",
    description: "Counts the letters of a word.",
    parameters: Type.Object({ word: Type.String() }),
    outputSchema: Type.Object({ word: Type.String(), letters: Type.Integer() }),
    handler: async ({ word }) => structuredResult(`${word} has ${word.length} letters`, { word, letters: word.length }),
  }),
];
const PERMISSIONS: Record<string, string[]> = { greet: ["fs.read"], refuse: ["fs.write"], wait: ["network", "fs.read"] };

const servers: Bun.Server<undefined>[] = [];
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  for (const server of servers.splice(0)) server.stop(true);
});

async function serve(options: { token?: string } = {}): Promise<URL> {
  const runtime = new ToolRuntime(new ToolRegistry(tools), { workspace: await Workspace.open(tmpdir()) });
  const fetch = mcpHttpHandler(runtime, {
    annotations: (tool) => annotationsFor(PERMISSIONS[tool] ?? []),
    ...(options.token ? { token: options.token } : {}),
  });
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch });
  servers.push(server);
  return new URL(`http://127.0.0.1:${server.port}/mcp`);
}

async function connect(url: URL, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  clients.push(client);
  return client;
}

describe("serving a runtime over Streamable HTTP", () => {
  test("lists the tools with their schemas and annotations", async () => {
    const { tools: listed } = await (await connect(await serve())).listTools();
    expect(listed.map((tool) => tool.name)).toEqual(["greet", "refuse", "wait", "count"]);
    expect(listed[0]?.outputSchema).toBeUndefined();
    expect(listed[3]?.outputSchema).toEqual({
      type: "object",
      properties: { word: { type: "string" }, letters: { type: "integer" } },
      required: ["word", "letters"],
    });
    expect(listed[0]?.inputSchema).toEqual({ type: "object", properties: { name: { type: "string" } }, required: ["name"], additionalProperties: false });
    expect(listed.map((tool) => tool.annotations)).toEqual([
      { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
      { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
      { readOnlyHint: true, destructiveHint: false, openWorldHint: true },
      { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
    ]);
  });

  test("calls go through the runtime: results, Error: results, invalid arguments, unknown tools", async () => {
    const client = await connect(await serve());
    expect(await client.callTool({ name: "greet", arguments: { name: "Ada" } })).toEqual({ content: [{ type: "text", text: "hello Ada" }], isError: false });
    expect(await client.callTool({ name: "refuse", arguments: {} })).toEqual({ content: [{ type: "text", text: "Error: refused" }], isError: true });
    expect(await client.callTool({ name: "greet", arguments: {} })).toEqual({
      content: [{ type: "text", text: "Error: Invalid arguments for greet: name: expected required property" }],
      isError: true,
    });
    const unknown = await client.callTool({ name: "nope", arguments: {} });
    expect(unknown).toEqual({ content: [{ type: "text", text: "Error: Unknown tool: nope (available: greet, refuse, wait, count)" }], isError: true });
  });

  test("a mounted HTTP server round-trips through the client adapter", async () => {
    const mounted = await McpMount.open({ name: "self", server: { url: String(await serve({ token: "t0k" })), headers: { Authorization: "Bearer t0k" } } });
    try {
      const runtime = new ToolRuntime(new ToolRegistry(mounted.entries), { workspace: await Workspace.open(tmpdir()) });
      expect(await runtime.execute("greet", '{"name":"Bo"}')).toEqual({ content: "hello Bo", isError: false });
      expect(await runtime.execute("refuse", "{}")).toEqual({ content: "Error: refused", isError: true });
      // Checked again by the mount, against the schema the server listed, in Ajv's words.
      expect((await runtime.execute("greet", "{}")).content).toBe("Error: Invalid arguments for greet: name: must be present");
    } finally {
      await mounted.close();
    }
  });

  test("a client that cancels aborts the call's signal", async () => {
    const client = await connect(await serve());
    const controller = new AbortController();
    const call = client.callTool({ name: "wait", arguments: {} }, undefined, { signal: controller.signal });
    await waitFor("the call reached the handler", () => seen.length > 0, { timeoutMs: 3000 });
    controller.abort();
    await expect(call).rejects.toThrow();
    const signal = seen.pop();
    await waitFor("the handler's signal was aborted", () => signal?.aborted, { timeoutMs: 3000 });
  });

  test("the current SDK's client speaks the newest revision (2026-07-28): calls, and cancels by closing the request", async () => {
    const client = new CurrentClient({ name: "current", version: "2.0.0" }, { versionNegotiation: { mode: "auto" } });
    await client.connect(new CurrentHttpTransport(await serve()));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
      expect(client.getProtocolEra()).toBe("modern");
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["greet", "refuse", "wait", "count"]);
      expect(await client.callTool({ name: "greet", arguments: { name: "Cy" } })).toMatchObject({ content: [{ type: "text", text: "hello Cy" }], isError: false });
      // The client checks structuredContent against the listed outputSchema itself.
      expect(await client.callTool({ name: "count", arguments: { word: "plug" } })).toMatchObject({
        content: [{ type: "text", text: "plug has 4 letters" }],
        structuredContent: { word: "plug", letters: 4 },
        isError: false,
      });
      const before = seen.length;
      const controller = new AbortController();
      const call = client.callTool({ name: "wait", arguments: {} }, { signal: controller.signal }).catch((error: unknown) => error);
      await waitFor("the call reached the handler", () => seen.length > before, { timeoutMs: 3000 });
      controller.abort();
      await call;
      const signal = seen.pop();
      await waitFor("the handler's signal was aborted", () => signal?.aborted, { timeoutMs: 3000 });
    } finally {
      await client.close();
    }
  });

  test("a tool's structured result is served as structuredContent beside its text, to a client of 2025-11-25 too", async () => {
    const client = await connect(await serve());
    expect(await client.callTool({ name: "count", arguments: { word: "board" } })).toEqual({
      content: [{ type: "text", text: "board has 5 letters" }],
      structuredContent: { word: "board", letters: 5 },
      isError: false,
    });
  });

  test("older clients get the revision they speak: the 1.x SDK's 2025-11-25, a client of 2025-06-18 that revision", async () => {
    const url = await serve();
    const transport = new StreamableHTTPClientTransport(url);
    const client = new Client({ name: "previous", version: "1.0.0" });
    await client.connect(transport);
    clients.push(client);
    expect(transport.protocolVersion).toBe("2025-11-25");
    expect(await client.callTool({ name: "greet", arguments: { name: "Di" } })).toEqual({ content: [{ type: "text", text: "hello Di" }], isError: false });
    const initialize = {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "older", version: "0.1.0" } },
    };
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify(initialize),
    });
    expect(response.status).toBe(200);
    const answer = (await response.json()) as { result: { protocolVersion: string } };
    expect(answer.result.protocolVersion).toBe("2025-06-18");
    expect(response.headers.get("mcp-session-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  test("with a token, requests without it are refused", async () => {
    const url = await serve({ token: "s3cret" });
    await expect(connect(url)).rejects.toThrow();
    await expect(connect(url, { Authorization: "Bearer wrong" })).rejects.toThrow();
    const { tools: listed } = await (await connect(url, { Authorization: "Bearer s3cret" })).listTools();
    expect(listed.length).toBe(4);
  });

  test("a Host header that is not allowed is refused (DNS rebinding)", async () => {
    const url = await serve();
    const response = await fetch(url, { method: "POST", headers: { Host: "evil.example:80", "Content-Type": "application/json" }, body: "{}" });
    expect(response.status).toBe(403);
    expect(await response.text()).toBe(
      "This server answers only requests addressed to a loopback host (localhost, 127.0.0.1, [::1]), not evil.example:80",
    );
    const loopback = await fetch(url, { method: "POST", headers: { Host: "localhost:80", "Content-Type": "application/json" }, body: "{}" });
    expect(loopback.status).not.toBe(403);
  });
});
