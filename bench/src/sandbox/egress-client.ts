/**
 * The client of the egress proxy's benchmark (egress.ts): `bun egress-client.ts ORIGIN_PORT
 * PROXY_PORT BIG SMALL` fetches `/big` (64 MiB) BIG times and `/small` (two bytes) SMALL
 * times, each directly and through the proxy, on a new connection each time (`keepalive:
 * false`), direct and proxied in turn, and prints each kind's times (ms) as JSON. The big
 * answer's body is read as a stream and counted, not kept.
 */
import { BIG_BYTES } from "./egress-origin.ts";

const [originPort, proxyPort, bigCount, smallCount] = process.argv.slice(2).map(Number);
const proxy = `http://127.0.0.1:${proxyPort}`;
const times: Record<string, number[]> = {};

async function once(path: "/big" | "/small", through: string | undefined): Promise<number> {
  const started = performance.now();
  const response = await fetch(`http://127.0.0.1:${originPort}${path}`, { keepalive: false, ...(through === undefined ? {} : { proxy: through }) });
  let bytes = 0;
  for await (const chunk of response.body ?? []) bytes += chunk.byteLength;
  const elapsed = performance.now() - started;
  if (!response.ok || bytes !== (path === "/big" ? BIG_BYTES : 2)) throw new Error(`${path} through ${through ?? "nothing"}: ${response.status}, ${bytes} bytes`);
  return elapsed;
}

/** `count` samples of `path` each way, alternating which goes first. */
async function sample(path: "/big" | "/small", count: number): Promise<void> {
  const kinds = [
    [`${path}, direct`, undefined],
    [`${path}, through the proxy`, proxy],
  ] as const;
  // Warm-up: both ways, untimed.
  for (const [, through] of kinds) for (let i = 0; i < 3; i++) await once(path, through);
  for (let index = 0; index < count; index++) {
    for (const [name, through] of index % 2 === 0 ? kinds : [...kinds].reverse()) {
      const elapsed = await once(path, through);
      times[name] = [...(times[name] ?? []), elapsed];
    }
  }
}

await sample("/small", smallCount ?? 0);
await sample("/big", bigCount ?? 0);
process.stdout.write(JSON.stringify(times));
