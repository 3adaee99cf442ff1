import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { waitFor } from "@plugboard/test-helpers";
import { EventSourceParserStream } from "eventsource-parser/stream";
import { bodyOf, chat, postChat, startTestServer, type TestServer } from "../test/helpers.ts";
import { startWebServer } from "./server.ts";

const CONFIG = join(import.meta.dir, "../test/fixtures/policy/plugboard.config.json");

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ configPath: CONFIG });
});
afterAll(() => t.close());

/** A streamed turn read event by event, so the test can answer an approval mid-turn. */
async function* streamedTurn(question: string, signal?: AbortSignal, url = t.server.url): AsyncGenerator<{ event: string; data: Record<string, unknown> }> {
  const response = await fetch(`${url}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify(chat(question)),
    ...(signal ? { signal } : {}),
  });
  expect(response.status).toBe(200);
  const events = response.body?.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
  for await (const message of events ?? []) yield { event: message.event ?? "message", data: JSON.parse(message.data) };
}

function answer(id: string, body: unknown, contentType = "application/json"): Promise<Response> {
  return fetch(`${t.server.url}/api/approvals/${id}`, {
    method: "POST",
    headers: { "content-type": contentType },
    body: JSON.stringify(body),
  });
}

const toolMessages = () => t.model.requests.at(-1)?.body.messages?.filter((m) => m.role === "tool").map((m) => m.content);

describe("approvals over the API", () => {
  test("an ask becomes an approval event; allow runs the call, deny refuses it with the person's reason", async () => {
    t.model.enqueue(
      {
        toolCalls: [
          { id: "call_touch", name: "bash", arguments: { command: "touch approved.txt" } },
          { id: "call_rm", name: "bash", arguments: { command: "rm notes.txt" } },
        ],
      },
      { content: "One ran, one was refused." },
    );
    const seen: string[] = [];
    for await (const { event, data } of streamedTurn("Tidy up")) {
      seen.push(event);
      if (event === "approval" && data.id === "call_touch") {
        expect(data).toEqual({ id: "call_touch", tool: "bash", arguments: { command: "touch approved.txt" }, like: "touch *" });
        expect(t.server.stats.approvalsWaiting).toBe(1);
        expect(await bodyOf(await answer("call_touch", { decision: "allow" }))).toEqual({ ok: true });
      }
      if (event === "approval" && data.id === "call_rm") {
        expect((await answer("call_rm", { decision: "deny", reason: "keep the notes" })).status).toBe(200);
      }
    }
    expect(seen.filter((name) => name !== "text")).toEqual(["tool_call", "approval", "tool_result", "tool_call", "approval", "tool_result", "done"]);
    expect(existsSync(join(t.workspace, "approved.txt"))).toBe(true);
    expect(existsSync(join(t.workspace, "notes.txt"))).toBe(true);
    expect(toolMessages()).toEqual([expect.stringContaining("exit code: 0"), "Error: Denied by the user: keep the notes"]);
    // An answer counts once: the call no longer waits.
    expect((await answer("call_touch", { decision: "allow" })).status).toBe(404);
  });

  test("a client that goes away while a call waits: the call never runs and the turn ends", async () => {
    t.model.enqueue({ toolCalls: [{ id: "call_gone", name: "bash", arguments: { command: "touch never.txt" } }] });
    const before = t.server.stats.aborted;
    const controller = new AbortController();
    for await (const { event } of streamedTurn("Do it", controller.signal)) {
      if (event === "approval") break;
    }
    controller.abort();
    await waitFor("the turn whose client went away ended", () => t.server.stats.inFlight === 0 && t.server.stats.approvalsWaiting === 0);
    expect(t.server.stats.aborted).toBe(before + 1);
    expect((await answer("call_gone", { decision: "allow" })).status).toBe(404);
    expect(existsSync(join(t.workspace, "never.txt"))).toBe(false);
  });

  test("a JSON (not streamed) request has no one to ask: the call is refused with the DESIGN text", async () => {
    t.model.enqueue({ toolCalls: [{ name: "bash", arguments: { command: "touch unasked.txt" } }] }, { content: "Refused." });
    const body = await bodyOf(await postChat(t.server.url, chat("Do it")));
    expect(body.toolCalls).toEqual([{ name: "bash", arguments: '{"command":"touch unasked.txt"}', isError: true }]);
    expect(toolMessages()).toEqual([
      "Error: Denied: approval required and no one to ask (allow it in the config's policy, or run with --yes)",
    ]);
    expect(existsSync(join(t.workspace, "unasked.txt"))).toBe(false);
  });

  test("a deny rule refuses without asking", async () => {
    t.model.enqueue(
      { toolCalls: [{ name: "edit_file", arguments: { path: "secrets/key.txt", old_text: "a", new_text: "b" } }] },
      { content: "Refused." },
    );
    const events = [];
    for await (const message of streamedTurn("Edit the key")) events.push(message.event);
    expect(events).not.toContain("approval");
    expect(toolMessages()).toEqual(["Error: Denied by policy: edit_file path=secrets/*"]);
  });

  test("bad answers: unknown id 404, wrong shape 400, not JSON 415", async () => {
    expect(await bodyOf(await answer("nope", { decision: "allow" }))).toEqual({ error: "No call waits for approval under the id nope" });
    for (const body of [{}, { decision: "maybe" }, { decision: "deny", reason: 3 }, { decision: "allow", always: true }]) {
      const response = await answer("nope", body);
      expect(response.status).toBe(400);
      expect((await bodyOf(response)).error).toContain('Invalid approval answer: expected {"decision": "allow" or "deny"');
    }
    expect((await answer("nope", { decision: "allow" }, "text/plain")).status).toBe(415);
    expect((await fetch(`${t.server.url}/api/approvals/nope`)).status).toBe(405);
  });
});

describe("always for commands like this", () => {
  test("the runtime remembers the rule: the next like call is not asked, on this server or another serving the same app", async () => {
    t.model.enqueue({ toolCalls: [{ id: "call_ls", name: "bash", arguments: { command: "ls -a" } }] }, { content: "Listed." });
    const seen: string[] = [];
    for await (const { event, data } of streamedTurn("List")) {
      seen.push(event);
      if (event === "approval") {
        expect(data).toEqual({ id: "call_ls", tool: "bash", arguments: { command: "ls -a" }, like: "ls *" });
        expect((await answer("call_ls", { decision: "allow", always: "commands" })).status).toBe(200);
      }
    }
    expect(seen).toContain("approval");
    expect(t.app.runtime.remembered()).toEqual([{ tool: "bash", args: { command: "ls *" }, action: "allow" }]);

    t.model.enqueue({ toolCalls: [{ id: "call_ls_again", name: "bash", arguments: { command: "ls -l notes.txt" } }] }, { content: "Listed again." });
    const again: string[] = [];
    for await (const { event } of streamedTurn("List again")) again.push(event);
    expect(again).not.toContain("approval");
    expect(toolMessages()?.at(-1)).toContain("notes.txt");

    // A second server on the same app has approvals of its own, and no card either: the runtime decides.
    const other = await startWebServer({ app: t.app, client: t.client, model: "scripted-model", port: 0, log: () => {} });
    try {
      t.model.enqueue({ toolCalls: [{ id: "call_ls_there", name: "bash", arguments: { command: "ls notes.txt" } }] }, { content: "Listed there." });
      const there: string[] = [];
      for await (const { event } of streamedTurn("List there", undefined, other.url)) there.push(event);
      expect(there).not.toContain("approval");
      expect(toolMessages()?.at(-1)).toContain("notes.txt");
    } finally {
      await other.close();
    }
  });

  test("an always answer to a card with no offer adds no rule", async () => {
    const before = t.app.runtime.remembered();
    t.model.enqueue({ toolCalls: [{ id: "call_write", name: "write_file", arguments: { path: "w.txt", content: "w" } }] }, { content: "Written." });
    for await (const { event, data } of streamedTurn("Write")) {
      if (event === "approval") {
        expect(data.like).toBeUndefined();
        await answer("call_write", { decision: "allow", always: "commands" });
      }
    }
    expect(existsSync(join(t.workspace, "w.txt"))).toBe(true);
    expect(t.app.runtime.remembered()).toEqual(before);
  });
});
