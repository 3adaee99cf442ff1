/**
 * `bash` printing a lot (1 GiB in the full run): wall time and peak RSS of a process that
 * runs the real tool, against the same command with its output sent to /dev/null.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { FigureLog } from "../harness/figures.ts";
import { summarize, timingFigure } from "../harness/measure.ts";
import { runProcess } from "../harness/process.ts";
import { type BashSample, printingCommand } from "./bash-child.ts";

const CHILD = join(import.meta.dir, "bash-child.ts");
/** GNU time is a small parent, so its child's `maxRSS` is the command's own (see harness/process.ts). */
const GNU_TIME = "/usr/bin/time";

interface RawSample {
  readonly ms: number;
  readonly peakRssBytes: number | undefined;
}

/** Measures both sides `samples` times each, alternating, each run in a fresh process. */
export async function bashBench(bytes: number, samples: number, log: FigureLog, group: string): Promise<void> {
  const tool: BashSample[] = [];
  const raw: RawSample[] = [];
  for (let index = 0; index < samples; index++) {
    tool.push(await runTool(bytes));
    raw.push(await runRaw(bytes));
  }
  const size = `${Math.round(bytes / 2 ** 20)} MiB of output`;
  const ms = (runs: readonly { ms: number }[]) => summarize(runs.map((run) => run.ms * 1e6));
  const toolMs = log.add(timingFigure(group, "bash tool: wall time", ms(tool), "ms", 1e6, `${size}; head and tail kept`));
  const rawMs = log.add(timingFigure(group, "same command > /dev/null: wall time", ms(raw), "ms", 1e6, "bash -c, nothing captured"));
  log.ratio(group, "bash tool / > /dev/null (wall time)", toolMs, rawMs);
  const peak = log.add(
    timingFigure(group, "bash tool: peak RSS of the process", summarize(tool.map((run) => run.peakRssBytes)), "MB", 2 ** 20, "Bun + core + the five plugins + the call"),
  );
  log.add(
    timingFigure(group, "bash tool: RSS before the call", summarize(tool.map((run) => run.startRssBytes)), "MB", 2 ** 20, "the same process, idle"),
  );
  const rawPeaks = raw.flatMap((run) => (run.peakRssBytes === undefined ? [] : [run.peakRssBytes]));
  if (rawPeaks.length > 0) {
    log.add(timingFigure(group, "same command > /dev/null: peak RSS", summarize(rawPeaks), "MB", 2 ** 20, "bash and its pipeline, from GNU time"));
  }
  log.ratio(group, "bash tool peak RSS / 150 MB", peak, 150, { op: "<", limit: 1 }, "target: under 150 MB");
}

async function runTool(bytes: number): Promise<BashSample> {
  const run = await runProcess([process.execPath, CHILD, String(bytes)], { capture: true });
  return JSON.parse(run.stdout) as BashSample;
}

async function runRaw(bytes: number): Promise<RawSample> {
  const command = ["bash", "-c", `${printingCommand(bytes)} > /dev/null`];
  if (!existsSync(GNU_TIME)) return { ms: (await runProcess(command)).wallMs, peakRssBytes: undefined };
  const run = await runProcess([GNU_TIME, "-f", "%M", ...command]);
  const kilobytes = Number(run.stderr.trim().split("\n").at(-1));
  return { ms: run.wallMs, peakRssBytes: Number.isFinite(kilobytes) ? kilobytes * 1024 : undefined };
}
