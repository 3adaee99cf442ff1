/**
 * What a narrowed `network` grant costs: requests through the app's egress proxy
 * (`serveEgressProxy`, in this process as in the app) against the same requests made
 * directly, on loopback. The origin server and the client are processes of their own
 * (egress-origin.ts, egress-client.ts); each request opens a new connection, as the proxy
 * makes every plain HTTP request one, and each connection's line is written to an audit log,
 * as the app does. Two figures, each with its goal: the relay, from a 64 MiB download (a
 * connection's set-up is lost in it, so what is left is the bytes' extra hop through the
 * proxy), and what the proxy adds to each connection, from many two-byte answers (the
 * difference of the medians).
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { openAuditLog } from "../../../packages/bootstrap/src/audit-log.ts";
import { serveEgressProxy } from "../../../packages/sandbox/src/network/egress-proxy.ts";
import type { FigureLog } from "../harness/figures.ts";
import { summarize, timingFigure } from "../harness/measure.ts";
import type { RunMode } from "../harness/mode.ts";
import { runProcess } from "../harness/process.ts";
import { withTempDir } from "../harness/temp.ts";
import { BIG_BYTES } from "./egress-origin.ts";
import { EGRESS_GROUP } from "./groups.ts";

const ORIGIN = fileURLToPath(new URL("./egress-origin.ts", import.meta.url));
const CLIENT = fileURLToPath(new URL("./egress-client.ts", import.meta.url));
/** The goals: the download at most 1.2 times as long through the proxy, at most 0.3 ms added per connection. */
const DOWNLOAD_GOAL = 1.2;
const CONNECTION_GOAL_MS = 0.3;

/** Measures requests through the proxy and directly. */
export async function egress(mode: RunMode, log: FigureLog): Promise<void> {
  const { rounds, big, small } = mode.quick ? { rounds: 2, big: 5, small: 100 } : { rounds: 5, big: 12, small: 300 };
  mode.progress(`sandbox: the egress proxy, ${rounds} client processes of ${big} 64 MiB downloads and ${small} two-byte answers each way`);
  const origin = Bun.spawn([process.execPath, ORIGIN], { stdout: "pipe", stderr: "inherit" });
  const pooled: Record<string, number[]> = {};
  try {
    const port = Number((await readLine(origin.stdout)).trim());
    await withTempDir("egress", async (folder) => {
      // Each connection's line goes to an audit log, as in an app that keeps one.
      const audit = openAuditLog(join(folder, "audit.jsonl"), join(folder, "plugboard.json"));
      const proxy = serveEgressProxy({ port: 0, host: "127.0.0.1" }, { plugin: "bench", network: [`127.0.0.1:${port}`], onConnection: audit.connection });
      try {
        if (proxy.port === undefined) throw new Error("the proxy does not listen");
        for (let round = 0; round < rounds; round++) {
          const run = await runProcess([process.execPath, CLIENT, String(port), String(proxy.port), String(big), String(small)], { capture: true });
          for (const [kind, values] of Object.entries(JSON.parse(run.stdout) as Record<string, number[]>)) pooled[kind] = [...(pooled[kind] ?? []), ...values];
        }
      } finally {
        proxy.close();
        audit.close();
      }
    });
  } finally {
    origin.kill();
    await origin.exited;
  }
  const figure = (kind: string, name: string, note?: string) => log.add(timingFigure(EGRESS_GROUP, name, summarize(pooled[kind] ?? []), "ms", 1, note));
  const mib = BIG_BYTES / 2 ** 20;
  const bigDirect = figure("/big, direct", `${mib} MiB download, direct`, "Bun's fetch to a local Bun.serve, a new connection each time, the body read as a stream");
  const bigProxied = figure("/big, through the proxy", `${mib} MiB download, through the egress proxy`, "an http:// request forwarded by the proxy, which connects to the address it checked, writes the audit line and relays the bytes");
  log.ratio(EGRESS_GROUP, `${mib} MiB download: through the proxy / direct`, bigProxied, bigDirect, { op: "<=", limit: DOWNLOAD_GOAL });
  log.add({ group: EGRESS_GROUP, name: "throughput, direct", value: mib / (bigDirect / 1000), unit: "MiB/s" });
  log.add({ group: EGRESS_GROUP, name: "throughput, through the egress proxy", value: mib / (bigProxied / 1000), unit: "MiB/s" });
  const smallDirect = figure("/small, direct", "a two-byte answer on a new connection, direct");
  const smallProxied = figure("/small, through the proxy", "a two-byte answer on a new connection, through the egress proxy", "the client's connection to the proxy, its check of the host, the audit line, its connection to the origin");
  const added = log.add({ group: EGRESS_GROUP, name: "added per connection by the proxy (difference of medians)", value: smallProxied - smallDirect, unit: "ms" });
  log.ratio(EGRESS_GROUP, `added per connection / ${CONNECTION_GOAL_MS} ms`, added, CONNECTION_GOAL_MS, { op: "<=", limit: 1 });
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
