/**
 * `edit_file` of one unique line in a big file against `sed -i` on the same file. Each
 * run swaps the marker (A → B, then B → A), so every run finds exactly one match.
 */
import { join } from "node:path";
import type { FigureLog } from "../harness/figures.ts";
import { timeInRounds, timeRuns, timingFigure } from "../harness/measure.ts";
import { runProcess } from "../harness/process.ts";
import { flushToDisk } from "../harness/temp.ts";
import { LINE_BYTES, writeNumberedLines } from "./inputs.ts";
import { callTool, toolRuntime } from "./tool-runtime.ts";

const MARKERS = ["UNIQUE-MARKER-AAAA", "UNIQUE-MARKER-BBBB"] as const;

/** Measures `edit_file`, `sed -i` and `sed -i` + `sync FILE` on a file of about `bytes` bytes. */
export async function editFileBench(folder: string, bytes: number, samples: number, log: FigureLog, group: string): Promise<void> {
  const lines = Math.floor(bytes / LINE_BYTES);
  const path = join(folder, "edit.txt");
  await writeNumberedLines(path, lines, { number: Math.floor(lines / 2), text: MARKERS[0] });
  await flushToDisk();
  const runtime = await toolRuntime(folder);
  let current = 0;
  const swap = () => {
    const from = MARKERS[current] ?? "";
    current = 1 - current;
    return [from, MARKERS[current] ?? ""] as const;
  };
  const edit = async () => {
    const [old_text, new_text] = swap();
    const result = await callTool(runtime, "edit_file", { path: "edit.txt", old_text, new_text });
    if (result !== "Edited edit.txt (1 replacement)") throw new Error(`edit_file said ${result}`);
  };
  const sed = async () => {
    const [from, to] = swap();
    await runProcess(["sed", "-i", `s/${from}/${to}/`, path]);
  };
  const sedSync = async () => {
    await sed();
    await runProcess(["sync", path]);
  };
  const [tool, unix, unixSync] = await timeInRounds(
    [(n) => timeRuns(edit, { samples: n }), (n) => timeRuns(sed, { samples: n }), (n) => timeRuns(sedSync, { samples: n })],
    { rounds: 1, perRound: samples },
  );
  if (!tool || !unix || !unixSync) throw new Error("missing timings");
  const found = await runProcess(["grep", "-c", MARKERS[current] ?? "", path], { capture: true });
  if (found.stdout.trim() !== "1") throw new Error(`after the runs the file holds ${found.stdout.trim()} markers, expected 1`);
  const size = `${Math.round(bytes / 2 ** 20)} MiB`;
  const toolMs = log.add(
    timingFigure(group, "edit_file, one unique line", tool, "ms", 1e6, `${size}; in process; atomic write with fsync`),
  );
  const sedMs = log.add(timingFigure(group, "sed -i 's/A/B/'", unix, "ms", 1e6, "a process; temp file + rename, no fsync"));
  log.add(timingFigure(group, "sed -i 's/A/B/' + sync FILE", unixSync, "ms", 1e6, "the same, flushed to disk like edit_file"));
  log.ratio(group, "edit_file / sed -i", toolMs, sedMs, { op: "<=", limit: 2 });
}
