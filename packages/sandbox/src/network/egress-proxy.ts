/**
 * The egress proxy a narrowed `network` grant goes through, run by the app, outside the
 * sandbox: plain HTTP (a request with an absolute URL, forwarded with `Connection: close`,
 * so that each connection carries one request to one checked host) and HTTPS through
 * `CONNECT` (a byte tunnel: TLS is never terminated here). A request is admitted when the
 * host and port match the list (egress-rules.ts); the name is then resolved once, every
 * address is checked, and the proxy connects to the exact address it checked, so a DNS answer
 * that changes afterwards cannot widen the grant. A refusal is a 403 whose body names the
 * host and the plugin. Each connection, admitted or refused, is reported once (`onConnection`),
 * and the app writes it to its audit log.
 */
import { lookup } from "node:dns/promises";
import { isIP, type Server, type Socket, connect, createServer } from "node:net";
import { admission, type HostPattern, hostAndPort, localAddressKind, normalHost, parsePattern } from "./egress-rules.ts";

/** One connection a narrowed process asked for, as the audit log records it. */
export interface EgressRecord {
  /** When the request arrived, ISO 8601. */
  readonly ts: string;
  readonly event: "network";
  readonly plugin: string;
  /** As requested: a name or an address. */
  readonly host: string;
  readonly port: number;
  /** `CONNECT` for a tunnel (HTTPS), else the HTTP method. */
  readonly method: string;
  readonly decision: "allow" | "deny";
  /** The pattern that admitted it. */
  readonly rule?: string;
  /** The address connected to (admitted). */
  readonly address?: string;
  /** Why it was refused, or why an admitted one failed to connect. */
  readonly reason?: string;
}

/** What the proxy serves and tells. */
export interface EgressProxyOptions {
  /** The plugin (or MCP server) name, as refusals and records name it. */
  readonly plugin: string;
  /** The config's `"network"` list. */
  readonly network: readonly string[];
  /** Told of each connection, admitted or refused. */
  readonly onConnection?: (record: EgressRecord) => void;
  /** A name's addresses, in the order to try. @default the system's resolver (`getaddrinfo`, /etc/hosts included) */
  readonly resolve?: (host: string) => Promise<readonly string[]>;
}

const systemResolve = async (host: string) => (await lookup(host, { all: true, verbatim: true })).map(({ address }) => address);

/** A running proxy. */
export interface EgressProxy {
  close(): void;
}

/** The most a request's head may take before it is refused. */
const HEAD_LIMIT = 64 * 1024;


/** The refusal's body, as DESIGN.md words it. */
export function refusalText(host: string, plugin: string): string {
  return `Plugboard: network to ${host} is not granted to ${plugin} (add it to "network" in the config)`;
}

/**
 * Serves the proxy on `listen`: the listening socket a confined process's confining step
 * handed over (`{ fd }`), or a loopback port (for measurements). The server does not keep
 * the app alive by itself.
 */
export function serveEgressProxy(listen: { readonly fd: number } | { readonly port: number; readonly host: string }, options: EgressProxyOptions): EgressProxy & { readonly server: Server } {
  const patterns = options.network.map(parsePattern);
  const server = createServer((client) => {
    client.on("error", () => client.destroy());
    readHead(client, (head, rest) => void handle(client, head, rest, patterns, options));
  });
  server.on("error", () => server.close());
  server.listen(listen);
  server.unref();
  return {
    server,
    close: () => {
      server.close();
    },
  };
}

/** Calls `done` with the request head (up to the blank line) and the bytes after it; ends the client on a head too large. */
function readHead(client: Socket, done: (head: string, rest: Buffer) => void): void {
  let buffered = Buffer.alloc(0);
  const onData = (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    const end = buffered.indexOf("\r\n\r\n");
    if (end === -1) {
      if (buffered.length > HEAD_LIMIT) answer(client, 431, "Plugboard: the request's head is too large for the egress proxy");
      return;
    }
    client.off("data", onData);
    client.pause();
    done(buffered.subarray(0, end).toString("latin1"), buffered.subarray(end + 4));
  };
  client.on("data", onData);
}

/** A request's target: where it goes, and how the proxy passes it on. */
interface Target {
  readonly method: string;
  readonly host: string;
  readonly port: number;
  /** A plain HTTP request's head as the server gets it; undefined for a tunnel. */
  readonly forwarded: string | undefined;
}

async function handle(
  client: Socket,
  head: string,
  rest: Buffer,
  patterns: readonly HostPattern[],
  options: EgressProxyOptions,
): Promise<void> {
  const ts = new Date().toISOString();
  const target = parseTarget(head);
  if (typeof target === "string") {
    answer(client, 400, `Plugboard: ${target}`);
    return;
  }
  const { method, host, port } = target;
  const shown = hostAndPort(host, port);
  const base = { ts, event: "network" as const, plugin: options.plugin, host, port, method };
  const deny = (reason: string) => {
    options.onConnection?.({ ...base, decision: "deny", reason });
    answer(client, 403, refusalText(shown, options.plugin));
  };
  const admitted = admission(patterns, host, port);
  if (admitted === undefined) {
    deny("not in the plugin's network list");
    return;
  }
  const rule = admitted.pattern.text;
  let address: string;
  try {
    address = await checkedAddress(host, admitted.literal, options.resolve ?? systemResolve);
  } catch (error) {
    if (error instanceof AddressRefused) deny(error.message);
    else {
      const reason = `${host} could not be resolved (${errorCode(error)})`;
      options.onConnection?.({ ...base, decision: "allow", rule, reason });
      answer(client, 502, `Plugboard: ${reason}`);
    }
    return;
  }
  const upstream = connect({ host: address, port });
  upstream.once("error", (error) => {
    const reason = `${shown} (${address}) could not be reached (${errorCode(error)})`;
    options.onConnection?.({ ...base, decision: "allow", rule, address, reason });
    answer(client, 502, `Plugboard: ${reason}`);
  });
  upstream.once("connect", () => {
    upstream.removeAllListeners("error");
    options.onConnection?.({ ...base, decision: "allow", rule, address });
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
    if (target.forwarded === undefined) client.write("HTTP/1.1 200 Connection established\r\n\r\n");
    else upstream.write(target.forwarded);
    if (rest.length > 0) upstream.write(rest);
    client.pipe(upstream);
    upstream.pipe(client);
    client.resume();
  });
}

/** The target of a proxy request's head, or why it is not one. */
function parseTarget(head: string): Target | string {
  const [line = "", ...headers] = head.split("\r\n");
  const match = /^([A-Z]+) (\S+) (HTTP\/1\.[01])$/.exec(line);
  if (match === null) return "the egress proxy takes HTTP/1.x proxy requests";
  const [, method = "", target = "", version = ""] = match;
  if (method === "CONNECT") {
    const at = /^(\[[^\]]+\]|[^:[\]]+):(\d{1,5})$/.exec(target);
    if (at === null) return `CONNECT needs HOST:PORT, got ${target}`;
    return { method, host: normalHost(at[1] ?? ""), port: Number(at[2]), forwarded: undefined };
  }
  if (!URL.canParse(target) || !target.startsWith("http://")) {
    return `the egress proxy forwards http:// URLs (and https through CONNECT), got ${target.slice(0, 200)}`;
  }
  const url = new URL(target);
  // The Host header is the admitted URL's own: a different one would reach another site served
  // from the same address (a shared host or CDN), which the list does not name.
  const kept = headers.filter((header) => !/^(?:host|proxy-connection|proxy-authorization|connection|keep-alive)\s*:/i.test(header));
  const forwarded = [`${method} ${url.pathname}${url.search} ${version}`, `Host: ${url.host}`, ...kept, "Connection: close", "", ""].join("\r\n");
  return { method, host: normalHost(url.hostname), port: url.port === "" ? 80 : Number(url.port), forwarded };
}

/** A resolved address the list does not cover. */
class AddressRefused extends Error {}

/**
 * The address to connect to for an admitted `host`: itself when it is an address, else its
 * first resolved address — every one of which must be public unless the host is listed
 * literally (one local answer among public ones is refused too: the next lookup could pick it).
 */
async function checkedAddress(host: string, literal: boolean, resolve: (host: string) => Promise<readonly string[]>): Promise<string> {
  const addresses = isIP(host) !== 0 ? [host] : await resolve(host);
  if (!literal) {
    for (const address of addresses) {
      const kind = localAddressKind(address);
      if (kind !== undefined) throw new AddressRefused(`${host} resolves to ${address}, a ${kind} address, which only a host listed by its exact name may reach`);
    }
  }
  const first = addresses[0];
  if (first === undefined) throw new Error("ENOTFOUND");
  return first;
}

function answer(client: Socket, status: 400 | 403 | 431 | 502, body: string): void {
  const reason = { 400: "Bad Request", 403: "Forbidden", 431: "Request Header Fields Too Large", 502: "Bad Gateway" }[status];
  const text = `${body}\n`;
  client.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`);
}

function errorCode(error: unknown): string {
  const code = error instanceof Error ? Reflect.get(error, "code") : undefined;
  return typeof code === "string" ? code : error instanceof Error ? error.message : String(error);
}
