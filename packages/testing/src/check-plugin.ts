/**
 * `checkPlugin`: hold one plugin folder to the conformance checks, the way an app would meet
 * it. The plugin's code runs only in child processes (the harness), in a temp sandbox whose
 * files are compared before and after; the caller's process imports none of it.
 */
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { detectMechanism } from "@plugboard/sandbox";
import { CHECK_IDS, type CheckId, type CheckResult, type ConformanceReport, result } from "./checks.ts";
import type { AppInput, Refusal } from "./harness-protocol.ts";
import { installFix, missingDependencies } from "./installed.ts";
import { readCheckInputs } from "./check-inputs.ts";
import { checkPackage, readJson } from "./package-check.ts";
import { pluginFolder } from "./plugin-folder.ts";
import { type HarnessRun, runHarness } from "./run-harness.ts";
import { changes, snapshot } from "./snapshot.ts";
import { listedTools } from "./tool-list.ts";
import { type FileChange, callVerdicts, loadVerdicts, permissionsVerdict, quietVerdict, skipped, strictVerdict } from "./verdicts.ts";
import { watchWrites, writeWatchUnavailable } from "./write-watch.ts";

/**
 * How to check a plugin; every field is optional. Each one not given here is taken from the
 * plugin's `plugboard.check.json` (see `readCheckInputs`), which `plugboard plugin check` reads too.
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
}

/** The files the sandbox workspace starts with; `UNFIT_TEXTS` name some of them. */
const WORKSPACE_FILES: Readonly<Record<string, string>> = {
  "README.md": "# Conformance workspace\n\nA small project for the checks to work in.\n",
  "docs/guide.md": "# Guide\n\nLine one.\nLine two.\n",
};

/**
 * Runs every check over the plugin in `directory` (its package root) and reports each one.
 * Throws a `PlugboardError` (`PLUGIN_NOT_FOUND`) when `directory` is not a folder.
 *
 * @example
 * const report = await checkPlugin(".", { slowInputs: { bash: { command: "sleep 30" } } });
 * if (!report.ok) console.error(formatReport(report));
 */
export async function checkPlugin(directory: string, given: CheckPluginOptions = {}): Promise<ConformanceReport> {
  const root = await pluginFolder(directory);
  const options: CheckPluginOptions = { ...(await readCheckInputs(root)), ...given };
  const temp = await realpath(await mkdtemp(join(tmpdir(), "plugboard-check-")));
  try {
    const sandbox = join(temp, "sandbox");
    const workspace = join(sandbox, "workspace");
    const ioDir = join(temp, "io");
    await mkdir(ioDir);
    for (const [path, content] of Object.entries(WORKSPACE_FILES)) {
      await mkdir(dirname(join(workspace, path)), { recursive: true });
      await writeFile(join(workspace, path), content);
    }
    const configPath = join(ioDir, "plugboard.config.json");
    const entry = { path: root, permissions: await declaredPermissions(root), options: options.options ?? {} };
    // In this process, where the harness observes what the plugin does; grants are what it declares.
    await writeFile(configPath, JSON.stringify({ workspace, sandbox: "off", plugins: [entry] }));
    // In a plugin host the sandbox confines with the same grants, where the kernel refuses the rest.
    const confinedConfigPath = join(ioDir, "plugboard.confined.config.json");
    await writeFile(confinedConfigPath, JSON.stringify({ workspace, sandbox: "required", plugins: [entry] }));

    const input = (mode: AppInput["mode"]): AppInput => ({
      mode,
      pluginDir: root,
      options: entry.options,
      configPath: mode === "confined" ? confinedConfigPath : configPath,
      reportPath: join(ioDir, `${mode}-report.json`),
      unfitInputs: options.unfitInputs ?? {},
      slowInputs: options.slowInputs ?? {},
      callTimeoutMs: options.callTimeoutMs ?? 10_000,
      abortAfterMs: 100,
      abortWithinMs: options.abortWithinMs ?? 2000,
    });
    const place = { cwd: workspace, ioDir };
    const files: FileChange[] = [];
    const elsewhere: FileChange[] = [];
    const watched = async (mode: AppInput["mode"], timeoutMs: number): Promise<HarnessRun> => {
      const before = await snapshot(sandbox);
      const writes = await watchWrites();
      const run = await runHarness(input(mode), { ...place, timeoutMs });
      const during = mode === "load" ? "loading" : "calling its tools";
      files.push(...changes(before, await snapshot(sandbox)).map((found) => ({ ...found, during })));
      // The check's own folder is compared above; anything else written anywhere is outside the workspace.
      const outside = (writes?.stop(run.pid) ?? []).filter(({ path }) => !isInside(path, temp));
      elsewhere.push(...outside.map(({ path, operation }) => ({ path, change: operation, during })));
      if (writes?.lost) watchNotes.add("the kernel dropped some file events (its queue overflowed), so writes outside the check's folder may be missing");
      return run;
    };
    const unavailable = writeWatchUnavailable();
    const watchNotes = new Set(unavailable ? [`writes outside the check's own folder are not observed: ${unavailable}`] : []);

    /** The calls again, with the plugin confined by the sandbox: what the kernel refused, or why it did not run. */
    const confinedPass = async (tools: number): Promise<{ refusals: readonly Refusal[]; notes: string[] }> => {
      const mechanism = detectMechanism();
      if (!mechanism.available) return { refusals: [], notes: [`the plugin was not run confined, so operations its grants do not cover are only observed, not refused: this system lacks ${mechanism.missing}`] };
      const run = await runHarness(input("confined"), { ...place, timeoutMs: 60_000 + tools * 30_000 });
      if (run.report === undefined || !run.report.load.ok) {
        const why = run.report?.load.ok === false ? run.report.load.message.split("\n")[0] : run.timedOut ? "it did not finish in time" : `the process ended (exit code ${run.exitCode})`;
        return { refusals: [], notes: [`the confined run did not complete (${why}), so no refused operation is reported`] };
      }
      return { refusals: run.report.refusals ?? [], notes: [] };
    };

    const pkg = await checkPackage(root);
    const loading = await watched("load", 60_000);
    const listed = listedTools((await readJson(join(root, "plugboard.plugin.json")))?.tools);
    const { manifest, loaded, ...load } = loadVerdicts(loading, listed, root);
    // An entry that cannot import what it needs usually means nothing was installed yet.
    const missing = loaded === undefined && load.tools.status === "fail" ? await missingDependencies(root) : [];
    const tools = missing.length === 0 ? load.tools : notInstalled(root, missing);
    const results: Partial<Record<CheckId, CheckResult>> = { package: pkg, manifest, tools };
    if (loaded === undefined) {
      const why =
        manifest.status === "fail"
          ? "the manifest is invalid, so no code ran"
          : missing.length > 0
            ? "the plugin's dependencies are not installed"
            : "the plugin did not load";
      for (const id of ["strict-schemas", "invalid-arguments", "foreseeable-errors", "abort", "permissions"] as const) results[id] = skipped(id, why);
      results.quiet = manifest.status === "fail" ? skipped("quiet", why) : quietVerdict({ loading });
    } else {
      const calling = await watched("calls", 120_000 + loaded.tools.length * 60_000);
      results["strict-schemas"] = strictVerdict(loaded);
      const [invalid, foreseeable, abort] = callVerdicts(calling);
      Object.assign(results, { "invalid-arguments": invalid, "foreseeable-errors": foreseeable, abort });
      results.quiet = quietVerdict({ loading, calling });
      const effects = [...(loading.report?.effects ?? []), ...(calling.report?.effects ?? [])];
      const confined = await confinedPass(loaded.tools.length);
      const refused = confined.refusals.map((refusal) => refusedOperation(refusal, sandbox));
      results.permissions = permissionsVerdict(loaded.permissions, effects, files, elsewhere, [...watchNotes, ...confined.notes], refused);
    }
    const checks = CHECK_IDS.map((id) => results[id] ?? skipped(id, "not run"));
    return { directory: root, plugin: await pluginLabel(root), checks, ok: checks.every((check) => check.status !== "fail") };
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
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

/** The manifest's permissions and optionalPermissions (every permission when it cannot be read: its check fails anyway). */
async function declaredPermissions(root: string): Promise<string[]> {
  const manifest = await readJson(join(root, "plugboard.plugin.json"));
  if (manifest === undefined) return ["fs.read", "fs.write", "process.spawn", "network"];
  const lists = [manifest.permissions, manifest.optionalPermissions].filter(Array.isArray) as unknown[][];
  return lists.flat().filter((permission): permission is string => typeof permission === "string");
}

/** `tools` when the entry could not load because the packages it needs are not installed. */
function notInstalled(root: string, missing: readonly string[]): CheckResult {
  const problem = `its dependencies are not installed: ${missing.join(", ")} (no node_modules/NAME in ${root} or any folder above it), so its entry cannot load`;
  return result("tools", "fail", [problem], { fix: installFix(root) });
}

function isInside(path: string, folder: string): boolean {
  return path === folder || path.startsWith(`${folder}/`);
}

/** `name@version` from package.json, else from the manifest. */
async function pluginLabel(root: string): Promise<string | undefined> {
  for (const file of ["package.json", "plugboard.plugin.json"]) {
    const json = await readJson(join(root, file));
    if (typeof json?.name === "string") return typeof json.version === "string" ? `${json.name}@${json.version}` : json.name;
  }
  return undefined;
}
