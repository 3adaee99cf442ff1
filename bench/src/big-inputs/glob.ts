/**
 * `glob` of `**\/*.ts` over a tree of many files, against raw fast-glob and `find`; then the
 * same with ignore files in the tree (a root `.gitignore` and nested ones), against `find`.
 */
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import fg from "fast-glob";
import type { FigureLog } from "../harness/figures.ts";
import { timeInRounds, timeRuns, timingFigure } from "../harness/measure.ts";
import { runProcess } from "../harness/process.ts";
import { flushToDisk } from "../harness/temp.ts";
import { writeFileTree } from "./inputs.ts";
import { callTool, toolRuntime } from "./tool-runtime.ts";

/** Measures the three on a tree of `count` files generated in `folder`. */
export async function globBench(folder: string, count: number, samples: number, log: FigureLog, group: string): Promise<void> {
  const matches = await writeFileTree(folder, count);
  await flushToDisk();
  const runtime = await toolRuntime(folder);
  const args = { pattern: "**/*.ts" };

  const listed = await callTool(runtime, "glob", args);
  const shown = listed.split("\n").length - 1;
  if (!listed.endsWith(`... (${matches - shown} more matches)`)) throw new Error(`glob listed ${listed.slice(-200)}`);
  const raw = await fg("**/*.ts", { cwd: folder });
  if (raw.length !== matches) throw new Error(`fast-glob found ${raw.length}, expected ${matches}`);

  const find = () => runProcess(["find", ".", "-type", "f", "-name", "*.ts"], { cwd: folder });
  const [tool, fastGlob, unix] = await timeInRounds(
    [
      (n) => timeRuns(() => callTool(runtime, "glob", args), { samples: n }),
      (n) => timeRuns(() => fg("**/*.ts", { cwd: folder }), { samples: n }),
      (n) => timeRuns(find, { samples: n }),
    ],
    { rounds: 1, perRound: samples },
  );
  if (!tool || !fastGlob || !unix) throw new Error("missing timings");
  const tree = `${count.toLocaleString("en-US")} files, ${matches.toLocaleString("en-US")} match`;
  const toolMs = log.add(timingFigure(group, "glob **/*.ts", tool, "ms", 1e6, `${tree}; in process, sorted, first 1,000 listed`));
  const fgMs = log.add(timingFigure(group, "fast-glob('**/*.ts'), defaults", fastGlob, "ms", 1e6, "in process, unsorted"));
  const findMs = log.add(timingFigure(group, "find . -type f -name '*.ts'", unix, "ms", 1e6, "a process, output to /dev/null"));
  log.ratio(group, "glob / find", toolMs, findMs, { op: "<=", limit: 1.5 });
  log.ratio(group, "glob / raw fast-glob", toolMs, fgMs, { op: "<=", limit: 1.2 });
  await ignoreFilesBench(folder, runtime, samples, log, group, tree);
  // For reference: Bun's native walker on the same tree.
  const native = await timeRuns(() => Array.fromAsync(new Bun.Glob("**/*.ts").scan({ cwd: folder })), { samples });
  log.add(timingFigure(group, "Bun.Glob('**/*.ts').scan, for reference", native, "ms", 1e6, "in process, unsorted"));
}

/** Ignore files that exclude about a tenth of the tree, nested ones with their own base. */
const IGNORE_FILES: Readonly<Record<string, string>> = {
  ".gitignore": "*.log\n/pkg-1/\nmod-9/\n",
  "pkg-0/.gitignore": "mod-3/\n!file-301.ts\n",
  "pkg-2/mod-0/.ignore": "file-20*.ts\n",
};

async function ignoreFilesBench(
  folder: string,
  runtime: Awaited<ReturnType<typeof toolRuntime>>,
  samples: number,
  log: FigureLog,
  group: string,
  tree: string,
): Promise<void> {
  await Promise.all(Object.entries(IGNORE_FILES).map(([path, text]) => writeFile(join(folder, path), text)));
  try {
    const args = { pattern: "**/*.ts" };
    const all = await callTool(runtime, "glob", { ...args, include_ignored: true });
    const kept = await callTool(runtime, "glob", args);
    const count = (listing: string) => Number(/\((\d+) more matches\)$/.exec(listing)?.[1] ?? Number.NaN);
    if (!(count(kept) < count(all))) throw new Error(`the ignore files excluded nothing: ${kept.slice(-80)}`);
    const find = () => runProcess(["find", ".", "-type", "f", "-name", "*.ts"], { cwd: folder });
    const [tool, unix] = await timeInRounds(
      [(n) => timeRuns(() => callTool(runtime, "glob", args), { samples: n }), (n) => timeRuns(find, { samples: n })],
      { rounds: 1, perRound: samples },
    );
    if (!tool || !unix) throw new Error("missing timings");
    const toolMs = log.add(
      timingFigure(group, "glob **/*.ts, with ignore files", tool, "ms", 1e6, `${tree}; a root .gitignore and 2 nested ignore files`),
    );
    const findMs = log.add(timingFigure(group, "find . -type f -name '*.ts', same tree", unix, "ms", 1e6, "a process"));
    log.ratio(group, "glob with ignore files / find", toolMs, findMs, { op: "<=", limit: 2 });
  } finally {
    await Promise.all(Object.keys(IGNORE_FILES).map((path) => rm(join(folder, path), { force: true })));
  }
}
