import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { RecordedRequest } from "@plugboard/testing";
import { bodyOf, chat, postChat, startTestServer, type TestServer } from "../test/helpers.ts";

let current: TestServer | undefined;
afterEach(async () => {
  await current?.close();
  current = undefined;
});

async function start(options: Parameters<typeof startTestServer>[0] = {}): Promise<TestServer> {
  current = await startTestServer(options);
  return current;
}

const roles = (request: RecordedRequest | undefined) => request?.body.messages?.map((m) => [m.role, m.content]);

describe("POST /api/chat", () => {
  test("sends the client's history to the model in order, after the server's system message", async () => {
    const { server, model } = await start({ script: [{ content: "Four." }], systemPrompt: "You are terse." });
    const history = chat("What is 1+1?", ["assistant", "Two."], "And 2+2?");
    const response = await postChat(server.url, history);
    expect(response.status).toBe(200);
    expect(await bodyOf(response)).toEqual({ reply: "Four.", status: "answered", toolCalls: [] });
    expect(roles(model.requests[0])).toEqual([
      ["system", "You are terse."],
      ["user", "What is 1+1?"],
      ["assistant", "Two."],
      ["user", "And 2+2?"],
    ]);
    expect(model.requests[0]?.body.tools?.length).toBe(2);
  });

  test("runs tool calls and reports each with its outcome", async () => {
    const { server, model } = await start({
      script: [
        { toolCalls: [{ name: "read_file", arguments: { path: "notes.txt" } }, { name: "read_file", arguments: { path: "../x" } }] },
        { content: "The notes say alpha, beta." },
      ],
    });
    const response = await postChat(server.url, chat("What do the notes say?"));
    expect(await bodyOf(response)).toEqual({
      reply: "The notes say alpha, beta.",
      status: "answered",
      toolCalls: [
        { name: "read_file", arguments: '{"path":"notes.txt"}', isError: false },
        { name: "read_file", arguments: '{"path":"../x"}', isError: true },
      ],
    });
    const toolMessages = model.requests[1]?.body.messages?.filter((m) => m.role === "tool") ?? [];
    expect(toolMessages.map((m) => m.content)).toEqual([expect.stringContaining("alpha"), "Error: Path escapes workspace: ../x"]);
  });

  test("answers step_limit with the last text when the model never stops calling tools", async () => {
    const call = { toolCalls: [{ name: "glob", arguments: { pattern: "*" } }], content: "Looking…" };
    const { server } = await start({ script: [call, call], maxSteps: 2 });
    const body = await bodyOf(await postChat(server.url, chat("Loop")));
    expect(body).toMatchObject({ reply: "Looking…", status: "step_limit" });
    expect(body.toolCalls).toHaveLength(2);
  });

  test("says when the answer was cut off at the model's output limit", async () => {
    const { server } = await start({ script: [{ content: "Half an answ", finishReason: "length" }, { content: "Whole." }] });
    expect(await bodyOf(await postChat(server.url, chat("Say it")))).toEqual({ reply: "Half an answ", status: "answered", toolCalls: [], cutOff: true });
    expect(await bodyOf(await postChat(server.url, chat("Say it")))).toEqual({ reply: "Whole.", status: "answered", toolCalls: [] });
  });

  test("two concurrent requests never see each other's messages", async () => {
    // Each request makes two model calls; the replies depend only on the request they answer,
    // and the first calls wait for each other, so both turns are surely in flight at once.
    let scripted: TestServer["model"] | undefined;
    const reply = async (request: RecordedRequest) => {
      const messages = request.body.messages ?? [];
      const question = String(messages.find((m) => m.role === "user")?.content);
      if (messages.at(-1)?.role === "tool") return { content: `answer to ${question}` };
      await scripted?.waitForRequests(2);
      return { toolCalls: [{ name: "read_file", arguments: { path: "notes.txt" } }] };
    };
    const { server, model } = await start({ script: [reply, reply, reply, reply] });
    scripted = model;
    const [a, b] = await Promise.all([
      postChat(server.url, chat("question A")).then(bodyOf),
      postChat(server.url, chat("question B")).then(bodyOf),
    ]);
    expect(a.reply).toBe("answer to question A");
    expect(b.reply).toBe("answer to question B");
    expect(model.requests).toHaveLength(4);
    for (const request of model.requests) {
      const users = (request.body.messages ?? []).filter((m) => m.role === "user").map((m) => m.content);
      expect(users.length).toBe(1);
      expect(request.body.messages?.filter((m) => m.role === "system")).toHaveLength(1);
    }
    // A later request starts from its own history only: nothing of A or B was kept.
    model.enqueue({ content: "fresh" });
    await postChat(server.url, chat("question C"));
    expect(roles(model.requests[4])?.map(([role]) => role)).toEqual(["system", "user"]);
  });

  test("one runtime and one client serve every request", async () => {
    const configPath = join(import.meta.dir, "../test/fixtures/counter/plugboard.config.json");
    const count = { toolCalls: [{ name: "count", arguments: {} }] };
    const { server, model, app, client } = await start({
      configPath,
      script: [count, { content: "one" }, count, { content: "two" }, count, { content: "three" }],
    });
    for (const question of ["first", "second", "third"]) {
      expect((await postChat(server.url, chat(question))).status).toBe(200);
    }
    // The tool's counter lives in the plugin instance: it keeps counting only if the runtime is never rebuilt.
    const results = model.requests.flatMap((r) => (r.body.messages ?? []).filter((m) => m.role === "tool").map((m) => m.content));
    expect(results).toEqual(["count: 1", "count: 2", "count: 3"]);
    expect(server.stats.turns).toBe(3);
    expect([...server.stats.runtimes]).toEqual([app.runtime]);
    expect([...server.stats.clients]).toEqual([client]);
    expect(model.requests[0]?.body.messages?.[0]).toEqual({ role: "system", content: "You count." });
  });
});

describe("tool search (over tools.searchOver)", () => {
  test("a chat turn is sent tool_search and the pinned tools; a found tool joins the turn and runs; the next turn starts over", async () => {
    const configPath = join(import.meta.dir, "../test/fixtures/tool-search/plugboard.config.json");
    const { server, model } = await start({
      configPath,
      script: [
        { toolCalls: [{ id: "s1", name: "tool_search", arguments: { query: "files matching a pattern" } }] },
        { toolCalls: [{ id: "g1", name: "glob", arguments: { pattern: "*.txt" } }] },
        { content: "notes.txt" },
        { content: "again" },
      ],
    });
    const body = await bodyOf(await postChat(server.url, chat("Which text files?")));
    expect(body).toMatchObject({ reply: "notes.txt", status: "answered" });
    const names = model.requests.map((request) => (request.body.tools ?? []).map((tool) => (tool as { function: { name: string } }).function.name));
    expect(names.slice(0, 3)).toEqual([
      ["tool_search", "read_file"],
      ["tool_search", "read_file", "glob"],
      ["tool_search", "read_file", "glob"],
    ]);
    const results = model.requests[2]?.body.messages?.filter((m) => m.role === "tool").map((m) => m.content);
    expect(results?.[0]).toStartWith('2 tools match "files matching a pattern", callable from your next step:\n- glob: ');
    expect(results?.[1]).toBe("notes.txt");
    // The page sends its history as text: the next turn is a new conversation.
    await postChat(server.url, chat("And now?"));
    expect((model.requests[3]?.body.tools ?? []).map((tool) => (tool as { function: { name: string } }).function.name)).toEqual(["tool_search", "read_file"]);
  });
});

describe("other routes", () => {
  test("GET /api/health answers ok", async () => {
    const { server } = await start();
    const response = await fetch(`${server.url}/api/health`);
    expect(response.status).toBe(200);
    expect(await bodyOf(response)).toEqual({ ok: true });
  });

  test("GET /api/info says the model in use, the example prompts for the enabled tools (the demo model's requests) and no withheld tool", async () => {
    const { server } = await start();
    const response = await fetch(`${server.url}/api/info`);
    expect(response.status).toBe(200);
    // The test config enables read_file and glob: no example of another tool, none with a placeholder.
    expect(await response.json()).toEqual({
      model: "scripted-model",
      demo: false,
      examples: ["read README.md", "read the first 5 lines of README.md", "list **/*.ts"],
      withheld: [],
    });
  });

  test("unknown routes are 404 JSON, wrong methods 405 JSON with Allow", async () => {
    const { server } = await start();
    const missing = await fetch(`${server.url}/api/nope`);
    expect(missing.status).toBe(404);
    expect(await bodyOf(missing)).toEqual({ error: "Not found: /api/nope" });
    expect((await fetch(`${server.url}/favicon.ico`)).status).toBe(404);

    const getChat = await fetch(`${server.url}/api/chat`);
    expect(getChat.status).toBe(405);
    expect(getChat.headers.get("allow")).toBe("POST");
    expect((await bodyOf(getChat)).error).toContain("use POST");
    const postHealth = await fetch(`${server.url}/api/health`, { method: "POST" });
    expect(postHealth.status).toBe(405);
    expect((await fetch(`${server.url}/`, { method: "DELETE" })).status).toBe(405);
  });

  test("without a token, a request addressed to a foreign host name is refused (DNS rebinding)", async () => {
    const { server, model } = await start();
    const response = await postChat(server.url, chat("hi"), { host: "evil.example:8787" });
    expect(response.status).toBe(403);
    expect((await bodyOf(response)).error).toContain("loopback");
    expect((await fetch(`${server.url}/api/health`, { headers: { host: "localhost" } })).status).toBe(200);
    expect(model.requests).toHaveLength(0);
  });

  test("GET / serves the page with a strict Content-Security-Policy", async () => {
    const { server } = await start();
    const response = await fetch(`${server.url}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")?.toLowerCase()).toBe("text/html; charset=utf-8");
    const csp = response.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).not.toContain("unsafe-inline");
    expect(csp).toContain("connect-src 'self'");
    expect(response.headers.get("x-frame-options")).toBe("DENY");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("referrer-policy")).toBe("no-referrer");
    expect(response.headers.get("cache-control")).toBe("no-store");
    const html = await response.text();
    expect(html).toContain('<textarea id="prompt"');
    expect(html).not.toMatch(/<script>|<style>|\son[a-z]+=/);
    const head = await fetch(`${server.url}/`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    // The page's script and styles come from this origin, under the same policy; the script never evaluates strings.
    const script = await fetch(`${server.url}/page.js`);
    expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(script.headers.get("content-security-policy")).toBe(csp);
    expect(await script.text()).not.toMatch(/\beval\(|\bFunction\(/);
    expect((await fetch(`${server.url}/page.css`)).headers.get("content-type")).toBe("text/css; charset=utf-8");
    // The API's answers carry the same protective headers, and are never cached.
    const health = await fetch(`${server.url}/api/health`);
    expect(health.headers.get("x-content-type-options")).toBe("nosniff");
    expect(health.headers.get("cache-control")).toBe("no-store");
    expect(html).not.toMatch(/\b(src|href)="(https?:)?\/\//);
  });
});
