/**
 * A plugin the app runs in its own process (the sandbox is off, or the entry says
 * `"sandbox": false`): loaded with the same loader a confined host uses, its tools offered as
 * a `ToolSource` whose calls run the plugin's own handlers here, through `runHandler`.
 */
import type { AnyToolDefinition, Logger, ToolContext, ToolResult, Workspace } from "@plugboard/core";
import { type RegistryEntry, runHandler, type ToolSource } from "@plugboard/core/internal";
import { loadPlugin } from "@plugboard/loader/load-plugin";
import type { ResolvedPlugin } from "@plugboard/loader/resolve-plugin";

/** Loads `resolved` into this process; throws the loader's `PlugboardError` naming the plugin. */
export async function openInProcess(resolved: ResolvedPlugin, context: { readonly workspace: Workspace; readonly logger: Logger }): Promise<ToolSource> {
  const { plugin, entries } = await loadPlugin(resolved, context);
  return new InProcessSource(plugin.name, entries.map(({ tool }) => tool));
}

/** A loaded plugin's tools: each entry is the plugin's own definition. */
class InProcessSource implements ToolSource {
  readonly owner: string;
  readonly entries: readonly RegistryEntry[];
  readonly #tools: ReadonlyMap<string, AnyToolDefinition>;

  constructor(owner: string, tools: readonly AnyToolDefinition[]) {
    this.owner = owner;
    this.#tools = new Map(tools.map((tool) => [tool.name, tool]));
    this.entries = tools.map((tool) => ({ tool, owner, source: this }));
  }

  async call(name: string, args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
    const tool = this.#tools.get(name);
    if (tool === undefined) throw new TypeError(`${this.owner} has no tool ${name}`);
    return runHandler(tool, args, ctx);
  }

  warm(): void {}

  async close(): Promise<void> {}
}
