/**
 * HTTP responses as the real API sends them: JSON and plain-text bodies. Server-sent events
 * are in `sse.ts`.
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
