/**
 * From what the harness observed to check results. When loading fails, what failed is the
 * `tools` check's problem, and the checks that need a loaded plugin are skipped.
 */
import { type CheckId, type CheckResult, failIfAny, result } from "./checks.ts";
import type { ConfinedOutcome, Refusal } from "./confined-run.ts";
import type { Finding, LoadOutcome, SideEffect } from "./harness-protocol.ts";
import type { HarnessRun } from "./run-harness.ts";
import { dialectLine, refusedNames } from "./dialect-lines.ts";
import { strictModeProblems } from "./strict-schema.ts";
import { changeLine, manifestDescription, type ToolLine, toolChanges } from "./tool-list.ts";

const DIED_FIX =
  "A plugin runs inside the app's process: never call process.exit, never block the event loop, and handle every promise it starts.";

/** Fixes for a plugin that did not load, by where it failed. */
const LOAD_FIXES: Readonly<Record<string, string>> = {
  import: "Fix the entry: importing it must not throw (do the work when the plugin's tools function or a handler runs).",
  export: "The entry's default export must be definePlugin({ options, tools }) from @plugboard/core.",
  options: 'Give every option a default in the options schema, or put the options to check with in "options" of plugboard.check.json.',
  tools: "Fix the plugin's tools function: it returns tool definitions made with defineTool, each name once, each parameters a TypeBox object schema.",
};

/** A loaded plugin's tools, as the harness reported them. */
export type Loaded = Extract<LoadOutcome, { ok: true }>;

/**
 * The `tools` check, and the loaded plugin when it loaded. `listed` is the manifest's tools:
 * when they are not the code's (names, order, or descriptions as `plugboard plugin sync`
 * writes them), `tools` fails with what sync would change.
 */
export function loadVerdict(run: HarnessRun, listed: readonly ToolLine[], root: string): { tools: CheckResult; loaded?: Loaded } {
  const load = run.report?.load;
  if (load === undefined) return { tools: result("tools", "fail", [died(run, "loading the plugin")], { fix: DIED_FIX }) };
  if (load.ok) return { tools: staleTools(listed, load.tools, root) ?? result("tools", "pass"), loaded: load };
  // The app's words for an entry that threw as it was imported; the others name what failed themselves.
  const problem = load.phase === "import" ? `importing its entry threw: ${load.detail}` : load.problem;
  const fix = LOAD_FIXES[load.phase];
  return { tools: result("tools", "fail", [problem], fix === undefined ? {} : { fix }) };
}

/** `strict-schemas`: `warn` with every reason, since strict mode is optional. */
export function strictVerdict(loaded: Loaded): CheckResult {
  const problems = loaded.tools.flatMap((tool) => strictModeProblems(tool.parameters).map((problem) => `${tool.name}: ${problem}`));
  if (problems.length === 0) return result("strict-schemas", "pass");
  return result("strict-schemas", "warn", problems, {
    notes: ["Plugboard validates every call itself; strict mode matters only to an app that sends tools with strict: true."],
  });
}

/** `dialects`: per tool, the dialects that take its schema as written and what each rewrite drops (notes); `warn` for a name a dialect refuses. */
export function dialectsVerdict(loaded: Loaded): CheckResult {
  const refused = loaded.tools.flatMap(refusedNames);
  return result("dialects", refused.length > 0 ? "warn" : "pass", refused, { notes: loaded.tools.map(dialectLine) });
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
 * anywhere else on the machine (absolute paths), which no permission allows.
 */
export function permissionsVerdict(
  declared: readonly string[],
  effects: readonly SideEffect[],
  files: readonly FileChange[],
  elsewhere: readonly FileChange[] = [],
  watchNotes: readonly string[] = [],
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
  const notes = [
    ...(has.has("process.spawn") && spawns.length === 0 ? ["asks for process.spawn but started no program during the checks"] : []),
    ...(has.has("network") && connections.length === 0 ? ["asks for network but opened no connection during the checks"] : []),
    ...(has.has("fs.write") && inside.length === 0 ? ["asks for fs.write but changed no file during the checks"] : []),
    ...watchNotes,
  ];
  return failIfAny("permissions", problems, notes);
}

/**
 * `confined`: the operations the kernel refused when the plugin ran confined with its grants
 * (`sandbox`, the check's folder, to show paths as the other checks do); or why it did not run.
 */
export function confinedVerdict(outcome: ConfinedOutcome, sandbox: string): CheckResult {
  if ("unavailable" in outcome) return notConfined(outcome.unavailable);
  if ("failed" in outcome) {
    return result("confined", "fail", [`plugboard did not serve the plugin confined: ${outcome.failed}`], {
      fix: "Fix what plugboard says; plugboard check with a config that lists the plugin shows the same.",
    });
  }
  const refused = [...new Set(outcome.refusals.map((refusal) => refusedOperation(refusal, sandbox)))];
  return failIfAny("confined", refused.map((operation) => `refused by the sandbox: ${operation}`));
}

/**
 * `open ../stray.txt (EACCES) (calling remember)` from a refused call's result, whose text
 * ends with the error (`EACCES: permission denied, open '/path'`); paths in the check's
 * folder are shown relative to the workspace, like its other findings.
 */
export function refusedOperation(refusal: Refusal, sandbox: string): string {
  const error = refusal.content.replace(/^Error: Refused by the sandbox \([^)]*\): /, "");
  const parts = /^(E[A-Z]+): [^,]*, (\w+) '([^']*)'/.exec(error);
  const relative = (path: string) =>
    path.startsWith(`${sandbox}/workspace/`) ? path.slice(`${sandbox}/workspace/`.length) : path.startsWith(`${sandbox}/`) ? `../${path.slice(sandbox.length + 1)}` : path;
  const operation = parts ? `${parts[2]} ${relative(parts[3] ?? "")} (${parts[1]})` : error.split("\n")[0];
  return `${operation} (calling ${refusal.tool})`;
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

/** `confined` skipped for `why`: the operations the grants do not cover were only observed. */
export function notConfined(why: string): CheckResult {
  return skipped("confined", `the plugin was not run confined, so operations its grants do not cover are only observed, not refused: ${why}`);
}

/** A check that could not run, and why. */
export function skipped(id: CheckId, why: string): CheckResult {
  return result(id, "skip", [why]);
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
