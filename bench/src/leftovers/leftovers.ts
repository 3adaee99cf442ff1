/**
 * Suite 12 — what a call leaves behind: the walk the app makes after each call of a confined
 * plugin that may write the workspace (`LeftoverWatch.look`, packages/sandbox/src/protect/leftovers.ts),
 * over a generated workspace of 100,000 files (10,000 in a quick run): 10 × 10 × 10 folders
 * of 100 files each, a git repository at the root and in each of the ten top folders, a
 * `.vscode/` beside each, and a `node_modules` of 1,000 folders (10,000 files), which the walk
 * does not enter. Measured as the app runs it: the workspace unchanged since the last walk (each call
 * that writes nothing new), and once with a repository added before each sample (the walk
 * that finds one and names what in it runs code).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
// The sources the bootstrap loads (one module instance): the bench package does not declare @plugboard/hosts.
import { LeftoverWatch } from "../../../packages/sandbox/src/protect/leftovers.ts";
import { DEFAULT_PROTECT_DEPTH, WorkspaceWalker } from "../../../packages/sandbox/src/protect/workspace-scan.ts";
import type { FigureLog } from "../harness/figures.ts";
import { summarize, timeRuns, timingFigure } from "../harness/measure.ts";
import type { RunMode } from "../harness/mode.ts";
import { flushToDisk, withTempDir } from "../harness/temp.ts";

export const LEFTOVERS_GROUP = "After a call: what it left behind";

/** Measures the after-call walk over a generated workspace. */
export async function leftovers(mode: RunMode, log: FigureLog): Promise<void> {
  const files = mode.quick ? 10_000 : 100_000;
  const loadAtStart = loadavg()[0] ?? Number.NaN;
  await withTempDir("leftovers", async (dir) => {
    mode.progress(`leftovers: generating a workspace of ${files.toLocaleString("en")} files`);
    generate(dir, files);
    await flushToDisk();
    mode.progress("leftovers: the walk after each call");
    const samples = { samples: mode.quick ? 10 : 40, warmup: 3 };
    // The first walk reads every folder (at the first host's start); the later ones only those whose status changed.
    const first = await timeRuns(() => new WorkspaceWalker(dir, DEFAULT_PROTECT_DEPTH).scan(), { samples: mode.quick ? 5 : 10, warmup: 1 });
    log.add(timingFigure(LEFTOVERS_GROUP, "the first walk, at the first host's start", first, "ms", 1e6, "every folder read"));
    const walker = new WorkspaceWalker(dir, DEFAULT_PROTECT_DEPTH);
    // The first walk, as the first host's start makes it.
    walker.scan();
    const watch = new LeftoverWatch(dir, walker);
    const unchanged = await timeRuns(() => {
      if (watch.look().length !== 0) throw new Error("the walk found something in an unchanged workspace");
    }, samples);
    const shape = `${files.toLocaleString("en")} files in 1,111 folders, 11 repositories, 10 .vscode/; node_modules not entered`;
    log.add(timingFigure(LEFTOVERS_GROUP, "the walk after a call, nothing new", unchanged, "ms", 1e6, shape));
    // Timed by hand: each sample needs its own new repository, made untimed just before it.
    const times: number[] = [];
    for (let made = 0; made < samples.samples; made++) {
      const hooks = join(dir, "d0", "d0", `new-${made}`, ".git", "hooks");
      mkdirSync(hooks, { recursive: true });
      writeFileSync(join(hooks, "pre-commit"), "#!/bin/sh\n");
      writeFileSync(join(hooks, "..", "config"), "[core]\n\tfsmonitor = true\n");
      const start = Bun.nanoseconds();
      const found = watch.look();
      times.push(Bun.nanoseconds() - start);
      if (found.length !== 1) throw new Error(`the walk found ${found.length} things, not the repository made before it`);
    }
    const found = summarize(times);
    log.add(timingFigure(LEFTOVERS_GROUP, "the walk after a call that made a repository", found, "ms", 1e6, "a .git with a hook and core.fsmonitor made before each sample, found and read"));
  });
  // The machine is shared: the load during these rows says how far to trust them.
  log.add({ group: LEFTOVERS_GROUP, name: "1-minute load average, start of the suite", value: loadAtStart, unit: "" });
  log.add({ group: LEFTOVERS_GROUP, name: "1-minute load average, end of the suite", value: loadavg()[0] ?? Number.NaN, unit: "" });
}

/** `files` files under `dir` in 10 × 10 × 10 folders, with repositories, .vscode/ folders and a node_modules. */
function generate(dir: string, files: number): void {
  const perFolder = files / 1000;
  const content = "export const x = 1;\n";
  for (const [top, count] of [["", perFolder], ["node_modules/", 10]] as const) {
    for (let a = 0; a < 10; a++) {
      for (let b = 0; b < 10; b++) {
        for (let c = 0; c < 10; c++) {
          const folder = join(dir, `${top}d${a}`, `d${b}`, `d${c}`);
          mkdirSync(folder, { recursive: true });
          for (let f = 0; f < count; f++) writeFileSync(join(folder, `f${f}.ts`), content);
        }
      }
    }
  }
  for (const repository of ["", ...Array.from({ length: 10 }, (_, a) => `d${a}`)]) {
    for (const folder of ["hooks", "info", "objects", "refs"]) mkdirSync(join(dir, repository, ".git", folder), { recursive: true });
    writeFileSync(join(dir, repository, ".git", "config"), "[core]\n\tbare = false\n");
    mkdirSync(join(dir, repository, ".vscode"), { recursive: true });
  }
}
