/**
 * What a narrowed `network` grant costs: a request through the app's egress proxy
 * (`serveEgressProxy`, in this process as in the app) against the same request made
 * directly, on loopback. The origin server and the client are processes of their own
 * (egress-origin.ts, egress-client.ts); each request opens a new connection, as the proxy
 * makes every plain HTTP request one. Figures: a 1 MiB download, and a two-byte answer, whose
 * difference through the proxy is what the proxy adds to each connection.
 */
import { fileURLToPath } from "node:url";
import { serveEgressProxy } from "../../../packages/sandbox/src/network/egress-proxy.ts";
import type { FigureLog } from "../harness/figures.ts";
import { summarize, timingFigure } from "../harness/measure.ts";
import type { RunMode } from "../harness/mode.ts";
import { runProcess } from "../harness/process.ts";
import { EGRESS_GROUP } from "./groups.ts";

const ORIGIN = fileURLToPath(new URL("./egress-origin.ts", import.meta.url));
const CLIENT = fileURLToPath(new URL("./egress-client.ts", import.meta.url));
/** The goals: a download at most 1.2 times as long, at most 1 ms added per connection. */
const DOWNLOAD_GOAL = 1.2;
const CONNECTION_GOAL_MS = 1;

/** Measures requests through the proxy and directly. */
export async function egress(mode: RunMode, log: FigureLog): Promise<void> {
  const { rounds, samples } = mode.quick ? { rounds: 2, samples: 20 } : { rounds: 5, samples: 60 };
  mode.progress(`sandbox: the egress proxy, ${rounds} rounds of ${samples} requests of each kind`);
  const origin = Bun.spawn([process.execPath, ORIGIN], { stdout: "pipe", stderr: "inherit" });
  try {
    const port = Number((await readLine(origin.stdout)).trim());
    const proxy = serveEgressProxy({ port: 0, host: "127.0.0.1" }, { plugin: "bench", network: [`127.0.0.1:${port}`] });
    try {
      await new Promise((resolve) => (proxy.server.listening ? resolve(undefined) : proxy.server.once("listening", resolve)));
      const address = proxy.server.address();
      if (address === null || typeof address === "string") throw new Error("the proxy does not listen");
      const pooled: Record<string, number[]> = {};
      for (let round = 0; round < rounds; round++) {
        const run = await runProcess([process.execPath, CLIENT, String(port), String(address.port), String(samples)], { capture: true });
        for (const [kind, values] of Object.entries(JSON.parse(run.stdout) as Record<string, number[]>)) pooled[kind] = [...(pooled[kind] ?? []), ...values];
      }
      const figure = (kind: string, name: string, note?: string) => log.add(timingFigure(EGRESS_GROUP, name, summarize(pooled[kind] ?? []), "ms", 1, note));
      const bigDirect = figure("big, direct", "1 MiB download, direct", "Bun's fetch to a local Bun.serve, a new connection each time");
      const bigProxied = figure("big, through the proxy", "1 MiB download, through the egress proxy", "an http:// request forwarded by the proxy, which connects to the address it checked");
      log.ratio(EGRESS_GROUP, "1 MiB download: through the proxy / direct", bigProxied, bigDirect, { op: "<=", limit: DOWNLOAD_GOAL });
      const smallDirect = figure("small, direct", "a two-byte answer on a new connection, direct");
      const smallProxied = figure("small, through the proxy", "a two-byte answer on a new connection, through the egress proxy", "the client's connection to the proxy, its check of the host, its connection to the origin");
      const added = log.add({ group: EGRESS_GROUP, name: "added per connection by the proxy (difference of medians)", value: smallProxied - smallDirect, unit: "ms" });
      log.ratio(EGRESS_GROUP, "added per connection / 1 ms", added, CONNECTION_GOAL_MS, { op: "<=", limit: 1 });
    } finally {
      proxy.close();
    }
  } finally {
    origin.kill();
    await origin.exited;
  }
}

async function readLine(stream: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stream.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return text;
}
