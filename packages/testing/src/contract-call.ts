/**
 * One tool call as the contract promises it, with no app around it: the arguments (JSON text,
 * as a model sends them) parsed and checked by the registry's compiled schema (extra properties
 * refused), then the handler. A `ToolError` it throws (of any copy of core: the class is
 * recognised by its brand) becomes an `Error: …` result, its call's own abort "cancelled", and
 * anything else is a bug, thrown as the `PluginError` an app throws, naming the tool.
 */
import { errorResult, type ToolContext, ToolError, type ToolRegistry, type ToolResult } from "@plugboard/core";
import { isCancellation, PluginError, toolErrors } from "@plugboard/core/internal";

/**
 * Calls `name` in `registry` with `rawArguments`.
 *
 * @example await callTool(registry, "read_file", '{"path":"README.md"}', ctx)
 */
export async function callTool(registry: ToolRegistry, name: string, rawArguments: string, ctx: ToolContext): Promise<ToolResult> {
  const registered = registry.get(name);
  if (registered === undefined) return toolErrors.unknownTool(name, registry.names());
  let args: unknown;
  try {
    args = JSON.parse(rawArguments);
  } catch (error) {
    return toolErrors.invalidJson(error instanceof Error ? error.message : String(error));
  }
  if (typeof args !== "object" || args === null || Array.isArray(args)) return toolErrors.notAnObject();
  const problems = registered.validate(args);
  if (problems.length > 0) return toolErrors.invalidArguments(name, problems);
  let result: ToolResult;
  try {
    // Validated against the tool's own schema.
    result = await registered.tool.handler(args as Record<string, unknown>, ctx);
  } catch (error) {
    if (error instanceof ToolError) return errorResult(error.message);
    if (isCancellation(error, ctx.signal)) return toolErrors.cancelled();
    throw new PluginError({ tool: name, plugin: registered.owner, phase: "handler", cause: error });
  }
  const unlike = registered.checkOutput === undefined || result.isError ? [] : registered.checkOutput(result.structuredContent);
  if (unlike.length > 0) {
    const cause = new TypeError(`its structuredContent does not match its outputSchema: ${unlike.join("; ")}`);
    throw new PluginError({ tool: name, plugin: registered.owner, phase: "result", cause });
  }
  return result;
}
