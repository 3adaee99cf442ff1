/**
 * The child process of `peakRssOfToolCall`: makes one tool call, then prints the result and
 * its own peak resident size as JSON. It loads only core, TypeBox and the plugin, so the peak
 * is the call's plus a bare runtime's.
 */
import { readFile } from "node:fs/promises";
import { dirname } from "node:path";
import { pathToFileURL } from "node:url";
import type { ChildInput, ToolCallPeak } from "./peak-rss.ts";

/** What the child uses of `@plugboard/testing/plugin-runtime`. */
interface PluginRuntimeModule {
  pluginRuntime(plugin: unknown, place: { root: string; options: unknown; results?: ChildInput["results"] }): Promise<{
    call(tool: string, args: Readonly<Record<string, unknown>>): Promise<ToolCallPeak["result"]>;
  }>;
}

if (import.meta.main) {
  const input = JSON.parse(process.argv[2] ?? "{}") as ChildInput;
  const plugin = ((await import(pathToFileURL(input.entry).href)) as { default: unknown }).default;
  // The kit the plugin's tests use (its devDependency), and only its pluginRuntime subpath:
  // this package depends on no other, and the child loads nothing more than the call needs.
  const kit = Bun.resolveSync("@plugboard/testing/plugin-runtime", dirname(input.entry));
  const { pluginRuntime } = (await import(kit)) as PluginRuntimeModule;
  const { call } = await pluginRuntime(plugin, { root: input.root, options: input.options ?? {}, ...(input.results ? { results: input.results } : {}) });
  const result = await call(input.tool, input.args);
  const status = await readFile("/proc/self/status", "utf8").catch(() => "");
  const report: ToolCallPeak = { result, peakKb: Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) };
  process.stdout.write(JSON.stringify(report));
}
