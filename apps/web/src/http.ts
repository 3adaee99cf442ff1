/**
 * The JSON answers of the API. Every failure is `{ "error": "…" }` with a status that says
 * whose fault it was, so a client can show the text as is.
 */

/** Headers every API answer carries. */
const API_HEADERS = { "cache-control": "no-store", "x-content-type-options": "nosniff" } as const;

/** A JSON answer with `status`. */
export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return Response.json(body, { status, headers: { ...API_HEADERS, ...headers } });
}

/** A failure: `{ "error": message }` plus any extra fields. */
export function errorResponse(
  status: number,
  message: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Response {
  return jsonResponse(status, { error: message, ...extra }, headers);
}

/** A request the server refuses before doing any work; becomes `errorResponse(status, message)`. */
export class HttpError extends Error {
  override readonly name = "HttpError";
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}
