/**
 * The child process of `peakRssOfToolCall`: makes one tool call, then prints the result and
 * its own peak resident size as JSON. It loads only core, TypeBox and the plugin, so the peak
 * is the call's plus a bare runtime's.
 */
import { readFile } from "node:fs/promises";
import { pathToFileURL } from "node:url";
import type { Plugin } from "@plugboard/core";
// The kit's subpath, not its entry: the child loads nothing more than the call needs.
import { pluginRuntime } from "@plugboard/testing/plugin-runtime";
import type { ChildInput, ToolCallPeak } from "./peak-rss.ts";

if (import.meta.main) {
  const input = JSON.parse(process.argv[2] ?? "{}") as ChildInput;
  const plugin = ((await import(pathToFileURL(input.entry).href)) as { default: Plugin }).default;
  const { call } = await pluginRuntime(plugin, { root: input.root, options: input.options ?? {} });
  const result = await call(input.tool, input.args);
  const status = await readFile("/proc/self/status", "utf8").catch(() => "");
  const report: ToolCallPeak = { result, peakKb: Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) };
  process.stdout.write(JSON.stringify(report));
}
