/**
 * The client of the egress proxy's benchmark (egress.ts): `bun egress-client.ts ORIGIN_PORT
 * PROXY_PORT SAMPLES` fetches `/big` (1 MiB) and `/small` directly and through the proxy, each
 * on a new connection (`keepalive: false`), in turn, and prints each kind's times (ms) as JSON.
 */
const [originPort, proxyPort, count] = process.argv.slice(2).map(Number);
const proxy = `http://127.0.0.1:${proxyPort}`;
const kinds = {
  "big, direct": { path: "/big", proxy: undefined },
  "big, through the proxy": { path: "/big", proxy },
  "small, direct": { path: "/small", proxy: undefined },
  "small, through the proxy": { path: "/small", proxy },
} as const;
const times: Record<string, number[]> = {};

async function once(path: string, through: string | undefined): Promise<number> {
  const started = performance.now();
  const response = await fetch(`http://127.0.0.1:${originPort}${path}`, { keepalive: false, ...(through === undefined ? {} : { proxy: through }) });
  const body = await response.arrayBuffer();
  const elapsed = performance.now() - started;
  if (!response.ok || body.byteLength !== (path === "/big" ? 1024 * 1024 : 2)) throw new Error(`${path} through ${through ?? "nothing"}: ${response.status}, ${body.byteLength} bytes`);
  return elapsed;
}

// Warm-up: both paths, untimed.
for (const { path, proxy: through } of Object.values(kinds)) for (let i = 0; i < 5; i++) await once(path, through);
for (let sample = 0; sample < (count ?? 0); sample++) {
  // Alternate which path goes first, so neither always runs on a machine the other just warmed.
  const entries = Object.entries(kinds);
  for (const [name, { path, proxy: through }] of sample % 2 === 0 ? entries : entries.reverse()) {
    const elapsed = await once(path, through);
    times[name] = [...(times[name] ?? []), elapsed];
  }
}
process.stdout.write(JSON.stringify(times));
export {};
