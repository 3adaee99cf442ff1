/**
 * Three `plugboard mcp --http` copies behind a round-robin proxy written here (standing in
 * for any balancer), driven by the MCP SDK's own client: they behave as one server.
 * Consecutive requests go to consecutive copies, so a client's cancellation always lands
 * on another copy than the call it cancels, and must be passed on (`--peers`).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Client as CurrentClient, StreamableHTTPClientTransport as CurrentHttpTransport } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { runningNamed, survivors, uniqueMarker, waitFor } from "@plugboard/test-helpers";
import { spawnPlugboard, tempFolder, watch, writeConfig } from "./helpers.ts";

const TIMEOUT = 120_000;
const COPIES = 3;
/** The copies share a token, as behind a real balancer: a forwarded cancellation must carry it too. */
const TOKEN = "balanced-t0ken";
const AUTH = { authorization: `Bearer ${TOKEN}` };

let folder: Awaited<ReturnType<typeof tempFolder>>;
let copies: ReturnType<typeof watch>[] = [];
let children: ReturnType<typeof spawnPlugboard>[] = [];
let proxy: Bun.Server<undefined>;
let url: URL;

beforeAll(async () => {
  const files: Record<string, string> = {};
  for (let client = 0; client < 20; client++) for (let call = 0; call < 10; call++) files[`workspace/c${client}/f${call}.txt`] = `client ${client} call ${call}\n`;
  folder = await tempFolder(files);
  const config = await writeConfig(folder.dir, { policy: { default: "allow" } });
  const ports = await freePorts(COPIES);
  const peers = ports.map((port) => `http://127.0.0.1:${port}/mcp`).join(",");
  children = ports.map((port) => spawnPlugboard(["mcp", "--http", "--port", String(port), "--peers", peers, "--config", config], { cwd: folder.dir, env: { PLUGBOARD_MCP_TOKEN: TOKEN } }));
  copies = children.map((child) => watch(child));
  await Promise.all(copies.map((copy) => copy.waitFor("stderr", "/mcp ")));
  proxy = roundRobin(ports.map((port) => new URL(`http://127.0.0.1:${port}`)));
  url = new URL(`http://127.0.0.1:${proxy.port}/mcp`);
}, TIMEOUT);

afterAll(async () => {
  proxy?.stop(true);
  for (const child of children) child.kill("SIGINT");
  await Promise.all(copies.map((copy) => copy.finished()));
  await folder?.remove();
});

async function client(): Promise<Client> {
  const connected = new Client({ name: "balanced", version: "1.0.0" });
  await connected.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: AUTH } }));
  return connected;
}

describe("three plugboard mcp --http copies behind a round-robin balancer", () => {
  test("10 of 10 cancellations end their sleep, on whichever copy it runs", async () => {
    const mcp = await client();
    try {
      let ended = 0;
      for (let round = 0; round < 10; round++) {
        const marker = uniqueMarker();
        const controller = new AbortController();
        const call = mcp.callTool({ name: "bash", arguments: { command: `exec -a ${marker} sleep 300` } }, undefined, { signal: controller.signal });
        const settled = call.catch((error: unknown) => error);
        await waitFor(`the sleep of round ${round} runs`, () => runningNamed(marker).length === 1, { timeoutMs: 15_000 });
        controller.abort();
        await settled;
        if ((await survivors(() => runningNamed(marker), 5000)).length === 0) ended++;
      }
      expect(ended).toBe(10);
    } finally {
      await mcp.close();
    }
  }, TIMEOUT);

  test("a client of the newest revision (2026-07-28) cancels by closing its request: the balancer passes that on", async () => {
    const mcp = new CurrentClient({ name: "current", version: "2.0.0" }, { versionNegotiation: { mode: "auto" } });
    await mcp.connect(new CurrentHttpTransport(url, { requestInit: { headers: AUTH } }));
    try {
      expect(mcp.getNegotiatedProtocolVersion()).toBe("2026-07-28");
      let ended = 0;
      for (let round = 0; round < COPIES; round++) {
        const marker = uniqueMarker();
        const controller = new AbortController();
        const settled = mcp.callTool({ name: "bash", arguments: { command: `exec -a ${marker} sleep 300` } }, { signal: controller.signal }).catch((error: unknown) => error);
        await waitFor(`the sleep of round ${round} runs`, () => runningNamed(marker).length === 1, { timeoutMs: 15_000 });
        controller.abort();
        await settled;
        if ((await survivors(() => runningNamed(marker), 5000)).length === 0) ended++;
      }
      expect(ended).toBe(COPIES);
    } finally {
      await mcp.close();
    }
  }, TIMEOUT);

  test("200 concurrent calls from 20 clients return each client's own results", async () => {
    const clients = await Promise.all(Array.from({ length: 20 }, () => client()));
    try {
      const results = await Promise.all(
        clients.flatMap((mcp, index) =>
          Array.from({ length: 10 }, async (_, call) => {
            const result = await mcp.callTool({ name: "read_file", arguments: { path: `c${index}/f${call}.txt` } });
            return { index, call, text: result.content };
          }),
        ),
      );
      expect(results).toHaveLength(200);
      for (const { index, call, text } of results) expect(text).toEqual([{ type: "text", text: expect.stringContaining(`client ${index} call ${call}`) }]);
    } finally {
      await Promise.all(clients.map((mcp) => mcp.close()));
    }
  }, TIMEOUT);

  test("a text/plain or foreign-Origin POST has no effect; a 5 MiB body gets 413", async () => {
    const mcp = await client();
    const marker = uniqueMarker();
    let session = "";
    let requestId = -1;
    const spied = new Client({ name: "spied", version: "1.0.0" });
    await spied.connect(
      new StreamableHTTPClientTransport(url, {
        requestInit: { headers: AUTH },
        fetch: async (input, init) => {
          const body = typeof init?.body === "string" ? JSON.parse(init.body) : undefined;
          if (body?.method === "tools/call") requestId = body.id;
          const response = await fetch(input, init);
          session = response.headers.get("mcp-session-id") ?? session;
          return response;
        },
      }),
    );
    try {
      const controller = new AbortController();
      const settled = spied.callTool({ name: "bash", arguments: { command: `exec -a ${marker} sleep 300` } }, undefined, { signal: controller.signal }).catch((error: unknown) => error);
      await waitFor("the sleep runs", () => runningNamed(marker).length === 1, { timeoutMs: 15_000 });
      const cancel = JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId } });
      const write = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "write_file", arguments: { path: "planted.txt", content: "x" } } });
      const accept = "application/json, text/event-stream";
      // Three tries each, so every copy gets one.
      for (let attempt = 0; attempt < COPIES; attempt++) {
        const plain = { ...AUTH, "content-type": "text/plain", accept, "mcp-session-id": session };
        expect((await fetch(url, { method: "POST", headers: plain, body: cancel })).status).toBe(415);
        expect((await fetch(url, { method: "POST", headers: plain, body: write })).status).toBe(415);
        const foreign = { ...AUTH, "content-type": "application/json", accept, origin: "https://evil.example", "mcp-session-id": session };
        expect((await fetch(url, { method: "POST", headers: foreign, body: cancel })).status).toBe(403);
        expect((await fetch(url, { method: "POST", headers: foreign, body: write })).status).toBe(403);
      }
      await Bun.sleep(500);
      expect(runningNamed(marker)).toHaveLength(1);
      expect(await Bun.file(join(folder.dir, "workspace/planted.txt")).exists()).toBe(false);
      const big = await fetch(url, { method: "POST", headers: { ...AUTH, "content-type": "application/json", accept }, body: `{"pad":"${"x".repeat(5 * 1024 * 1024)}"}` });
      expect(big.status).toBe(413);
      // The calls still work, and the client's own cancellation still ends its sleep.
      expect((await mcp.callTool({ name: "read_file", arguments: { path: "c0/f0.txt" } })).isError).toBe(false);
      controller.abort();
      await settled;
      expect(await survivors(() => runningNamed(marker), 5000)).toEqual([]);
    } finally {
      await Promise.all([mcp.close(), spied.close()]);
    }
  }, TIMEOUT);
});

/** A balancer: each request to the next upstream in turn, the client's Host kept, its closing passed on. */
function roundRobin(upstreams: readonly URL[]): Bun.Server<undefined> {
  let next = 0;
  return Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const upstream = upstreams[next++ % upstreams.length] ?? upstreams[0];
      const { pathname, search } = new URL(request.url);
      const target = new URL(pathname + search, upstream);
      const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer();
      return await fetch(target, { method: request.method, headers: request.headers, body, signal: request.signal, redirect: "manual" });
    },
  });
}

/** `count` ports free now (the copies must know each other's before they start). */
async function freePorts(count: number): Promise<number[]> {
  const servers = Array.from({ length: count }, () => Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() }));
  const ports = servers.map((server) => server.port ?? 0);
  for (const server of servers) server.stop(true);
  return ports;
}
