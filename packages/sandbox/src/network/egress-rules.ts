/**
 * What a narrowed `network` grant admits, as the egress proxy (egress-proxy.ts) decides it:
 * the config's host patterns — an exact name (`api.example.com`), `*.domain` for its
 * subdomains only (never the bare domain), either with an optional `:PORT` that pins the
 * port — and the addresses a name may lead to. A name that resolves to a loopback,
 * link-local, private, shared (CGNAT) or cloud-metadata address is admitted only when the
 * config lists that name literally (`localhost:4873`): a public-looking pattern such as
 * `*.example.com` must not become a way into the machine's or the network's own services.
 */
import { lazilySync } from "@plugboard/core/internal";

/**
 * The reason of a refusal that a host added to the plugin's `network` list would admit (others:
 * an address it may not reach). Here, not in egress-proxy.ts, so that what reads the refusals
 * (network-refusals.ts, in every app) does not load the proxy and `node:net` with them.
 */
export const NOT_LISTED = "not in the plugin's network list";

/** One entry of a config's `"network"` list, parsed. */
export interface HostPattern {
  /** As the config writes it. */
  readonly text: string;
  /** Lower case, without brackets or a trailing dot; for `*.domain`, the domain. */
  readonly host: string;
  readonly subdomains: boolean;
  /** The only port admitted; undefined: any. */
  readonly port: number | undefined;
}

/** The form of a pattern: `[*.]name` or an IPv6 literal in brackets, then an optional `:PORT`. */
const PATTERN = /^(\*\.)?(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*\.?)(?::(\d{1,5}))?$/;

/**
 * `node:net`'s `isIP` (0, 4 or 6), the module required on the first use: loading `node:net`
 * costs a Bun process about 10 ms of CPU, and an app whose config narrows no plugin's
 * network (`plugboard tools` with the shipped config) never needs it.
 */
function isIP(text: string): number {
  return lazilySync("node:net", () => require("node:net") as typeof import("node:net")).isIP(text);
}

/** `host:port`, an IPv6 address in brackets, as refusals and records show it. */
export function hostAndPort(host: string, port: number): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}

/** Why `text` is not a host pattern, or undefined when it is one. */
export function patternProblem(text: string): string | undefined {
  const match = PATTERN.exec(text);
  if (match === null) return `expected a host such as api.example.com, *.github.com or localhost:4873, got ${JSON.stringify(text)}`;
  const [, wildcard, host = "", port] = match;
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) return `expected a port from 1 to 65535 in ${JSON.stringify(text)}`;
  if (host.startsWith("[") && isIP(host.slice(1, -1)) !== 6) return `expected an IPv6 address in the brackets of ${JSON.stringify(text)}`;
  if (wildcard !== undefined && isIP(unbracketed(host)) !== 0) return `"*." goes before a domain name, not an address, in ${JSON.stringify(text)}`;
  return undefined;
}

/** Parses a config's pattern; throws on one the config should have refused (`patternProblem`). */
export function parsePattern(text: string): HostPattern {
  const problem = patternProblem(text);
  const match = PATTERN.exec(text);
  if (problem !== undefined || match === null) throw new Error(`not a host pattern: ${problem ?? text}`);
  const [, wildcard, host = "", port] = match;
  return { text, host: normalHost(host), subdomains: wildcard !== undefined, port: port === undefined ? undefined : Number(port) };
}

/** A requested host as patterns compare it: lower case, without brackets or a trailing dot. */
export function normalHost(host: string): string {
  return unbracketed(host).toLowerCase().replace(/\.$/, "");
}

function unbracketed(host: string): string {
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
}

/** How a request matched the list: by which pattern, and whether it names the host literally (not through `*.`). */
export interface Admission {
  readonly pattern: HostPattern;
  readonly literal: boolean;
}

/** The first pattern admitting `host` (normalised) on `port`, a literal one first; undefined when none does. */
export function admission(patterns: readonly HostPattern[], host: string, port: number): Admission | undefined {
  const name = normalHost(host);
  const fits = (pattern: HostPattern) => pattern.port === undefined || pattern.port === port;
  const literal = patterns.find((pattern) => !pattern.subdomains && pattern.host === name && fits(pattern));
  if (literal !== undefined) return { pattern: literal, literal: true };
  const wildcard = patterns.find((pattern) => pattern.subdomains && name.endsWith(`.${pattern.host}`) && fits(pattern));
  return wildcard === undefined ? undefined : { pattern: wildcard, literal: false };
}

/** A resolved address the list does not cover. */
export class AddressRefused extends Error {}

/**
 * The address to connect to for an admitted `host`: itself when it is an address (at once),
 * else its first resolved address — every one of which must be public unless the host is
 * listed literally (one local answer among public ones is refused too: the next lookup
 * could pick it). Throws (or rejects with) `AddressRefused` for an address the list does not cover.
 */
export function checkedAddress(host: string, literal: boolean, resolve: (host: string) => Promise<readonly string[]>): string | Promise<string> {
  if (isIP(host) !== 0) return firstCovered(host, [host], literal);
  return resolve(host).then((addresses) => firstCovered(host, addresses, literal));
}

function firstCovered(host: string, addresses: readonly string[], literal: boolean): string {
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

/**
 * Why `address` (an IP address, either family) belongs to the machine or its network rather
 * than to the internet — loopback, unspecified, link-local (169.254.169.254, the metadata
 * service of most clouds, included), private, shared address space (CGNAT; Alibaba's
 * 100.100.100.200), IETF protocol assignments (Oracle's 192.0.0.192), multicast, reserved,
 * IPv6 unique-local (AWS's fd00:ec2::254) and site-local — or undefined for a public
 * address. An IPv4 address carried in IPv6 (mapped `::ffff:a.b.c.d`, compatible `::a.b.c.d`,
 * NAT64 `64:ff9b::a.b.c.d`) is judged as the IPv4 address it carries.
 */
export function localAddressKind(address: string): string | undefined {
  const family = isIP(address);
  if (family === 4) return ipv4Kind(ipv4Bytes(address));
  if (family !== 6) throw new Error(`not an IP address: ${address}`);
  const groups = ipv6Groups(address);
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = groups;
  const embedded = [g6 >> 8, g6 & 0xff, g7 >> 8, g7 & 0xff];
  const zeroPrefix = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0;
  if (zeroPrefix && g5 === 0 && g6 === 0 && g7 <= 1) return g7 === 1 ? "loopback" : "unspecified";
  if (zeroPrefix && (g5 === 0xffff || g5 === 0)) return ipv4Kind(embedded);
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return ipv4Kind(embedded);
  if ((g0 & 0xffc0) === 0xfe80) return "link-local";
  if ((g0 & 0xffc0) === 0xfec0) return "site-local";
  if ((g0 & 0xfe00) === 0xfc00) return "unique-local (private)";
  if ((g0 & 0xff00) === 0xff00) return "multicast";
  return undefined;
}

function ipv4Kind([a = 0, b = 0, c = 0]: readonly number[]): string | undefined {
  if (a === 127) return "loopback";
  if (a === 0) return "unspecified";
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return "private";
  if (a === 169 && b === 254) return "link-local (cloud metadata)";
  if (a === 100 && b >= 64 && b <= 127) return "shared address space (CGNAT)";
  if (a === 192 && b === 0 && c === 0) return "IETF protocol assignments";
  if (a === 198 && (b === 18 || b === 19)) return "benchmarking";
  if (a >= 224) return a >= 240 ? "reserved" : "multicast";
  return undefined;
}

function ipv4Bytes(address: string): number[] {
  return address.split(".").map(Number);
}

/** The eight 16-bit groups of an IPv6 address (`isIP` already said it is one). */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase().replace(/%.*$/, "");
  // A dotted IPv4 tail becomes its two groups.
  const tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (tail !== null) {
    const [a = 0, b = 0, c = 0, d = 0] = tail.slice(1).map(Number);
    text = `${text.slice(0, tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", rest] = text.split("::");
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((group) => Number.parseInt(group, 16)));
  const first = parse(head);
  if (rest === undefined) return first;
  const last = parse(rest);
  return [...first, ...new Array<number>(8 - first.length - last.length).fill(0), ...last];
}
