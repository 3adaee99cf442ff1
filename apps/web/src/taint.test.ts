/**
 * The conversation's taint over the chat API: bash, granted network, is an untrusted source
 * and a way out, and the config allows it. The conversation lives in the client, its taint
 * too: each answer gives it, the next request sends it back, and a request without it is a
 * new conversation. The approval event says why a person must answer.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { waitFor } from "@plugboard/test-helpers";
import { chat, postChat, readSse, startTestServer, type TestServer } from "../test/helpers.ts";

const CONFIG = join(import.meta.dir, "../test/fixtures/taint/plugboard.config.json");
const NO_ONE =
  "Error: Denied: untrusted content from bash entered this conversation and bash can send data out, so a person must approve this call, and no one can be asked (not even --yes answers for them); finish without it, or ask the user to run it at a terminal";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ configPath: CONFIG });
}, 60_000);
afterAll(() => t.close());

const results = () => t.model.requests.at(-1)?.body.messages?.filter((m) => m.role === "tool").map((m) => m.content);
const echo = (id: string, text: string) => ({ toolCalls: [{ id, name: "bash", arguments: { command: `echo ${text}` } }] });

describe("a conversation's taint over the API", () => {
  test("an answer gives the taint; sent back, the conversation's next call out is refused with no one to ask; without it, a new conversation runs it", async () => {
    t.model.enqueue(echo("c1", "page"), { content: "Fetched." });
    const first = await postChat(t.server.url, chat("Fetch the page"));
    expect(await first.json()).toMatchObject({ reply: "Fetched.", taint: { by: "bash" } });

    t.model.enqueue(echo("c2", "sent"), { content: "Tried." });
    const resumed = await postChat(t.server.url, { ...chat("Send it"), taint: { by: "bash" } });
    expect(await resumed.json()).toMatchObject({ reply: "Tried.", taint: { by: "bash" } });
    expect(results()).toEqual([NO_ONE]);

    t.model.enqueue(echo("c3", "sent"), { content: "Sent." });
    const fresh = await postChat(t.server.url, chat("Send it"));
    expect(await fresh.json()).toMatchObject({ reply: "Sent.", taint: { by: "bash" } });
    expect(results()?.[0]).toStartWith("sent\n");
  }, 30_000);

  test("in a streamed turn the approval event names the taint; the done event carries it", async () => {
    t.model.enqueue(echo("s1", "sent"), { content: "Done." });
    const response = await fetch(`${t.server.url}/api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ ...chat("Send it"), taint: { by: "bash" } }),
    });
    // No one answers the card: the stream ends when the request is cancelled, so read it as it comes.
    const events: { event: string; data: Record<string, unknown> }[] = [];
    const reading = readSse(response).then((all) => events.push(...all));
    await waitFor("an approval waits", () => t.server.stats.approvalsWaiting > 0, { timeoutMs: 10_000, everyMs: 20 });
    expect((await fetch(`${t.server.url}/api/approvals/s1`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"decision":"allow"}' })).status).toBe(200);
    await reading;
    expect(events.find(({ event }) => event === "approval")?.data).toMatchObject({ id: "s1", tool: "bash", arguments: { command: "echo sent" }, tainted: { by: "bash" } });
    expect(events.at(-1)).toMatchObject({ event: "done", data: { reply: "Done.", taint: { by: "bash" } } });
  }, 30_000);

  test("a taint that is not an object naming a tool is a 400", async () => {
    const response = await postChat(t.server.url, { ...chat("hi"), taint: { by: "" } });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: "Invalid chat request: taint.by: expected a tool name" });
  });
});
