/**
 * The access token: a shared secret the API requires as `Authorization: Bearer TOKEN`
 * whenever one is configured (and always before binding a non-loopback address).
 */
import { createHash, timingSafeEqual } from "node:crypto";

const BEARER = /^Bearer +(\S+) *$/i;

/**
 * True when the `Authorization` header carries exactly `token`. Both sides are hashed first
 * so the comparison takes the same time whatever the lengths and contents.
 *
 * @example bearerMatches(request.headers.get("authorization"), "s3cret")
 */
export function bearerMatches(header: string | null, token: string): boolean {
  const given = BEARER.exec(header ?? "")?.[1];
  const same = timingSafeEqual(digest(given ?? ""), digest(token));
  return given !== undefined && same;
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}
