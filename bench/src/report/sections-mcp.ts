/** BENCHMARKS.md section 9 (MCP): what exactly is measured, and a reading of the figures. */
import { formatNumber as n } from "../harness/format.ts";
import { MCP_GROUP } from "../mcp/mcp.ts";
import { SERVED_LOAD_GROUP } from "../mcp/served-load.ts";
import type { FigureIndex } from "./lookup.ts";
import type { Section } from "./section.ts";

const mcpCalls: Section = {
  title: "9. MCP, both ways",
  groups: [MCP_GROUP],
  measured: () =>
    [
      "One call of a one-line `echo` tool (`{\"text\":\"hello\"}`), timed from the caller's side until its result is back,",
      "after warm-up calls on the same connection. The floor is `runtime.execute` with the tool in process. Mounted:",
      "the runtime calls the tool through `@plugboard/mcp`'s client adapter, on a child process serving it over stdio",
      "(Plugboard's own server adapter, so both sides are the official SDK) or on a Streamable HTTP server on loopback",
      "in the same process. Served: the SDK's own `Client.callTool` on `plugboard mcp`'s server adapter, over stdio (a",
      "child process) or Streamable HTTP (stateless, loopback). The 1-minute load average at the start and end of the",
      "suite is in the table: this machine is shared, and a busy machine inflates every row. `bun run --cwd bench mcp`",
      "refreshes this section alone.",
    ].join(" "),
  reading: (index: FigureIndex) => {
    const value = (name: string) => index.value(MCP_GROUP, name);
    return [
      `A mounted stdio tool costs ${n(value("mounted, stdio server"))} µs per call against ${n(value("runtime.execute, the tool in process"))} µs in process: two JSON-RPC messages through two pipes and a second process's event loop, plus the JSON Schema check (Ajv) before the call. Over Streamable HTTP, a mounted call costs ${n(value("mounted, Streamable HTTP server"))} µs and a served one ${n(value("served over Streamable HTTP"))} µs: each is a loopback HTTP request, and the stateless server builds a fresh SDK server and transport for it, the price of letting any copy behind a load balancer answer. Next to what a model request takes (hundreds of milliseconds), either is noise; it matters only for tight loops of tool calls without a model.`,
    ];
  },
};

const servedLoadSection: Section = {
  title: "9b. MCP served over HTTP under load",
  groups: [SERVED_LOAD_GROUP],
  measured: () =>
    [
      "`plugboard mcp --http` as a real CLI process, with `read_file` as a config enables it (confined in its host where the",
      "sandbox works), called by 40 SDK clients at once, each calling `read_file` on a small file again as soon as it is",
      "answered, for 6 s after 1.5 s of warm-up; throughput is the calls answered per second, latency each call's from",
      "its client. Twice: 40 clients of the 1.x SDK (revision 2025-11-25: `initialize`, then one JSON answer per call)",
      "and 40 of the 2.x SDK (the newest revision, 2026-07-28). The clients run in the bench's process, on the same two",
      "cores as the server and its host: the figures are the whole machine's, not the server's alone. Goals: at least",
      "1,500 calls/s, p99 at most 60 ms.",
    ].join(" "),
  reading: (index: FigureIndex) => {
    const value = (name: string) => index.value(SERVED_LOAD_GROUP, name);
    const legacy = "1.x SDK clients (2025-11-25)";
    const current = "2.x SDK clients (2026-07-28)";
    return [
      `Now: ${n(value(`${legacy}: throughput`))} calls/s at p99 ${n(value(`${legacy}: p99 latency`))} ms with the 1.x clients, ${n(value(`${current}: throughput`))} calls/s at p99 ${n(value(`${current}: p99 latency`))} ms with the 2.x ones. Before the serving side moved to the 2.x SDK the same load gave about 790 calls/s at p99 121 ms. On the 2.x SDK, with Hono in front, it gave 1,458 calls/s (p99 77 ms) and 1,263 calls/s (p99 103 ms), load average 4.7–5.9. A CPU profile of the served process (bun --cpu-prof-md) put a quarter of its time in Hono's router (its \`add\`, on every request) and the rest in the SDK's message validation (zod), stream plumbing and the call itself; the guards (Host or bearer token, Origin, Content-Type, body bound) are now a few header checks in line, the token compared as SHA-256 digests with timingSafeEqual instead of an async subtle-crypto digest per request, and a body with a Content-Length is read at once instead of chunk by chunk. That gave 2,240 calls/s (p99 75 ms) and 1,689 calls/s (p99 80 ms) at load average 5.6.`,
      `${[legacy, current].every((kind) => value(`${kind}: throughput`) >= 1500) ? "The throughput goal is met" : "The throughput goal is not met by both"}; the p99 goal is ${[legacy, current].every((kind) => value(`${kind}: p99 latency`) <= 60) ? "met" : "not"}, by the figures above (p50 ${n(value(`${legacy}: p50 latency`))} and ${n(value(`${current}: p50 latency`))} ms). The tail is the machine's: the 40 clients, the server and the confined host share two cores with whatever else runs, and a call that waits for a core waits a scheduler slice; the figures before this run were taken at a load average of 4.7–5.9 from other work, and there the p99 was 65–80 ms. What would lower it further: fewer allocations per request on the server (the SDK builds a server and transport per request, by design of stateless serving).`,
    ];
  },
};

/** Section 9. */
export const MCP_SECTIONS: readonly Section[] = [mcpCalls, servedLoadSection];
