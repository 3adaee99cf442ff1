/** BENCHMARKS.md section 9 (MCP): what exactly is measured, and a reading of the figures. */
import { formatNumber as n } from "../harness/format.ts";
import { MCP_GROUP } from "../mcp/mcp.ts";
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

/** Section 9. */
export const MCP_SECTIONS: readonly Section[] = [mcpCalls];
