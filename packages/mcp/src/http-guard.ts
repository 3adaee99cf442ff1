/**
 * Who may reach an HTTP server of ours: the checks `plugboard mcp --http` and the web app
 * share. Imports nothing, so an app can use them without loading the MCP SDK.
 */

/** The token syntax of a bearer credential (RFC 6750 `b64token`), as an `Authorization` header can carry it. */
const BEARER_TOKEN_SYNTAX = /^[A-Za-z0-9._~+/-]+=*$/;

/** True when `token` can be sent as `Authorization: Bearer TOKEN`. */
export function isBearerToken(token: string): boolean {
  return BEARER_TOKEN_SYNTAX.test(token);
}

/** True for `localhost`, `127.x.x.x` and `::1` (bracketed or not). */
export function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase().replace(/^\[(.*)\]$/, "$1");
  return name === "localhost" || name === "::1" || /^127(\.\d{1,3}){3}$/.test(name);
}

/** True when a request's `Host` header (`localhost:8080`, `[::1]:80`, …) names a loopback host. */
export function isLoopbackHostHeader(header: string | undefined): boolean {
  if (header === undefined) return false;
  try {
    return isLoopbackHost(new URL(`http://${header}`).hostname);
  } catch {
    return false;
  }
}

/**
 * True when a request's `Origin` header names another site than the one it was sent to
 * (its `Host` header): a web page's request to us. No `Origin` (a program, not a
 * browser) is not foreign; `Origin: null` (a sandboxed page, a file) is. The scheme is
 * not compared, so a copy behind a balancer that ends TLS still knows its own pages.
 *
 * @example isForeignOrigin("https://evil.example", "127.0.0.1:8808") // true
 */
export function isForeignOrigin(origin: string | null, host: string | undefined): boolean {
  if (origin === null) return false;
  if (host === undefined) return true;
  try {
    const from = new URL(origin);
    return from.host !== new URL(`${from.protocol}//${host}`).host;
  } catch {
    return true;
  }
}

/** True when a `Content-Type` header's media type is `application/json` (parameters such as `charset` allowed). */
export function isJsonContentType(header: string | null): boolean {
  return header?.split(";")[0]?.trim().toLowerCase() === "application/json";
}
