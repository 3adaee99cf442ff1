/**
 * The conformance harness: a child process `checkPlugin` starts with the path of a
 * `HarnessInput`. It watches for side effects, builds an app from a config that lists only
 * the plugin under test (through the real bootstrap), runs the call-based checks when asked,
 * writes a `HarnessReport` and exits. In `tools` mode (`syncManifest`) it only lists the
 * tools the plugin's code returns. It never writes to stdout itself, so anything there came
 * from the plugin.
 */
import { readFile, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { App } from "@plugboard/bootstrap";
import { runCallChecks, runConfinedCalls } from "./call-checks.ts";
import { codeTools } from "./code-tools.ts";
import type { HarnessInput, HarnessReport, LoadOutcome } from "./harness-protocol.ts";
import { type Plugboard, plugboardFor } from "./plugboard-for.ts";
import { observeSideEffects } from "./observe.ts";

if (import.meta.main) {
  const input = JSON.parse(await readFile(process.argv[2] ?? "", "utf8")) as HarnessInput;
  if (input.mode === "tools") {
    await writeFile(input.reportPath, JSON.stringify(await codeTools(input.pluginDir, input.options)));
    process.exit(0);
  }
  const observer = observeSideEffects();
  const plugboard = await plugboardFor(input.pluginDir);
  const { app, outcome } = await load(plugboard, input.configPath);
  // A refused tool list may only be out of date: what the code returns says so.
  const listed = !outcome.ok && outcome.code === "PLUGIN_TOOLS" ? await codeTools(input.pluginDir, input.options) : undefined;
  const calls = input.mode === "calls" && app ? await runCallChecks(plugboard.core, app, input, observer) : undefined;
  const refusals = input.mode === "confined" && app ? await runConfinedCalls(app, input) : undefined;
  // The confined host ends with its call: close it rather than leave it to notice the exit.
  if (input.mode === "confined") await app?.close();
  const report: HarnessReport = {
    load: outcome,
    effects: observer.effects,
    ...(listed ? { codeTools: listed } : {}),
    ...(calls ? { calls } : {}),
    ...(refusals ? { refusals } : {}),
  };
  await writeFile(input.reportPath, JSON.stringify(report));
  // A handler that ignored its abort may still be running: the report is all that matters now.
  process.exit(0);
}

/** Builds the app; a failure becomes the outcome (with the bootstrap's message), not a crash. */
async function load({ bootstrap }: Plugboard, configPath: string): Promise<{ app?: App; outcome: LoadOutcome }> {
  try {
    const app = await bootstrap.buildApp(await bootstrap.loadConfig(configPath, { env: {}, cwd: dirname(configPath) }));
    const [plugin] = app.plugins;
    if (!plugin) throw new Error(`the harness config lists no plugin: ${configPath}`);
    const tools = app.runtime.schemas().map(({ function: tool }) => ({ name: tool.name, description: tool.description ?? "", parameters: tool.parameters }));
    return { app, outcome: { ok: true, name: plugin.name, version: plugin.version, permissions: plugin.permissions, tools } };
  } catch (error) {
    // By shape: the plugin under test may bring its own copy of bootstrap.
    const code = error instanceof Error ? Reflect.get(error, "code") : undefined;
    if (error instanceof Error && error.name === "PlugboardError" && typeof code === "string") {
      return { outcome: { ok: false, code, message: error.message } };
    }
    // Past loading, only registering the tools (compiling their schemas) can still throw.
    const message = error instanceof Error ? error.message : String(error);
    return { outcome: { ok: false, code: "PLUGIN_TOOLS", message: `Registering the plugin's tools threw: ${message}\nGive each tool a TypeBox object schema the compiler accepts.` } };
  }
}
