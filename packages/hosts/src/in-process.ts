/**
 * The plugins the app runs in its own process (the sandbox is off, or the entry says
 * `"sandbox": false`): loaded with the same loader a confined host uses, served through the
 * same `PluginHost` interface.
 */
import type { AnyToolDefinition, Logger, TObject, ToolResult, Workspace } from "@plugboard/core";
import { runHandler } from "@plugboard/runtime";
import { loadPlugin } from "@plugboard/loader/load-plugin";
import type { ResolvedPlugin } from "@plugboard/loader/resolve-plugin";
import { concurrencyKind, type HostCall, type HostedPlugin, type PluginHost } from "./host.ts";

/** Loads `resolved` into this process; throws the loader's `PlugboardError` naming the plugin. */
export async function inProcessHost(resolved: ResolvedPlugin, context: { readonly workspace: Workspace; readonly logger: Logger }): Promise<PluginHost> {
  const { plugin, entries } = await loadPlugin(resolved, context);
  const tools = new Map<string, AnyToolDefinition>(entries.map(({ tool }) => [tool.name, tool]));
  const hosted: HostedPlugin = {
    plugin,
    tools: entries.map(({ tool }) => ({
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters as TObject,
      ...(tool.outputSchema === undefined ? {} : { outputSchema: tool.outputSchema }),
      concurrency: concurrencyKind(tool),
    })),
  };
  const toolNamed = (name: string): AnyToolDefinition => {
    const tool = tools.get(name);
    if (tool === undefined) throw new TypeError(`${plugin.name} has no tool ${name}`);
    return tool;
  };
  return {
    plugins: [hosted],
    call: (name: string, args: Record<string, unknown>, call: HostCall): Promise<ToolResult> =>
      runHandler(toolNamed(name), args, { workspace: context.workspace, logger: context.logger, ...call }),
    writes: async (name: string, args: Record<string, unknown>): Promise<string> => {
      const { concurrency } = toolNamed(name);
      if (typeof concurrency !== "object") throw new TypeError(`${name} does not name what it writes`);
      return concurrency.writes(args, context.workspace);
    },
    warm() {},
    async close() {},
  };
}
