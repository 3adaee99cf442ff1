/**
 * The egress proxy a narrowed `network` grant goes through, run by the app, outside the
 * sandbox: plain HTTP (a request with an absolute URL, forwarded with `Connection: close`,
 * so that each connection carries one request to one checked host) and HTTPS through
 * `CONNECT` (a byte tunnel: TLS is never terminated here). A request is admitted when the
 * host and port match the list (egress-rules.ts); the name is then resolved once, every
 * address is checked, and the proxy connects to the exact address it checked, so a DNS answer
 * that changes afterwards cannot widen the grant. A refusal is a 403 whose body names the
 * host and the plugin. Each connection, admitted or refused, is reported once (`onConnection`),
 * before any of its bytes pass, and the app writes it to its audit log. The bytes are relayed
 * by egress-relay.ts.
 */
import { lookup } from "node:dns/promises";
import { closeSync } from "node:fs";
import { AddressRefused, admission, checkedAddress, type HostPattern, hostAndPort, NOT_LISTED, normalHost, parsePattern } from "./egress-rules.ts";
import { Leg, link, relay, relayHandlers } from "./egress-relay.ts";

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
const HEAD_END = Buffer.from("\r\n\r\n");
const EMPTY = Buffer.alloc(0);


/** The refusal's body, as DESIGN.md words it. */
export function refusalText(host: string, plugin: string): string {
  return `Plugboard: network to ${host} is not granted to ${plugin} (add it to "network" in the config)`;
}

declare module "bun" {
  /** Serves on a listening socket's fd, which Bun takes over (Bun 1.4 does; its types do not list it yet). */
  function listen<Data = undefined>(options: FdSocketOptions<Data>): SocketListener<Data>;
}

/**
 * Serves the proxy on `listen`: the listening socket a confined process's confining step
 * handed over (`{ fd }`), or a loopback port (for measurements; `port` says which). Bun's
 * native sockets carry the connections (egress-relay.ts). The proxy does not keep the app
 * alive by itself.
 */
export function serveEgressProxy(listen: { readonly fd: number } | { readonly port: number; readonly host: string }, options: EgressProxyOptions): EgressProxy & { readonly port: number | undefined } {
  const context: ProxyContext = { options, patterns: options.network.map(parsePattern), upstream: upstreamHandlers(options) };
  const socket = clientHandlers(context);
  let listener: Bun.SocketListener<ClientLeg>;
  try {
    listener = "fd" in listen ? Bun.listen<ClientLeg>({ fd: listen.fd, socket, allowHalfOpen: true }) : Bun.listen<ClientLeg>({ hostname: listen.host, port: listen.port, socket, allowHalfOpen: true });
  } catch {
    // A listener Bun cannot serve: closed, so that the process's connections are refused rather than left waiting.
    if ("fd" in listen) closeSync(listen.fd);
    return { port: undefined, close: () => {} };
  }
  listener.unref();
  return { port: "port" in listener && typeof listener.port === "number" ? listener.port : undefined, close: () => listener.stop() };
}

/** What every connection of one proxy is checked against. */
interface ProxyContext {
  readonly options: EgressProxyOptions;
  readonly patterns: readonly HostPattern[];
  /** The upstream sockets' handlers, made once for every connection. */
  readonly upstream: Bun.SocketHandler<Leg>;
}

/** The client's socket: its request's head read first, then relayed once the target is checked and connected. */
class ClientLeg extends Leg {
  /** What the client sent before the relay began: its head, then what followed it. */
  received: Buffer = EMPTY;
  /** The head was read: what comes meanwhile waits in `received`. */
  checking = false;
  /** The client ended its side before the relay began. */
  ended = false;
  /** The admitted target and its record, from the check to the upstream's connection. */
  admitted: { readonly target: Target; readonly record: EgressRecord } | undefined;
}

function clientHandlers(context: ProxyContext): Bun.SocketHandler<ClientLeg> {
  return {
    open(socket) {
      socket.data = new ClientLeg(socket);
    },
    data(socket, chunk) {
      const leg = socket.data;
      if (leg.peer !== undefined) {
        relay(leg, chunk);
        return;
      }
      if (leg.closed || leg.finishing) return;
      leg.received = leg.received.byteLength === 0 ? chunk : Buffer.concat([leg.received, chunk]);
      if (leg.checking) return;
      const end = leg.received.indexOf(HEAD_END);
      if (end === -1) {
        if (leg.received.byteLength > HEAD_LIMIT) answer(leg, 431, "Plugboard: the request's head is too large for the egress proxy");
        return;
      }
      leg.checking = true;
      socket.pause();
      const head = leg.received.toString("latin1", 0, end);
      leg.received = leg.received.subarray(end + HEAD_END.byteLength);
      admit(leg, head, context);
    },
    drain: relayHandlers.drain,
    end(socket) {
      if (socket.data.peer === undefined) socket.data.ended = true;
      else relayHandlers.end(socket);
    },
    close: relayHandlers.close,
    error: relayHandlers.error,
  };
}

/** Checks the request's target; refuses it, or connects to the checked address. */
function admit(client: ClientLeg, head: string, { options, patterns, upstream }: ProxyContext): void {
  const ts = new Date().toISOString();
  const target = parseTarget(head);
  if (typeof target === "string") {
    answer(client, 400, `Plugboard: ${target}`);
    return;
  }
  const { method, host, port } = target;
  const base = { ts, event: "network" as const, plugin: options.plugin, host, port, method };
  const deny = (reason: string) => {
    options.onConnection?.({ ...base, decision: "deny", reason });
    answer(client, 403, refusalText(hostAndPort(host, port), options.plugin));
  };
  const admitted = admission(patterns, host, port);
  if (admitted === undefined) {
    deny(NOT_LISTED);
    return;
  }
  const rule = admitted.pattern.text;
  const connectTo = (address: string) => {
    client.admitted = { target, record: { ...base, decision: "allow", rule, address } };
    Bun.connect<Leg>({ hostname: address, port, data: client, allowHalfOpen: true, socket: upstream }).catch(() => {});
  };
  const failed = (error: unknown) => {
    if (error instanceof AddressRefused) {
      deny(error.message);
      return;
    }
    const reason = `${host} could not be resolved (${errorCode(error)})`;
    options.onConnection?.({ ...base, decision: "allow", rule, reason });
    answer(client, 502, `Plugboard: ${reason}`);
  };
  let checked: string | Promise<string>;
  try {
    checked = checkedAddress(host, admitted.literal, options.resolve ?? systemResolve);
  } catch (error) {
    failed(error);
    return;
  }
  if (typeof checked === "string") connectTo(checked);
  else checked.then(connectTo, failed);
}

/**
 * The upstream's socket: until it opens, its data is the client's leg (what to send and
 * record); from then on, its own leg, linked to the client's.
 */
function upstreamHandlers(options: EgressProxyOptions): Bun.SocketHandler<Leg> {
  return {
    ...relayHandlers,
    open(socket) {
      const client = socket.data;
      if (!(client instanceof ClientLeg) || client.admitted === undefined) return;
      const { target, record } = client.admitted;
      const upstream = new Leg(socket);
      socket.data = upstream;
      options.onConnection?.(record);
      link(client, upstream);
      if (target.forwarded === undefined) client.send(Buffer.from("HTTP/1.1 200 Connection established\r\n\r\n"));
      else upstream.send(Buffer.from(target.forwarded, "latin1"));
      upstream.send(client.received);
      client.received = EMPTY;
      if (client.ended || client.closed) upstream.finish();
      if (!client.closed) client.socket.resume();
    },
    connectError(socket, error) {
      const client = socket.data;
      if (!(client instanceof ClientLeg) || client.admitted === undefined) return;
      const { record } = client.admitted;
      const reason = `${hostAndPort(record.host, record.port)} (${record.address}) could not be reached (${errorCode(error)})`;
      options.onConnection?.({ ...record, reason });
      answer(client, 502, `Plugboard: ${reason}`);
    },
  };
}

/** A request's target: where it goes, and how the proxy passes it on. */
interface Target {
  readonly method: string;
  readonly host: string;
  readonly port: number;
  /** A plain HTTP request's head as the server gets it; undefined for a tunnel. */
  readonly forwarded: string | undefined;
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

/** Answers the client with `status` and `body`, and ends its side; what it sends afterwards is dropped. */
function answer(client: ClientLeg, status: 400 | 403 | 431 | 502, body: string): void {
  const reason = { 400: "Bad Request", 403: "Forbidden", 431: "Request Header Fields Too Large", 502: "Bad Gateway" }[status];
  const text = `${body}\n`;
  client.received = EMPTY;
  client.send(Buffer.from(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`));
  client.finish();
  client.socket.resume();
}

function errorCode(error: unknown): string {
  const code = error instanceof Error ? Reflect.get(error, "code") : undefined;
  return typeof code === "string" ? code : error instanceof Error ? error.message : String(error);
}
