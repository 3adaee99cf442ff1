/**
 * What the sandbox adds to each file operation: the kernel's work in a confined process
 * (the view's mounts on each path lookup, Landlock's checks on each open, the seccomp
 * filter on each system call). The same script times 10,000 `statSync`, `readFileSync` and
 * `Bun.file().text()` calls of a one-line workspace file, confined as read_file's host is
 * and unconfined, in turn, round after round; the difference of the medians is what
 * confinement adds per operation.
 */
import { copyFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { FigureLog } from "../harness/figures.ts";
import { summarize, timingFigure } from "../harness/measure.ts";
import type { RunMode } from "../harness/mode.ts";
import { runProcess } from "../harness/process.ts";
import { FILE_OPERATIONS_GROUP } from "./groups.ts";
import { availableMechanism, confineAsReadFileHost, plainEnv } from "./host-view.ts";

const CHILD = fileURLToPath(new URL("./file-operations-child.ts", import.meta.url));
const ITERATIONS = 10_000;
/** The goal for what confinement adds to one operation, in µs. */
const GOAL_US = 100;

/** Measures the operations confined and unconfined in `workspace` (which holds `notes.txt`). */
export async function fileOperations(mode: RunMode, log: FigureLog, workspace: string): Promise<void> {
  const { rounds, samples } = mode.quick ? { rounds: 2, samples: 3 } : { rounds: 6, samples: 5 };
  mode.progress(`sandbox: ${ITERATIONS.toLocaleString("en-US")} calls of each file operation, confined and unconfined, ${rounds} rounds`);
  // The script goes in the workspace (readable with fs.read), so the view is exactly read_file's host's.
  const script = join(workspace, "file-operations-child.ts");
  await copyFile(CHILD, script);
  const argv = [process.execPath, script, join(workspace, "notes.txt"), String(ITERATIONS), String(samples)];
  const confined = confineAsReadFileHost(availableMechanism(), workspace, argv);
  const runs = {
    confined: () => runProcess([confined.command, ...confined.args], { cwd: confined.cwd, env: confined.env, capture: true }),
    unconfined: () => runProcess(argv, { cwd: confined.cwd, env: plainEnv(confined), capture: true }),
  };
  const pooled: Record<"confined" | "unconfined", Record<string, number[]>> = { confined: {}, unconfined: {} };
  for (let round = 0; round < rounds; round++) {
    // Each round alternates which goes first, so neither always runs on a machine the other just warmed.
    const order = round % 2 === 0 ? (["confined", "unconfined"] as const) : (["unconfined", "confined"] as const);
    for (const which of order) {
      const reported = JSON.parse((await runs[which]()).stdout) as Record<string, number[]>;
      for (const [operation, values] of Object.entries(reported)) pooled[which][operation] = [...(pooled[which][operation] ?? []), ...values];
    }
  }
  const added: number[] = [];
  for (const operation of Object.keys(pooled.unconfined)) {
    const figure = (which: "confined" | "unconfined", note?: string) =>
      log.add(timingFigure(FILE_OPERATIONS_GROUP, `${operation}, ${which}`, summarize(pooled[which][operation] ?? []), "µs/op", 1e3, note));
    const plain = figure("unconfined");
    const inside = figure("confined", `as read_file's host (grants fs.read); a sample is the mean of ${ITERATIONS.toLocaleString("en-US")} calls`);
    added.push(log.add({ group: FILE_OPERATIONS_GROUP, name: `${operation}, added by confinement (difference of medians)`, value: inside - plain, unit: "µs/op" }));
  }
  log.ratio(FILE_OPERATIONS_GROUP, "largest added cost per operation / 0.1 ms", Math.max(...added), GOAL_US, { op: "<=", limit: 1 });
}
