/**
 * Served under load: `plugboard mcp --http` (the real CLI process, `read_file` as the
 * config enables it: confined in its host where the sandbox works) called by 40 SDK clients
 * at once, each calling `read_file` again as soon as its last call answers, for a fixed
 * time. Throughput is calls answered per second; latency, each call's from the client's
 * side. Both clients of the SDK: the 1.x one (the 2025 revisions: `initialize`, then one
 * JSON answer per call) and the 2.x one (the newest revision, 2026-07-28).
 */
import { join } from "node:path";
import { Client as CurrentClient, StreamableHTTPClientTransport as CurrentTransport } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { FigureLog } from "../harness/figures.ts";
import type { RunMode } from "../harness/mode.ts";
import { REPO_ROOT } from "../harness/paths.ts";
import { withTempDir } from "../harness/temp.ts";

/** The group's name in every report. */
export const SERVED_LOAD_GROUP = "MCP served over HTTP, 40 clients, read_file";

const CLIENTS = 40;
const GOAL_CALLS_PER_S = 1500;
const GOAL_P99_MS = 60;

/** What one client kind needs: connect, and call `read_file` once. */
interface LoadClient {
  call(): Promise<void>;
  close(): Promise<void>;
}

const KINDS: readonly { readonly name: string; readonly connect: (url: URL) => Promise<LoadClient> }[] = [
  {
    name: "1.x SDK clients (2025-11-25)",
    connect: async (url) => {
      const client = new Client({ name: "bench", version: "1" });
      await client.connect(new StreamableHTTPClientTransport(url));
      return { call: () => checked(client.callTool({ name: "read_file", arguments: { path: "README.md" } })), close: () => client.close() };
    },
  },
  {
    name: "2.x SDK clients (2026-07-28)",
    connect: async (url) => {
      const client = new CurrentClient({ name: "bench", version: "2" }, { versionNegotiation: { mode: "auto" } });
      await client.connect(new CurrentTransport(url));
      return { call: () => checked(client.callTool({ name: "read_file", arguments: { path: "README.md" } })), close: () => client.close() };
    },
  },
];

async function checked(call: Promise<unknown>): Promise<void> {
  const result = (await call) as { isError?: boolean; content?: unknown };
  if (result.isError) throw new Error(`read_file failed: ${JSON.stringify(result.content)}`);
}

/** Measures throughput and latency for each client kind against one served process. */
export async function servedLoad(mode: RunMode, log: FigureLog): Promise<void> {
  const seconds = mode.quick ? 2 : 6;
  await withTempDir("served-load", async (dir) => {
    await Bun.write(join(dir, "workspace/README.md"), "# Served\n\nA file the bench reads again and again.\n");
    const config = join(dir, "plugboard.config.json");
    const plugins = [{ path: join(REPO_ROOT, "plugins/read-file"), permissions: ["fs.read"] }];
    await Bun.write(config, JSON.stringify({ workspace: "./workspace", plugins, policy: { default: "allow" } }));
    const child = Bun.spawn([process.execPath, join(REPO_ROOT, "apps/cli/src/main.ts"), "mcp", "--http", "--port", "0", "--config", config], {
      cwd: dir,
      stdin: "ignore",
      stdout: "ignore",
      stderr: "pipe",
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? dir },
    });
    try {
      const url = await servedUrl(child.stderr);
      for (const kind of KINDS) {
        mode.progress(`mcp served load: ${CLIENTS} ${kind.name}, ${seconds} s`);
        const clients = await Promise.all(Array.from({ length: CLIENTS }, () => kind.connect(url)));
        try {
          await drive(clients, mode.quick ? 0.5 : 1.5);
          const { calls, latencies } = await drive(clients, seconds);
          const sorted = latencies.sort((a, b) => a - b);
          const rate = calls / seconds;
          const p99 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? Number.NaN;
          const p50 = sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
          log.add({ group: SERVED_LOAD_GROUP, name: `${kind.name}: throughput`, value: rate, unit: "calls/s", note: `${calls} calls in ${seconds} s` });
          log.add({ group: SERVED_LOAD_GROUP, name: `${kind.name}: p50 latency`, value: p50, unit: "ms" });
          log.add({ group: SERVED_LOAD_GROUP, name: `${kind.name}: p99 latency`, value: p99, unit: "ms" });
          log.ratio(SERVED_LOAD_GROUP, `${kind.name}: throughput / goal (${GOAL_CALLS_PER_S} calls/s)`, rate, GOAL_CALLS_PER_S, { op: ">=", limit: 1 });
          log.ratio(SERVED_LOAD_GROUP, `${kind.name}: p99 / goal (${GOAL_P99_MS} ms)`, p99, GOAL_P99_MS, { op: "<=", limit: 1 });
        } finally {
          await Promise.all(clients.map((client) => client.close()));
        }
      }
    } finally {
      child.kill("SIGINT");
      await child.exited;
    }
  });
}

/** Every client calls again as soon as it is answered, for `seconds`; each call's latency in ms. */
async function drive(clients: readonly LoadClient[], seconds: number): Promise<{ calls: number; latencies: number[] }> {
  const latencies: number[] = [];
  const end = performance.now() + seconds * 1000;
  await Promise.all(
    clients.map(async (client) => {
      while (performance.now() < end) {
        const start = performance.now();
        await client.call();
        latencies.push(performance.now() - start);
      }
    }),
  );
  return { calls: latencies.length, latencies };
}

/** The URL the served process announces on stderr. */
async function servedUrl(stderr: ReadableStream<Uint8Array>): Promise<URL> {
  let text = "";
  const decoder = new TextDecoder();
  for await (const chunk of stderr) {
    text += decoder.decode(chunk, { stream: true });
    const found = text.match(/at (http:\/\/\S+\/mcp) /);
    if (found?.[1]) return new URL(found[1]);
  }
  throw new Error(`plugboard mcp --http never said where it serves: ${text}`);
}
