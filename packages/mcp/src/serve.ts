/**
 * Serving a runtime's tools over MCP: tools/list from the registry (JSON Schemas and
 * annotations), tools/call through `runtime.execute`, so the runtime's checks, policy and
 * audit apply to every call exactly as they do to the model's.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { CallToolRequestSchema, type CallToolResult, ListToolsRequestSchema, type Tool, type ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { ExecuteOptions, ToolRuntime } from "@plugboard/core/runtime";
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

/**
 * An MCP server (the SDK's) whose tools are `runtime`'s; connect it to any transport. Its
 * calls end when the client cancels them, and all of them when `ended` aborts.
 *
 * @example await mcpServerFor(app.runtime).connect(new StdioServerTransport());
 */
export function mcpServerFor(runtime: ToolRuntime, options: ServeOptions = {}, ended?: AbortSignal): McpServer {
  const mcp = new McpServer({ name: "plugboard", version: packageJson.version }, { capabilities: { tools: {} } });
  const tools: Tool[] = runtime.schemas().map(({ function: fn }) => {
    const annotations = options.annotations?.(fn.name);
    return {
      name: fn.name,
      description: fn.description ?? "",
      inputSchema: { type: "object", ...fn.parameters },
      ...(annotations ? { annotations } : {}),
    };
  });
  mcp.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  mcp.server.setRequestHandler(CallToolRequestSchema, async ({ params }, extra): Promise<CallToolResult> => {
    const result = await runtime.execute(params.name, JSON.stringify(params.arguments ?? {}), {
      ...options.callOptions,
      callId: `mcp-${String(extra.requestId)}`,
      signal: ended === undefined ? extra.signal : AbortSignal.any([extra.signal, ended]),
    });
    return { content: [{ type: "text", text: result.content }], isError: result.isError };
  });
  return mcp;
}
