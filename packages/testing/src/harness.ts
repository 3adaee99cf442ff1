/**
 * The conformance harness: a child process `checkPlugin` starts with the path of a
 * `HarnessInput`. It watches for side effects, loads the plugin through the contract with the
 * core the plugin resolves (`load-plugin.ts`), runs the call-based checks when asked, writes a
 * `HarnessReport` and exits. In `tools` mode (`syncManifest`) it only lists the tools the
 * plugin's code returns. It never writes to stdout itself, so anything there came from the plugin.
 */
import { readFile, writeFile } from "node:fs/promises";
import { runCallChecks } from "./call-checks.ts";
import type { HarnessInput, HarnessReport, LoadOutcome, ToolListing } from "./harness-protocol.ts";
import { isFailure, loadPlugin } from "./load-plugin.ts";
import { observeSideEffects } from "./observe.ts";

if (import.meta.main) {
  const input = JSON.parse(await readFile(process.argv[2] ?? "", "utf8")) as HarnessInput;
  if (input.mode === "tools") {
    const load = await loadPlugin(input.pluginDir, input.options, process.cwd());
    const listing: ToolListing = isFailure(load) ? { ok: false, problem: load.problem } : { ok: true, tools: load.tools.map(({ name, description }) => ({ name, description })) };
    await writeFile(input.reportPath, JSON.stringify(listing));
    process.exit(0);
  }
  const observer = observeSideEffects();
  const load = await loadPlugin(input.pluginDir, input.options, process.cwd(), input.name);
  const outcome: LoadOutcome = isFailure(load)
    ? { ok: false, phase: load.phase, problem: load.problem, detail: load.detail }
    : { ok: true, tools: load.registry.schemas().map(({ function: tool }) => ({ name: tool.name, description: tool.description ?? "", parameters: tool.parameters })) };
  const calls = input.mode === "calls" && !isFailure(load) ? await runCallChecks(load, input, observer) : undefined;
  const report: HarnessReport = {
    load: outcome,
    effects: observer.effects,
    ...(calls ? { calls: calls.findings, unfitCalls: calls.unfitCalls } : {}),
  };
  await writeFile(input.reportPath, JSON.stringify(report));
  // A handler that ignored its abort may still be running: the report is all that matters now.
  process.exit(0);
}
