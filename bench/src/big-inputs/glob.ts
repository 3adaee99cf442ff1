/** `glob` of `**\/*.ts` over a tree of many files, against raw fast-glob and `find`. */
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
  log.ratio(group, "glob / find", toolMs, findMs, { op: "<=", limit: 2 });
  log.ratio(group, "glob / raw fast-glob", toolMs, fgMs);
  // For reference: Bun's native walker on the same tree.
  const native = await timeRuns(() => Array.fromAsync(new Bun.Glob("**/*.ts").scan({ cwd: folder })), { samples });
  log.add(timingFigure(group, "Bun.Glob('**/*.ts').scan, for reference", native, "ms", 1e6, "in process, unsorted"));
}
