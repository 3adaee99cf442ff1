/**
 * The checks that run a plugin's code, in a temp sandbox whose files are compared before and
 * after: the harness loads it, then calls its tools (child processes, each through the
 * contract, with the core the plugin resolves); then a `plugboard` it finds runs it confined
 * by the sandbox and makes the same calls again. The caller's process imports none of it.
 */
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { CheckPluginOptions } from "./check-plugin.ts";
import type { CheckId, CheckResult } from "./checks.ts";
import { runConfined } from "./confined-run.ts";
import { findPlugboard } from "./find-plugboard.ts";
import type { AppInput } from "./harness-protocol.ts";
import { declaredPermissions, type Manifest } from "./manifest-check.ts";
import { type HarnessRun, runHarness } from "./run-harness.ts";
import { changes, snapshot } from "./snapshot.ts";
import { callVerdicts, confinedVerdict, dialectsVerdict, type FileChange, loadVerdict, notConfined, permissionsVerdict, quietVerdict, skipped, strictVerdict } from "./verdicts.ts";
import { watchWrites, writeWatchUnavailable } from "./write-watch.ts";

/** The files the sandbox workspace starts with; `UNFIT_TEXTS` name some of them. */
const WORKSPACE_FILES: Readonly<Record<string, string>> = {
  "README.md": "# Conformance workspace\n\nA small project for the checks to work in.\n",
  "docs/guide.md": "# Guide\n\nLine one.\nLine two.\n",
};

/** What the checks say when they could not run the plugin's code this far. */
const NOT_LOADED = "the plugin did not load";

/** Runs the code checks over the plugin in `root`, whose manifest passed. */
export async function codeChecks(root: string, manifest: Manifest, options: CheckPluginOptions): Promise<Partial<Record<CheckId, CheckResult>>> {
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
    const callTimeoutMs = options.callTimeoutMs ?? 10_000;
    const input = (mode: AppInput["mode"]): AppInput => ({
      mode,
      pluginDir: root,
      name: manifest.name,
      options: options.options ?? {},
      reportPath: join(ioDir, `${mode}-report.json`),
      unfitInputs: options.unfitInputs ?? {},
      slowInputs: options.slowInputs ?? {},
      callTimeoutMs,
      abortAfterMs: 100,
      abortWithinMs: options.abortWithinMs ?? 2000,
    });
    const files: FileChange[] = [];
    const elsewhere: FileChange[] = [];
    const unavailable = writeWatchUnavailable();
    const watchNotes = new Set(unavailable ? [`writes outside the check's own folder are not observed: ${unavailable}`] : []);
    const watched = async (mode: AppInput["mode"], timeoutMs: number): Promise<HarnessRun> => {
      const before = await snapshot(sandbox);
      const writes = await watchWrites();
      const run = await runHarness(input(mode), { cwd: workspace, ioDir, timeoutMs });
      const during = mode === "load" ? "loading" : "calling its tools";
      files.push(...changes(before, await snapshot(sandbox)).map((found) => ({ ...found, during })));
      // The check's own folder is compared above; anything else written anywhere is outside the workspace.
      const outside = (writes?.stop(run.pid) ?? []).filter(({ path }) => !isInside(path, temp));
      elsewhere.push(...outside.map(({ path, operation }) => ({ path, change: operation, during })));
      if (writes?.lost) watchNotes.add("the kernel dropped some file events (its queue overflowed), so writes outside the check's folder may be missing");
      return run;
    };

    const loading = await watched("load", 60_000);
    const { tools, loaded } = loadVerdict(loading, manifest.tools, root);
    if (loaded === undefined) {
      const rest = ["strict-schemas", "dialects", "invalid-arguments", "foreseeable-errors", "abort", "permissions", "confined"] as const;
      return { tools, quiet: quietVerdict({ loading }), ...Object.fromEntries(rest.map((id) => [id, skipped(id, NOT_LOADED)])) };
    }
    const calling = await watched("calls", 120_000 + loaded.tools.length * 60_000);
    const [invalid, foreseeable, abort] = callVerdicts(calling);
    const effects = [...(loading.report?.effects ?? []), ...(calling.report?.effects ?? [])];
    const permissions = permissionsVerdict(declaredPermissions(manifest), effects, files, elsewhere, [...watchNotes]);

    /** The calls again, the plugin confined by the sandbox through a plugboard: what the kernel refused, or why it did not run. */
    const confined = async (): Promise<CheckResult> => {
      const unfitCalls = calling.report?.unfitCalls;
      if (unfitCalls === undefined) return skipped("confined", "the calls did not complete, so none was made again confined");
      // An app refuses a plugin whose manifest does not list its code's tools: the tools check says what to change.
      if (tools.status !== "pass") return skipped("confined", "the manifest's tools are not the code's, so an app would not load it");
      const plugboard = findPlugboard(root, options.plugboard);
      if (typeof plugboard === "string") return notConfined(plugboard);
      const timeoutMs = 60_000 + loaded.tools.length * 30_000;
      const place = { root, workspace, ioDir, permissions: declaredPermissions(manifest), options: options.options ?? {}, calls: unfitCalls, callTimeoutMs, timeoutMs };
      return confinedVerdict(await runConfined(plugboard, place), sandbox);
    };
    return {
      tools,
      "strict-schemas": strictVerdict(loaded),
      dialects: dialectsVerdict(loaded),
      "invalid-arguments": invalid,
      "foreseeable-errors": foreseeable,
      abort,
      quiet: quietVerdict({ loading, calling }),
      permissions,
      confined: await confined(),
    };
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
}

function isInside(path: string, folder: string): boolean {
  return path === folder || path.startsWith(`${folder}/`);
}
