/**
 * Suite 8 — MCP: what one tool call costs through the protocol, both ways. Mounted: our
 * runtime calls a tool of an MCP server (a child process over stdio, or Streamable HTTP on
 * loopback) through the client adapter. Served: the SDK's own `Client` calls our runtime
 * through `plugboard mcp`'s server adapter. The tool is the same one-line echo everywhere,
 * and the in-process call is the floor.
 */
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolRegistry } from "@plugboard/core";
import { ToolRuntime } from "@plugboard/runtime";
import { McpMount, mcpHttpHandler } from "@plugboard/mcp";
import type { FigureLog } from "../harness/figures.ts";
import { type Timing, timeRuns, timingFigure } from "../harness/measure.ts";
import type { RunMode } from "../harness/mode.ts";
import { echoRuntime } from "./echo-runtime.ts";
import { servedLoad } from "./served-load.ts";

/** The group's name in every report. */
export const MCP_GROUP = "MCP, one echo call";

const CHILD = fileURLToPath(new URL("./serve-child.ts", import.meta.url));
const ARGS = '{"text":"hello"}';

/** Measures the five rows and the overheads over the in-process call. */
export async function mcp(mode: RunMode, log: FigureLog): Promise<void> {
  const loadAtStart = loadavg()[0] ?? Number.NaN;
  const count = { samples: mode.quick ? 100 : 500, warmup: mode.quick ? 20 : 100 };
  const us = (name: string, timing: Timing, note?: string) => log.add(timingFigure(MCP_GROUP, name, timing, "µs/call", 1e3, note));
  const local = await echoRuntime();
  const http = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: mcpHttpHandler(local) });
  const url = `http://127.0.0.1:${http.port}/mcp`;
  const stdioMount = await McpMount.open({ name: "echo", server: { command: process.execPath, args: [CHILD] } });
  const httpMount = await McpMount.open({ name: "echo", server: { url } });
  const stdioClient = new Client({ name: "bench", version: "1" });
  await stdioClient.connect(new StdioClientTransport({ command: process.execPath, args: [CHILD], stderr: "ignore" }));
  const httpClient = new Client({ name: "bench", version: "1" });
  await httpClient.connect(new StreamableHTTPClientTransport(new URL(url)));
  try {
    mode.progress("mcp: the in-process call, then mounted and served calls");
    const floor = us("runtime.execute, the tool in process", await timeRuns(() => local.execute("echo", ARGS), count));
    const mounted = async (mount: McpMount) => {
      const runtime = new ToolRuntime(new ToolRegistry(mount.entries), { workspace: local.workspace });
      const result = await runtime.execute("echo", ARGS);
      if (result.content !== "hello") throw new Error(`mounted echo answered ${result.content}`);
      return timeRuns(() => runtime.execute("echo", ARGS), count);
    };
    const served = async (client: Client) => {
      const result = await client.callTool({ name: "echo", arguments: { text: "hello" } });
      if (result.isError) throw new Error(`served echo failed: ${JSON.stringify(result)}`);
      return timeRuns(() => client.callTool({ name: "echo", arguments: { text: "hello" } }), count);
    };
    const rows = [
      us("mounted, stdio server (child process)", await mounted(stdioMount), "runtime.execute → client adapter → child's stdin/stdout → SDK server"),
      us("mounted, Streamable HTTP server (loopback)", await mounted(httpMount), "one POST per call; the stateless server builds a server and transport per request"),
      us("served over stdio (plugboard's server in a child)", await served(stdioClient), "the SDK's Client.callTool → our server adapter → runtime.execute"),
      us("served over Streamable HTTP (loopback, stateless)", await served(httpClient), "the SDK's Client.callTool → Bun.serve → our guards → the SDK's handler → our server adapter"),
    ];
    for (const [index, name] of ["mounted stdio", "mounted HTTP", "served stdio", "served HTTP"].entries()) {
      log.ratio(MCP_GROUP, `${name} / in process`, rows[index] ?? Number.NaN, floor);
    }
    // The machine is shared: the load during these rows says how far to trust them.
    log.add({ group: MCP_GROUP, name: "1-minute load average, start of the suite", value: loadAtStart, unit: "" });
    log.add({ group: MCP_GROUP, name: "1-minute load average, end of the suite", value: loadavg()[0] ?? Number.NaN, unit: "" });
  } finally {
    await Promise.all([stdioMount.close(), httpMount.close(), stdioClient.close(), httpClient.close()]);
    await http.stop(true);
  }
  await servedLoad(mode, log);
}
