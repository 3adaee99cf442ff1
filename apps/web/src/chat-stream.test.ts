import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { waitFor } from "@plugboard/test-helpers";
import { bodyOf, chat, postChat, readSse, startTestServer, type TestServer } from "../test/helpers.ts";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

const SSE = { accept: "text/event-stream" };

describe("POST /api/chat with Accept: text/event-stream", () => {
  test("streams tool calls, their results, the text, then done with the final object", async () => {
    t.model.enqueue(
      { toolCalls: [{ id: "call_a", name: "read_file", arguments: { path: "notes.txt" } }] },
      { content: "The notes list alpha and beta." },
    );
    const response = await postChat(t.server.url, chat("What is in notes.txt?"), SSE);
    expect(response.status).toBe(200);
    // SSE is UTF-8 by definition.
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const events = await readSse(response);
    expect(events.map((e) => e.event).filter((name, i, all) => name !== all[i - 1])).toEqual([
      "tool_call",
      "tool_result",
      "text",
      "done",
    ]);
    expect(events[0]?.data).toEqual({ id: "call_a", name: "read_file", arguments: '{"path":"notes.txt"}' });
    expect(events[1]?.data).toMatchObject({ id: "call_a", name: "read_file", isError: false });
    expect(String(events[1]?.data.content)).toContain("alpha");
    const text = events.filter((e) => e.event === "text").map((e) => e.data.text).join("");
    expect(text).toBe("The notes list alpha and beta.");
    expect(events.at(-1)?.data).toEqual({
      reply: "The notes list alpha and beta.",
      status: "answered",
      toolCalls: [{ name: "read_file", arguments: '{"path":"notes.txt"}', isError: false }],
    });
    expect(t.model.requests.at(-1)?.body.stream).toBe(true);
  });

  test("a model failure becomes an error event naming the endpoint's status", async () => {
    t.model.enqueue({ status: 404, body: { error: { message: "The model does not exist", type: "invalid_request_error" } } });
    const events = await readSse(await postChat(t.server.url, chat("hi"), SSE));
    expect(events).toHaveLength(1);
    expect(events[0]?.event).toBe("error");
    expect(events[0]?.data.endpointStatus).toBe(404);
    expect(String(events[0]?.data.error)).toContain("answered 404 (The model does not exist)");
  });

  test("invalid requests are still plain 400 JSON", async () => {
    const response = await postChat(t.server.url, { messages: [] }, SSE);
    expect(response.status).toBe(400);
    expect((await bodyOf(response)).error).toContain("at least one message");
  });

  test("a client that goes away aborts its turn", async () => {
    t.model.enqueue({ hang: true });
    const before = t.server.stats.aborted;
    const requestsBefore = t.model.requests.length;
    const controller = new AbortController();
    const response = await fetch(`${t.server.url}/api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json", ...SSE },
      body: JSON.stringify(chat("Take your time")),
      signal: controller.signal,
    });
    await t.model.waitForRequests(requestsBefore + 1);
    expect(t.server.stats.inFlight).toBe(1);
    controller.abort();
    await response.body?.cancel().catch(() => {});
    await waitFor("the server ended the turn its client left", () => t.server.stats.inFlight === 0);
    expect(t.server.stats.aborted).toBe(before + 1);
  });
});
