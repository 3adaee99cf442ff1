/**
 * A request body read up to a bound: the declared `Content-Length` is checked before a
 * byte is read, and a body without one (chunked) is counted as it streams, so an oversized
 * body is never held whole. Its refusal is answered while the rest of it is read and thrown
 * away, so that a client still writing reads the answer.
 */

/** What is used of a request body's reader. */
interface BodyReader {
  read(): Promise<Bun.ReadableStreamDefaultReadResult<Uint8Array>>;
  cancel(): Promise<void>;
}

/** What `readBounded` found: the bytes, or that there were too many (with the rest of them, for `refuseTooLarge`). */
export type BoundedBody = { readonly tooLarge: false; readonly bytes: Uint8Array } | TooLarge;

/** A body over the limit: what is left of it to read, and how many bytes were read already. */
export interface TooLarge {
  readonly tooLarge: true;
  readonly rest: BodyReader;
  readonly read: number;
}

/**
 * The body of `request`, unless it is longer than `limit` bytes.
 *
 * @example const body = await readBounded(request, 4 * 1024 * 1024); if (body.tooLarge) return refuseTooLarge(answer, body, 32 * 1024 * 1024);
 */
export async function readBounded(request: Request, limit: number): Promise<BoundedBody> {
  if (request.body === null) return { tooLarge: false, bytes: new Uint8Array() };
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (declared > limit) return { tooLarge: true, rest: request.body.getReader(), read: 0 };
  // A declared length within the bound is the length (the HTTP server holds the client to it): read at once.
  if (Number.isFinite(declared)) return { tooLarge: false, bytes: new Uint8Array(await request.arrayBuffer()) };
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    length += value.byteLength;
    if (length > limit) return { tooLarge: true, rest: reader, read: length };
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

/**
 * `answer` to a body too large, its head and text sent at once; its end (and, with
 * `Connection: close`, the connection's) only once the rest of the body has been read and
 * thrown away, up to `bound` bytes of body in all. Closing while the client still writes
 * would reset the connection and lose the answer (the client's write fails with `EPIPE`
 * before it reads a byte); a client that never stops writing is cut off at the bound.
 *
 * @example return refuseTooLarge(new Response("too large", { status: 413 }), body, 32 * 1024 * 1024);
 */
export function refuseTooLarge(answer: Response, body: TooLarge, bound: number): Response {
  const headers = new Headers(answer.headers);
  headers.set("connection", "close");
  headers.delete("content-length");
  let open = true;
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      const text = new Uint8Array(await answer.arrayBuffer());
      if (open) controller.enqueue(text);
      // Not awaited: the head and the text go out now, the end after the rest of the body.
      void discard(body.rest, bound - body.read).then(() => {
        if (open) controller.close();
      });
    },
    // The client went away before the answer ended.
    cancel() {
      open = false;
      return body.rest.cancel().catch(() => {});
    },
  });
  return new Response(stream, { status: answer.status, statusText: answer.statusText, headers });
}

/**
 * Reads `reader` to its end, or until more than `bound` bytes came, keeping none of them;
 * then lets it go. Never rejects: a client gone mid-body has nothing left to read.
 */
async function discard(reader: BodyReader, bound: number): Promise<void> {
  let left = bound;
  try {
    while (left >= 0) {
      const { done, value } = await reader.read();
      if (done) return;
      left -= value.byteLength;
    }
  } catch {
    return;
  } finally {
    await reader.cancel().catch(() => {});
  }
}
