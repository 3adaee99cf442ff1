/** Serving over stdio, on the SDK's 2.x entry (which picks the client's era): until the client closes our stdin. */
import type { Readable, Writable } from "node:stream";
import { StdioServerTransport, serveStdio as sdkServeStdio } from "@modelcontextprotocol/server/stdio";
import type { ToolRuntime } from "@plugboard/runtime";
import { mcpServerFactory, type ServeOptions } from "./serve.ts";

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
  const factory = mcpServerFactory(runtime, options);
  const ended = new Promise<void>((resolve) => {
    stdin.once("end", resolve);
    stdin.once("close", resolve);
    options.signal?.addEventListener("abort", () => resolve(), { once: true });
  });
  const handle = sdkServeStdio(() => factory(), { transport: new StdioServerTransport(stdin, stdout) });
  await ended;
  await handle.close();
}
