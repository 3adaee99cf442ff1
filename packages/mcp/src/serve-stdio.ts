/** Serving over stdio: until the client closes our stdin. */
import type { Readable, Writable } from "node:stream";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { ToolRuntime } from "@plugboard/core/runtime";
import { mcpServerFor, type ServeOptions } from "./serve.ts";

export interface StdioServeOptions extends ServeOptions {
  /** @default process.stdin */
  readonly stdin?: Readable;
  /** Nothing else may write to it while serving. @default process.stdout */
  readonly stdout?: Writable;
  /** Stops serving when aborted (the app is shutting down). */
  readonly signal?: AbortSignal;
}

/**
 * Serves `runtime` on stdin and stdout; resolves when the client hangs up (closes stdin) or
 * `signal` aborts. Calls still running are cancelled then.
 *
 * @example await serveStdio(app.runtime);
 */
export async function serveStdio(runtime: ToolRuntime, options: StdioServeOptions = {}): Promise<void> {
  const { stdin = process.stdin, stdout = process.stdout } = options;
  const mcp = mcpServerFor(runtime, options);
  const ended = new Promise<void>((resolve) => {
    stdin.once("end", resolve);
    stdin.once("close", resolve);
    options.signal?.addEventListener("abort", () => resolve(), { once: true });
  });
  await mcp.connect(new StdioServerTransport(stdin, stdout));
  await ended;
  await mcp.close();
}
