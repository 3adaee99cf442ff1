/**
 * Attacks on `mcpHttpHandler` from outside, each with what it would do were the defence
 * off: another client's cancellation, a web page's `text/plain` or cross-origin POST, an
 * oversized body; and a client that closes its request ends its call.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { connect as tcpConnect } from "node:net";
import { tmpdir } from "node:os";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { defineTool, textResult, Type, Workspace, ToolRegistry } from "@plugboard/core";
import { ToolRuntime } from "@plugboard/runtime";
import { waitFor } from "@plugboard/test-helpers";
import { mcpHttpHandler } from "./serve-http.ts";

setDefaultTimeout(30_000);

/** The calls of `wait` running now, by the label they were given. */
const waiting = new Map<string, AbortSignal>();
const ran: string[] = [];
const tools = [
  defineTool({
    name: "wait",
    description: "Waits until cancelled.",
    parameters: Type.Object({ label: Type.String() }),
    handler: async ({ label }, ctx) => {
      waiting.set(label, ctx.signal);
      await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve));
      return textResult("stopped");
    },
  }),
  defineTool({
    name: "mark",
    description: "Records that it ran.",
    parameters: Type.Object({ label: Type.String() }),
    handler: async ({ label }) => {
      ran.push(label);
      return textResult(`marked ${label}`);
    },
  }),
];

let server: Bun.Server<undefined>;
let url: URL;
beforeAll(async () => {
  const runtime = new ToolRuntime(new ToolRegistry(tools), { workspace: await Workspace.open(tmpdir()) });
  server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: mcpHttpHandler(runtime) });
  url = new URL(`http://127.0.0.1:${server.port}/mcp`);
});
afterAll(() => server.stop(true));

/** A client of the SDK that also tells its session id and the id of each call it sends. */
async function spiedClient(): Promise<{ client: Client; session: () => string; callIds: Map<string, number> }> {
  let session = "";
  const callIds = new Map<string, number>();
  const spy = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const body = typeof init?.body === "string" ? JSON.parse(init.body) : undefined;
    if (body?.method === "tools/call") callIds.set(body.params.arguments.label, body.id);
    const response = await fetch(input, init);
    session = response.headers.get("mcp-session-id") ?? session;
    return response;
  };
  const client = new Client({ name: "spied", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(url, { fetch: spy }));
  return { client, session: () => session, callIds };
}

/** A POST of a cancellation for `requestId` of `session` (when given), with `headers`. */
function cancelPost(requestId: number, headers: Record<string, string>, session?: string): Promise<Response> {
  const body = JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId } });
  return fetch(url, { method: "POST", headers: { ...(session === undefined ? {} : { "mcp-session-id": session }), ...headers }, body });
}

/** Starts `wait` as `label` and waits until its handler runs. */
async function startWait(client: Client, label: string): Promise<{ call: Promise<unknown>; controller: AbortController }> {
  const controller = new AbortController();
  const call = client.callTool({ name: "wait", arguments: { label } }, undefined, { signal: controller.signal }).catch((error: unknown) => error);
  await waitFor(`${label} runs`, () => waiting.has(label), { timeoutMs: 5000 });
  return { call, controller };
}

/** Gives a wrongly delivered cancellation time to land, then says whether `label` was cancelled. */
async function cancelledAfterAWhile(label: string): Promise<boolean | undefined> {
  await Bun.sleep(300);
  return waiting.get(label)?.aborted;
}

const JSON_TYPE = { "content-type": "application/json", accept: "application/json, text/event-stream" };

describe("serving over HTTP, attacked", () => {
  test("a cancellation reaches only its own client's call: not another client's with the same request id, not one without a session", async () => {
    const victim = await spiedClient();
    const other = await spiedClient();
    try {
      const { call, controller } = await startWait(victim.client, "victim");
      const id = victim.callIds.get("victim") ?? -1;
      expect(victim.session()).not.toBe("");
      expect(other.session()).not.toBe(victim.session());
      // Every client numbers its requests from 0: the other client's, and a session-less, cancellation name the same id.
      expect((await cancelPost(id, JSON_TYPE, other.session())).status).toBe(202);
      expect((await cancelPost(id, JSON_TYPE)).status).toBe(202);
      expect(await cancelledAfterAWhile("victim")).toBe(false);
      controller.abort();
      await call;
      await waitFor("the victim's own cancellation ends it", () => waiting.get("victim")?.aborted, { timeoutMs: 5000 });
    } finally {
      await Promise.all([victim.client.close(), other.client.close()]);
    }
  });

  test("a text/plain POST (a web page's, sent without asking) is refused before its body is read: it neither cancels nor calls", async () => {
    const victim = await spiedClient();
    try {
      const { call, controller } = await startWait(victim.client, "plain");
      const id = victim.callIds.get("plain") ?? -1;
      const plain = await cancelPost(id, { "content-type": "text/plain" }, victim.session());
      expect(plain.status).toBe(415);
      expect(await cancelledAfterAWhile("plain")).toBe(false);
      const callBody = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "mark", arguments: { label: "plain" } } });
      expect((await fetch(url, { method: "POST", headers: { "content-type": "text/plain", accept: JSON_TYPE.accept }, body: callBody })).status).toBe(415);
      expect(ran).not.toContain("plain");
      controller.abort();
      await call;
    } finally {
      await victim.client.close();
    }
  });

  test("a POST from a page of another origin is refused (403), one of the server's own origin is served", async () => {
    const victim = await spiedClient();
    try {
      const { call, controller } = await startWait(victim.client, "origin");
      const id = victim.callIds.get("origin") ?? -1;
      const foreign = await cancelPost(id, { ...JSON_TYPE, origin: "http://evil.example" }, victim.session());
      expect(foreign.status).toBe(403);
      expect(await cancelledAfterAWhile("origin")).toBe(false);
      const call2 = (origin: string, label: string) =>
        fetch(url, {
          method: "POST",
          headers: { ...JSON_TYPE, origin },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "mark", arguments: { label } } }),
        });
      expect((await call2("null", "null-origin")).status).toBe(403);
      expect((await call2(`http://127.0.0.1:${server.port}`, "own-origin")).status).toBe(200);
      expect(ran).toEqual(expect.arrayContaining(["own-origin"]));
      expect(ran).not.toContain("null-origin");
      controller.abort();
      await call;
    } finally {
      await victim.client.close();
    }
  });

  test("a body over 4 MiB gets 413, whole or streamed, without the server waiting for its end", async () => {
    const whole = await fetch(url, { method: "POST", headers: JSON_TYPE, body: `{"pad":"${"x".repeat(5 * 1024 * 1024)}"}` });
    expect(whole.status).toBe(413);
    // Declared 5 MiB, 1 KiB sent, the rest never: the answer comes from the header alone.
    expect(await rawPost([`Content-Length: ${5 * 1024 * 1024}`], ["x".repeat(1024)])).toMatch(/^HTTP\/1\.1 413/);
    // Chunked, no length declared: 4 MiB and a bit sent, the end never: the answer comes once the count passes 4 MiB.
    const chunk = "x".repeat(64 * 1024);
    const chunks = Array.from({ length: 65 }, () => `${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    expect(await rawPost(["Transfer-Encoding: chunked"], chunks)).toMatch(/^HTTP\/1\.1 413/);
  });

  test("a client that closes its request ends the call", async () => {
    const controller = new AbortController();
    const body = JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "wait", arguments: { label: "closed" } } });
    const call = fetch(url, { method: "POST", headers: JSON_TYPE, body, signal: controller.signal }).catch((error: unknown) => error);
    await waitFor("the call runs", () => waiting.has("closed"), { timeoutMs: 5000 });
    controller.abort();
    await call;
    await waitFor("closing the request aborted the call", () => waiting.get("closed")?.aborted, { timeoutMs: 5000 });
  });
});

/** Sends a POST's head and `parts` of its body over a socket that then stays open, and returns what the server answers. */
function rawPost(headers: readonly string[], parts: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tcpConnect(server.port ?? 0, "127.0.0.1");
    let answer = "";
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer while the body was still coming; got: ${answer.slice(0, 80)}`));
    }, 5000);
    socket.on("data", (data) => {
      answer += data.toString();
      if (answer.includes("\r\n")) {
        clearTimeout(timer);
        socket.destroy();
        resolve(answer);
      }
    });
    socket.on("error", (error) => {
      clearTimeout(timer);
      if (answer !== "") resolve(answer);
      else reject(error);
    });
    socket.write(["POST /mcp HTTP/1.1", `Host: 127.0.0.1:${server.port}`, "Content-Type: application/json", ...headers, "", ""].join("\r\n"));
    for (const part of parts) socket.write(part);
  });
}
