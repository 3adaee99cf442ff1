/**
 * Server-sent events as the chat-completions API frames them: each event is its own write
 * and `data: [DONE]` closes the stream. Shared by this server and the demo model
 * (`@plugboard/scripted-model/sse`), so the framing exists once.
 */

const DONE = "data: [DONE]\n\n";

/**
 * A server-sent event stream: one `data: JSON` event per element of `events`, then
 * `data: [DONE]`. A string is sent verbatim instead, for malformed streams.
 */
export function sseResponse(
  status: number,
  events: readonly unknown[] | string,
  headers: Readonly<Record<string, string>> = {},
): Response {
  const frames = typeof events === "string" ? [events] : [...events.map(dataEvent), DONE];
  return framesResponse(status, frames, headers);
}

/**
 * A recorded stream sent back exactly: SSE text event by event as it was recorded, or chunks
 * each as its own `data:` event (a string chunk verbatim) followed by `data: [DONE]`.
 */
export function replayResponse(
  status: number,
  recording: readonly unknown[] | string,
  headers: Readonly<Record<string, string>> = {},
): Response {
  const frames =
    typeof recording === "string"
      ? recording.split(/(?<=\r?\n\r?\n)/)
      : [...recording.map((chunk) => (typeof chunk === "string" ? chunk : dataEvent(chunk))), DONE];
  return framesResponse(status, frames, headers);
}

function dataEvent(event: unknown): string {
  return `data: ${JSON.stringify(event)}\n\n`;
}

/** Each frame is its own write, so the client sees the events arrive one by one. */
function framesResponse(status: number, frames: readonly string[], headers: Readonly<Record<string, string>>): Response {
  const encoder = new TextEncoder();
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
