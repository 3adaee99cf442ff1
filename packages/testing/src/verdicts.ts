/**
 * From what the harness observed to check results. When loading fails, the bootstrap's own
 * message (the one an app would print) is the problem, and the checks that need a loaded
 * plugin are skipped.
 */
import { type CheckId, type CheckResult, failIfAny, result } from "./checks.ts";
import type { Finding, LoadOutcome, SideEffect } from "./harness-protocol.ts";
import type { HarnessRun } from "./run-harness.ts";
import { strictModeProblems } from "./strict-schema.ts";
import { changeLine, manifestDescription, type ToolLine, toolChanges } from "./tool-list.ts";

/** Bootstrap error codes that mean the manifest (or its agreement with package.json) is wrong. */
const MANIFEST_CODES = new Set(["PLUGIN_MANIFEST", "PLUGIN_VERSION", "PLUGIN_CONTRACT", "PLUGIN_NOT_FOUND"]);

const DIED_FIX =
  "A plugin runs inside the app's process: never call process.exit, never block the event loop, and handle every promise it starts.";

/** A loaded plugin, as the harness reported it. */
export type Loaded = Extract<LoadOutcome, { ok: true }>;

/**
 * The `manifest` and `tools` checks, and the loaded plugin when it loaded. `listed` is the
 * manifest's tools: when they are not the code's (names, order, or descriptions as
 * `plugboard plugin sync` writes them), `tools` fails with what sync would change.
 */
export function loadVerdicts(run: HarnessRun, listed: readonly ToolLine[], root: string): { manifest: CheckResult; tools: CheckResult; loaded?: Loaded } {
  const load = run.report?.load;
  if (load === undefined) {
    return { manifest: result("manifest", "pass"), tools: result("tools", "fail", [died(run, "loading the plugin")], { fix: DIED_FIX }) };
  }
  if (load.ok) return { manifest: result("manifest", "pass"), tools: staleTools(listed, load.tools, root) ?? result("tools", "pass"), loaded: load };
  const code = run.report?.codeTools;
  const stale = load.code === "PLUGIN_TOOLS" && code?.ok ? staleTools(listed, code.tools, root) : undefined;
  if (stale) return { manifest: result("manifest", "pass"), tools: stale };
  const { problems, fix } = splitMessage(load.message);
  if (!MANIFEST_CODES.has(load.code)) return { manifest: result("manifest", "pass"), tools: result("tools", "fail", problems, { fix }) };
  const contractFix = 'Set "contract" to a semver range that includes the contract of the Plugboard you build against (e.g. ^1.0.0).';
  return {
    manifest: result("manifest", "fail", problems, { fix: load.code === "PLUGIN_CONTRACT" ? contractFix : fix }),
    tools: skipped("tools", "the manifest is invalid, so the entry was not loaded"),
  };
}

/** `strict-schemas`: `warn` with every reason, since strict mode is optional. */
export function strictVerdict(loaded: Loaded): CheckResult {
  const problems = loaded.tools.flatMap((tool) => strictModeProblems(tool.parameters).map((problem) => `${tool.name}: ${problem}`));
  if (problems.length === 0) return result("strict-schemas", "pass");
  return result("strict-schemas", "warn", problems, {
    notes: ["Plugboard validates every call itself; strict mode matters only to an app that sends tools with strict: true."],
  });
}

/** The three call-based checks, from the calls run. */
export function callVerdicts(run: HarnessRun): CheckResult[] {
  const calls = run.report?.calls;
  const ids: CheckId[] = ["invalid-arguments", "foreseeable-errors", "abort"];
  if (calls === undefined) return ids.map((id) => result(id, "fail", [died(run, "calling the tools")], { fix: DIED_FIX }));
  const findings: Finding[] = [calls.invalidArguments, calls.foreseeableErrors, calls.abort];
  return ids.map((id, index) => failIfAny(id, findings[index]?.problems ?? [], findings[index]?.notes ?? []));
}

/** `quiet`: nothing on stdout while loading or while the tools ran. */
export function quietVerdict(runs: { loading: HarnessRun; calling?: HarnessRun }): CheckResult {
  const problems: string[] = [];
  if (runs.loading.stdout !== "") problems.push(`printed while loading: ${quote(runs.loading.stdout)}`);
  if (runs.calling && runs.calling.stdout !== "") problems.push(`printed while its tools ran: ${quote(runs.calling.stdout)}`);
  return failIfAny("quiet", problems);
}

/** A file that plugin code created, changed or wrote: relative to the check's folder, or absolute when elsewhere. */
export interface FileChange {
  readonly path: string;
  readonly change: string;
  readonly during: string;
}

/**
 * `permissions`: every effect observed must be covered by the manifest's permissions. `files`
 * are changes in the check's folder (paths relative to it); `elsewhere`, files written
 * anywhere else on the machine (absolute paths), which no permission allows; `refused`, the
 * operations the kernel refused when the plugin ran confined with exactly those grants.
 */
export function permissionsVerdict(
  declared: readonly string[],
  effects: readonly SideEffect[],
  files: readonly FileChange[],
  elsewhere: readonly FileChange[] = [],
  watchNotes: readonly string[] = [],
  refused: readonly string[] = [],
): CheckResult {
  const has = new Set(declared);
  const problems: string[] = [];
  const spawns = effects.filter((effect) => effect.kind === "spawn");
  const connections = effects.filter((effect) => effect.kind === "network");
  const inside = files.filter((file) => file.path.startsWith("workspace/"));
  const outside = files.filter((file) => !file.path.startsWith("workspace/") && file.path !== "workspace");
  if (!has.has("process.spawn") && spawns.length > 0) problems.push(`started programs without asking for process.spawn: ${listEffects(spawns)}`);
  if (!has.has("network") && connections.length > 0) problems.push(`opened connections without asking for network: ${listEffects(connections)}`);
  if (!has.has("fs.write") && inside.length > 0) problems.push(`changed files without asking for fs.write: ${listFiles(inside.map((file) => shown(file, file.path.slice("workspace/".length))))}`);
  const beyond = [...outside.map((file) => shown(file, `../${file.path}`)), ...elsewhere.map((file) => shown(file, file.path))];
  if (beyond.length > 0) problems.push(`changed files outside the workspace: ${listFiles(beyond)}`);
  for (const operation of new Set(refused)) problems.push(`refused by the sandbox: ${operation}`);
  const notes = [
    ...(has.has("process.spawn") && spawns.length === 0 ? ["asks for process.spawn but started no program during the checks"] : []),
    ...(has.has("network") && connections.length === 0 ? ["asks for network but opened no connection during the checks"] : []),
    ...(has.has("fs.write") && inside.length === 0 ? ["asks for fs.write but changed no file during the checks"] : []),
    ...watchNotes,
  ];
  return failIfAny("permissions", problems, notes);
}

/** The fix for a manifest whose tools are not the code's. */
export function syncFix(root: string): string {
  return `Run plugboard plugin sync ${root.includes(" ") ? JSON.stringify(root) : root}: it writes each tool's name and the first sentence of its description, from the code, into plugboard.plugin.json.`;
}

/** `tools` failing with what `plugboard plugin sync` would change, or undefined when the manifest lists exactly the code's tools. */
function staleTools(listed: readonly ToolLine[], code: readonly ToolLine[], root: string): CheckResult | undefined {
  const changes = toolChanges(listed, code.map(({ name, description }) => ({ name, description: manifestDescription(description) })));
  if (changes.length === 0) return undefined;
  const problems = ["the manifest's tools are not the code's; plugboard plugin sync would change them:", ...changes.map((change) => `  ${changeLine(change)}`)];
  return result("tools", "fail", problems, { fix: syncFix(root) });
}

/** A check that could not run, and why. */
export function skipped(id: CheckId, why: string): CheckResult {
  return result(id, "skip", [why]);
}

/** A bootstrap message without its `config:` line (the check's own temp config): problem lines, then the fix. */
function splitMessage(message: string): { problems: string[]; fix: string | undefined } {
  const lines = message.split("\n").filter((line) => !line.trimStart().startsWith("config: "));
  const fix = lines.length > 1 ? lines.pop() : undefined;
  return { problems: lines.map((line) => line.trim()), fix };
}

function died(run: HarnessRun, doing: string): string {
  if (run.timedOut) return `${doing} did not finish in time: something blocks the event loop or never settles`;
  const tail = run.stderr.trim().split("\n").slice(-3).join(" | ");
  return `the process ended (exit code ${run.exitCode}) while ${doing}${tail ? `: ${tail}` : ""}`;
}

function listEffects(effects: readonly SideEffect[]): string {
  const distinct = [...new Set(effects.map((effect) => `${effect.detail} (${effect.during})`))];
  const shown = distinct.slice(0, 3);
  return distinct.length > 3 ? `${shown.join("; ")}; and ${distinct.length - 3} more` : shown.join("; ");
}

/** `created notes.txt (calling its tools)`. */
function shown(file: FileChange, path: string): string {
  return `${file.change} ${path} (${file.during})`;
}

function listFiles(files: readonly string[]): string {
  return files.length > 5 ? `${files.slice(0, 5).join(", ")}, and ${files.length - 5} more` : files.join(", ");
}

function quote(text: string): string {
  const trimmed = text.length > 200 ? `${text.slice(0, 200)}…` : text;
  return JSON.stringify(trimmed);
}
