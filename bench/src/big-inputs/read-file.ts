/**
 * `read_file` of 2 lines at line 1,000,000 of a big file (which also counts the lines
 * left), against `sed -n '1000000,1000001p'` plus `wc -l` on the same file.
 */
import { open } from "node:fs/promises";
import { join } from "node:path";
import type { FigureLog } from "../harness/figures.ts";
import { timeInRounds, timeRuns, timingFigure } from "../harness/measure.ts";
import { runProcess } from "../harness/process.ts";
import { flushToDisk } from "../harness/temp.ts";
import { LINE_BYTES, lineText, writeNumberedLines } from "./inputs.ts";
import { callTool, toolRuntime } from "./tool-runtime.ts";

const LINE = 1_000_000;

/** Measures both sides on a file of about `bytes` bytes generated in `folder`. */
export async function readFileBench(folder: string, bytes: number, samples: number, log: FigureLog, group: string): Promise<void> {
  const lines = Math.floor(bytes / LINE_BYTES);
  const path = join(folder, "big.txt");
  await writeNumberedLines(path, lines);
  await flushToDisk();
  const runtime = await toolRuntime(folder);
  const args = { path: "big.txt", offset: LINE, limit: 2 };

  const expected = `${lineText(LINE)}\n${lineText(LINE + 1)}\n... (${lines - LINE - 1} more lines)`;
  const got = await callTool(runtime, "read_file", args);
  if (got !== expected) throw new Error(`read_file returned ${JSON.stringify(got.slice(0, 200))}`);
  const sed = await runProcess(["sed", "-n", `${LINE},${LINE + 1}p`, path], { capture: true });
  if (sed.stdout !== `${lineText(LINE)}\n${lineText(LINE + 1)}\n`) throw new Error("sed printed other lines");

  const unix = async () => {
    await runProcess(["sed", "-n", `${LINE},${LINE + 1}p`, path]);
    await runProcess(["wc", "-l", path]);
  };
  const [tool, reference] = await timeInRounds(
    [(count) => timeRuns(() => callTool(runtime, "read_file", args), { samples: count }), (count) => timeRuns(unix, { samples: count })],
    { rounds: 1, perRound: samples },
  );
  if (!tool || !reference) throw new Error("missing timings");
  const size = `${Math.round(bytes / 2 ** 20)} MiB, ${lines.toLocaleString("en-US")} lines`;
  const toolMs = log.add(timingFigure(group, "read_file, 2 lines at line 1,000,000", tool, "ms", 1e6, `${size}; in process, through runtime.execute`));
  const unixMs = log.add(timingFigure(group, "sed -n '1000000,1000001p' + wc -l", reference, "ms", 1e6, "two processes, one after the other"));
  log.ratio(group, "read_file / (sed + wc -l)", toolMs, unixMs, { op: "<=", limit: 2 });

  // What reading alone costs with read_file's chunk size and with a larger one.
  for (const [label, chunk] of [["64 KiB", 64 * 1024], ["1 MiB", 1024 * 1024]] as const) {
    log.add(
      timingFigure(group, `reading the file alone, ${label} FileHandle.read calls`, await timeRuns(() => readAll(path, chunk), { samples }), "ms", 1e6, "no line counting"),
    );
  }
}

/** Reads the whole file into one reused buffer, `chunk` bytes per call, as read_file does. */
async function readAll(path: string, chunk: number): Promise<void> {
  const handle = await open(path, "r");
  try {
    const buffer = Buffer.allocUnsafe(chunk);
    while ((await handle.read(buffer, 0, chunk, null)).bytesRead > 0) {}
  } finally {
    await handle.close();
  }
}
