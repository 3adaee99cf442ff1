/**
 * Server-sent events as the chat-completions API frames them: each `data:` line is its own
 * write and `data: [DONE]` closes the stream. Shared by this server and the demo model
 * (`@plugboard/scripted-model/sse`), so the framing exists once.
 */

/**
 * A server-sent event stream: one `data: JSON` event per element of `events`, then
 * `data: [DONE]`. A string is sent verbatim instead, for malformed streams.
 */
export function sseResponse(
  status: number,
  events: readonly unknown[] | string,
  headers: Readonly<Record<string, string>> = {},
): Response {
  const encoder = new TextEncoder();
  const frames =
    typeof events === "string" ? [events] : [...events.map((event) => `data: ${JSON.stringify(event)}\n\n`), "data: [DONE]\n\n"];
  let next = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const frame = frames[next++];
      if (frame === undefined) {
        controller.close();
        return;
      }
      controller.enqueue(encoder.encode(frame));
    },
  });
  return new Response(body, {
    status,
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      ...headers,
    },
  });
}
