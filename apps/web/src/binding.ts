/**
 * Where the server may listen and which `Host` headers it answers. Without a token only
 * loopback is allowed: anyone who can reach the port could otherwise spend the model and
 * run the tools.
 */
import { PlugboardError } from "@plugboard/bootstrap";

/** True for `localhost`, `127.x.x.x` and `::1` (bracketed or not). */
export function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase().replace(/^\[(.*)\]$/, "$1");
  return name === "localhost" || name === "::1" || /^127(\.\d{1,3}){3}$/.test(name);
}

/**
 * Refuses a non-loopback address when no token is configured.
 * Throws `PlugboardError` (`USAGE`) saying how to fix it.
 */
export function checkBinding(host: string, token: string | undefined): void {
  if (token !== undefined && token === "") {
    throw new PlugboardError("USAGE", "The access token is empty: give --token (or PLUGBOARD_WEB_TOKEN) a secret value.");
  }
  if (isLoopbackHost(host) || token !== undefined) return;
  throw new PlugboardError(
    "USAGE",
    `Refusing to listen on ${host} without an access token: anyone who can reach it could use your model and tools. ` +
      "Set a token with --token TOKEN or the PLUGBOARD_WEB_TOKEN environment variable (clients then send " +
      '"Authorization: Bearer TOKEN"), or listen on loopback only with --host 127.0.0.1.',
  );
}

/**
 * True when a request's `Host` header names a loopback address. Without a token the server
 * answers only those, so a foreign web page cannot reach it through DNS rebinding.
 */
export function hostHeaderIsLoopback(request: Request): boolean {
  const header = request.headers.get("host");
  if (header === null) return false;
  try {
    return isLoopbackHost(new URL(`http://${header}`).hostname);
  } catch {
    return false;
  }
}
