/** Turns an incoming request into the record a test reads back. */
import type { RecordedBody, RecordedRequest } from "./types.ts";

/** Reads the request's body and records it with its method, path and headers. */
export async function recordOf(request: Request): Promise<RecordedRequest> {
  const text = await request.text();
  const parsed = parseJson(text);
  return {
    method: request.method,
    path: new URL(request.url).pathname,
    headers: Object.fromEntries(request.headers),
    text,
    body: isObject(parsed) ? (parsed as RecordedBody) : {},
  };
}

/** The parsed JSON, or undefined when `text` is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Whether `value` is a JSON object (not an array). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
