/**
 * Serving a runtime's tools over MCP, on the SDK's 2.x server: tools/list from the registry
 * (JSON Schemas, output schemas and annotations), tools/call through `runtime.execute` (a
 * tool's structured result as `structuredContent` beside its text), so the runtime's
 * checks, policy and audit apply to every call exactly as they do to the model's. The same
 * server serves the newest revision (2026-07-28) and the 2025 ones.
 */
import { type CallToolResult, Server, type Tool, type ToolAnnotations } from "@modelcontextprotocol/server";
import type { ExecuteOptions, ToolRuntime } from "@plugboard/runtime";
import packageJson from "../package.json" with { type: "json" };

export interface ServeOptions {
  /** The annotations of a tool (see `annotationsFor`); none when absent. */
  readonly annotations?: (tool: string) => ToolAnnotations | undefined;
  /** Passed to every `runtime.execute` besides the call id and signal. */
  readonly callOptions?: Omit<ExecuteOptions, "callId" | "signal">;
}

/**
 * Hints for MCP clients from the permissions granted to a tool's plugin: without `fs.write`
 * or `process.spawn` a tool only reads; with either it may change things; with `network`
 * it reaches outside the machine.
 *
 * @example annotationsFor(["fs.read"]) // { readOnlyHint: true, destructiveHint: false, openWorldHint: false }
 */
export function annotationsFor(permissions: readonly string[]): ToolAnnotations {
  const changes = permissions.includes("fs.write") || permissions.includes("process.spawn");
  return { readOnlyHint: !changes, destructiveHint: changes, openWorldHint: permissions.includes("network") };
}

/** Makes the servers of one runtime: the tool list is built once, each server is cheap. */
export type ServerFactory = (ended?: AbortSignal) => Server;

/**
 * A factory of MCP servers (the SDK's) whose tools are `runtime`'s; connect one to any
 * transport, or give the factory to the SDK's serving entries. A server's calls end when
 * the client cancels them, and all of them when `ended` aborts.
 *
 * @example const server = mcpServerFactory(app.runtime)(); await server.connect(transport);
 */
export function mcpServerFactory(runtime: ToolRuntime, options: ServeOptions = {}): ServerFactory {
  const outputSchemas = new Map<string, Tool["outputSchema"]>();
  const tools: Tool[] = runtime.schemas().map(({ function: fn }) => {
    const annotations = options.annotations?.(fn.name);
    const declared = runtime.registry.get(fn.name)?.tool.outputSchema;
    // A plain JSON copy: TypeBox's symbol keys never reach the wire.
    const outputSchema = declared === undefined ? undefined : { ...JSON.parse(JSON.stringify(declared)), type: "object" as const };
    if (outputSchema !== undefined) outputSchemas.set(fn.name, outputSchema);
    return {
      name: fn.name,
      description: fn.description ?? "",
      inputSchema: { type: "object", ...fn.parameters },
      ...(outputSchema === undefined ? {} : { outputSchema }),
      ...(annotations ? { annotations } : {}),
    };
  });
  const listed = { tools };
  return (ended) => {
    const server = new Server({ name: "plugboard", version: packageJson.version }, { capabilities: { tools: {} } });
    server.setRequestHandler("tools/list", () => listed);
    server.setRequestHandler("tools/call", async ({ params }, ctx): Promise<CallToolResult> => {
      const signal = ctx.mcpReq.signal;
      const result = await runtime.execute(params.name, JSON.stringify(params.arguments ?? {}), {
        ...options.callOptions,
        callId: `mcp-${String(ctx.mcpReq.id)}`,
        signal: ended === undefined ? signal : AbortSignal.any([signal, ended]),
      });
      const served: CallToolResult = {
        content: [{ type: "text", text: result.content }],
        isError: result.isError,
        ...(result.structuredContent === undefined ? {} : { structuredContent: { ...result.structuredContent } }),
      };
      return server.projectCallToolResult(served, outputSchemas.get(params.name));
    });
    return server;
  };
}

/**
 * One MCP server whose tools are `runtime`'s (see `mcpServerFactory`).
 *
 * @example await mcpServerFor(app.runtime).connect(transport);
 */
export function mcpServerFor(runtime: ToolRuntime, options: ServeOptions = {}, ended?: AbortSignal): Server {
  return mcpServerFactory(runtime, options)(ended);
}
