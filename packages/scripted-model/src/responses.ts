/**
 * HTTP responses as the real API frames them: JSON bodies, and server-sent events where
 * each `data:` line is its own write and `data: [DONE]` closes the stream.
 */

/** A JSON response; a string body goes out verbatim (so it may be invalid JSON on purpose). */
export function jsonResponse(status: number, body: unknown, headers: Readonly<Record<string, string>> = {}): Response {
  return new Response(typeof body === "string" ? body : JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/** A plain-text response, for fault bodies a test gives as a string. */
export function textResponse(status: number, body: string, headers: Readonly<Record<string, string>> = {}): Response {
  return new Response(body, { status, headers: { "content-type": "text/plain; charset=utf-8", ...headers } });
}

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
