/** Serving over stdio: until the client closes our stdin. */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { ToolRuntime } from "@plugboard/core";
import { mcpServerFor, type ServeOptions } from "./serve.ts";

/**
 * Serves `runtime` on this process's stdin and stdout; resolves when the client hangs up.
 * Nothing else may write to stdout meanwhile.
 */
export async function serveStdio(runtime: ToolRuntime, options: ServeOptions = {}): Promise<void> {
  const mcp = mcpServerFor(runtime, options);
  const ended = new Promise<void>((resolve) => {
    process.stdin.once("end", resolve);
    process.stdin.once("close", resolve);
  });
  await mcp.connect(new StdioServerTransport());
  await ended;
  await mcp.close();
}
