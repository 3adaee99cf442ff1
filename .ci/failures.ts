/**
 * What failed, gathered from the whole test output (a file path argument): each `(fail)` line
 * with what bun test printed for it (the lines after the test before it), and each error that
 * ended a file outside any test. Written near the end of `.ci/run`, so that the last lines of a
 * failed run say which tests failed and why, however long the output above them. Prints nothing
 * when nothing failed.
 */
import { readFileSync } from "node:fs";

/** Lines kept of one failure: its error's head, where bun test puts the message and first frames. */
const PER_FAILURE = 24;
/** Failures written in full; the rest are named only. */
const IN_FULL = 6;

const path = process.argv[2];
if (path === undefined) throw new Error("usage: bun .ci/failures.ts OUTPUT_FILE");
// turbo prefixes each line with its task ("@plugboard/cli:test: "), and the tasks' lines
// interleave: each task's lines are read on their own, in order, the prefix kept to name it.
const lines = readFileSync(path, "utf8").split("\n");
const byTask = new Map<string, string[]>();
for (const line of lines) {
  const task = /^(@[\w.-]+\/[\w.-]+:[\w:-]+): /.exec(line)?.[1] ?? "";
  byTask.set(task, [...(byTask.get(task) ?? []), line]);
}
const result = /\((pass|fail|skip|todo)\) /;
const failures: string[][] = [];
for (const taskLines of byTask.values()) {
  let since = 0;
  let file = "";
  for (const [index, line] of taskLines.entries()) {
    // bun test names each file on a line of its own before its results.
    const header = /^(?:\S+: )?(\S+\.(?:test|e2e)\.ts):$/.exec(line);
    if (header !== null) file = header[1] ?? "";
    const match = result.exec(line);
    if (match === null) {
      // An error outside any test (a failed import, a throw in beforeAll, an unhandled rejection).
      if (/^(\S+: )?# Unhandled error between tests/.test(line)) {
        failures.push([`${file}:`, ...taskLines.slice(index, index + PER_FAILURE)]);
        since = index + 1;
      }
      continue;
    }
    if (match[1] === "fail") {
      // bun test says a timeout (the test's, or a hook's: "(unnamed)") on the line after the test's.
      const timedOut = taskLines[index + 1]?.includes("timed out") === true;
      const [failed = "", ...error] = headOf(taskLines.slice(since, index + 1));
      failures.push([`${failed} in ${file}`, ...error, ...(timedOut ? [taskLines[index + 1] ?? ""] : [])]);
      since = index + (timedOut ? 2 : 1);
    } else since = index + 1;
  }
}

/** The failure's line and the first lines of what came before it (the error), with a mark where cut. */
function headOf(block: string[]): string[] {
  const last = block[block.length - 1] ?? "";
  const body = block.slice(0, -1).filter((line) => line.replace(/^\S+: /, "").trim() !== "");
  const cut = body.length > PER_FAILURE ? [...body.slice(0, PER_FAILURE), `… ${body.length - PER_FAILURE} more lines`] : body;
  return [last, ...cut];
}

// bun test names each failure again in its closing list ("N tests failed:"): once is enough.
const named = new Set<string>();
const distinct = failures.filter(([line = ""]) => !named.has(line) && named.add(line) !== undefined);
if (distinct.length > 0) {
  console.log(`\n== what failed (${distinct.length})`);
  for (const [index, failure] of distinct.entries()) {
    if (index < IN_FULL) console.log(`\n${failure.join("\n")}`);
    else console.log(failure[0]);
  }
}
