/**
 * `checkPlugin`: hold one plugin folder to the conformance checks, the way an app would meet
 * it. First what needs nothing installed and runs no code (package.json, the manifest, the
 * names); then, when the plugin's dependencies are installed, the checks that run its code
 * (`code-checks.ts`): in child processes, never in the caller's.
 */
import { join } from "node:path";
import { readCheckInputs } from "./check-inputs.ts";
import { CHECK_IDS, type CheckId, type CheckResult, type ConformanceReport, result } from "./checks.ts";
import { codeChecks } from "./code-checks.ts";
import { installFix, missingDependencies } from "./installed.ts";
import { checkManifest } from "./manifest-check.ts";
import { checkPackage, readJson } from "./package-check.ts";
import { pluginFolder } from "./plugin-folder.ts";
import { skipped } from "./verdicts.ts";

/**
 * How to check a plugin; every field is optional. Each of the first five not given here is
 * taken from the plugin's `plugboard.check.json` (see `readCheckInputs`), which
 * `plugboard plugin check` reads too.
 */
export interface CheckPluginOptions {
  /** The plugin's options, as a config entry would give them. @default {} */
  readonly options?: unknown;
  /** More schema-valid arguments per tool that it should answer without throwing (an `Error:` result is fine). */
  readonly unfitInputs?: Readonly<Record<string, readonly Record<string, unknown>[]>>;
  /** Arguments per tool that keep it busy for a while, so the `abort` check sees it stop. */
  readonly slowInputs?: Readonly<Record<string, Record<string, unknown>>>;
  /** How long a call may take to settle once its signal aborts. @default 2000 */
  readonly abortWithinMs?: number;
  /** How long a call with unfit input may take. @default 10000 */
  readonly callTimeoutMs?: number;
  /**
   * The plugboard that runs the plugin confined (the `confined` check): the path of its
   * executable, or a command line such as `[process.execPath, "/path/to/apps/cli/src/main.ts"]`.
   * @default `$PLUGBOARD_BIN`, else `node_modules/.bin/plugboard` at or above the plugin, else `plugboard` on PATH
   */
  readonly plugboard?: string | readonly string[];
}

/** The checks that run the plugin's code, skipped together when it cannot run. */
const CODE_CHECKS: readonly CheckId[] = ["tools", "strict-schemas", "dialects", "invalid-arguments", "foreseeable-errors", "abort", "quiet", "permissions", "confined"];

/**
 * Runs every check over the plugin in `directory` (its package root) and reports each one.
 * Throws a `KitError` (`PLUGIN_NOT_FOUND`) when `directory` is not a folder.
 *
 * @example
 * const report = await checkPlugin(".", { slowInputs: { bash: { command: "sleep 30" } } });
 * if (!report.ok) console.error(formatReport(report));
 */
export async function checkPlugin(directory: string, given: CheckPluginOptions = {}): Promise<ConformanceReport> {
  const root = await pluginFolder(directory);
  const options: CheckPluginOptions = { ...(await readCheckInputs(root)), ...given };
  const { result: manifestResult, manifest } = await checkManifest(root);
  const results: Partial<Record<CheckId, CheckResult>> = { package: await checkPackage(root), manifest: manifestResult };
  const missing = manifest === undefined ? [] : await missingDependencies(root);
  if (manifest === undefined) skipRest(results, "the manifest is invalid, so no code ran");
  else if (missing.length > 0) {
    results.tools = notInstalled(root, missing);
    skipRest(results, "the plugin's dependencies are not installed");
  } else Object.assign(results, await codeChecks(root, manifest, options));
  const checks = CHECK_IDS.map((id) => results[id] ?? skipped(id, "not run"));
  return { directory: root, plugin: await pluginLabel(root), checks, ok: checks.every((check) => check.status !== "fail") };
}

/** Each code check not yet decided, skipped for `why`. */
function skipRest(results: Partial<Record<CheckId, CheckResult>>, why: string): void {
  for (const id of CODE_CHECKS) results[id] ??= skipped(id, why);
}

/** `tools` when the entry cannot load because the packages it needs are not installed: what to install. */
function notInstalled(root: string, missing: readonly string[]): CheckResult {
  const problem = `its dependencies are not installed: ${missing.join(", ")} (no node_modules/NAME in ${root} or any folder above it), so its entry cannot load`;
  return result("tools", "fail", [problem], { fix: installFix(root) });
}

/** `name@version` from package.json, else from the manifest. */
async function pluginLabel(root: string): Promise<string | undefined> {
  for (const file of ["package.json", "plugboard.plugin.json"]) {
    const json = await readJson(join(root, file));
    if (typeof json?.name === "string") return typeof json.version === "string" ? `${json.name}@${json.version}` : json.name;
  }
  return undefined;
}
