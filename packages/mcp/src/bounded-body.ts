/**
 * A request body read up to a bound: the declared `Content-Length` is checked before a
 * byte is read, and a body without one (chunked) is counted as it streams and dropped the
 * moment it passes the bound, so an oversized body is never held whole.
 */

/** What `readBounded` found: the bytes, or that there were too many. */
export type BoundedBody = { readonly tooLarge: false; readonly bytes: Uint8Array } | { readonly tooLarge: true };

/**
 * The body of `request`, unless it is longer than `limit` bytes.
 *
 * @example const body = await readBounded(request, 4 * 1024 * 1024); if (body.tooLarge) return new Response(null, { status: 413 });
 */
export async function readBounded(request: Request, limit: number): Promise<BoundedBody> {
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (declared > limit) {
    await request.body?.cancel().catch(() => {});
    return { tooLarge: true };
  }
  if (request.body === null) return { tooLarge: false, bytes: new Uint8Array() };
  // A declared length within the bound is the length (the HTTP server holds the client to it): read at once.
  if (Number.isFinite(declared)) return { tooLarge: false, bytes: new Uint8Array(await request.arrayBuffer()) };
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    length += value.byteLength;
    if (length > limit) {
      await reader.cancel().catch(() => {});
      return { tooLarge: true };
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return { tooLarge: false, bytes };
}
