/**
 * Suite 5 — scale: bootstrap (`loadConfig` + `buildApp`) of 10, 100 and 1,000 generated
 * one-tool plugins, each sample in a fresh process (module caches are per process): time
 * and memory per plugin, and whether time grows linearly.
 */
import { join } from "node:path";
import type { FigureLog } from "../harness/figures.ts";
import { summarize, timingFigure } from "../harness/measure.ts";
import type { RunMode } from "../harness/mode.ts";
import { runProcess } from "../harness/process.ts";
import { flushToDisk, withTempDir } from "../harness/temp.ts";
import type { BootstrapSample } from "./bootstrap-child.ts";
import { generatePlugins } from "./generate-plugins.ts";

/** The group's name in every report. */
export const SCALE_GROUP = "Bootstrap scale";

const SIZES = [10, 100, 1000] as const;
const CHILD = join(import.meta.dir, "bootstrap-child.ts");

/** Measures the three sizes and records per-plugin time and memory and the growth ratios. */
export async function scale(mode: RunMode, log: FigureLog): Promise<void> {
  const samples = mode.quick ? 3 : 7;
  const medians = new Map<number, { ms: number; rss: number; heap: number }>();
  for (const size of SIZES) {
    mode.progress(`scale: bootstrap of ${size} plugins × ${samples}`);
    const runs = await withTempDir(`scale-${size}`, async (folder) => {
      const configPath = await generatePlugins(folder, size);
      await flushToDisk();
      // One untimed run: the files are then in the page cache for every sample.
      await bootstrapOnce(configPath, size);
      const collected: BootstrapSample[] = [];
      for (let index = 0; index < samples; index++) collected.push(await bootstrapOnce(configPath, size));
      return collected;
    });
    const group = SCALE_GROUP;
    const time = summarize(runs.map((run) => run.ms * 1e6));
    const rss = summarize(runs.map((run) => run.rssBytes));
    const heap = summarize(runs.map((run) => run.heapBytes));
    medians.set(size, { ms: time.p50 / 1e6, rss: rss.p50, heap: heap.p50 });
    log.add(timingFigure(group, `${size} plugins: bootstrap time`, time, "ms", 1e6));
    log.add(timingFigure(group, `${size} plugins: time per plugin`, time, "ms/plugin", 1e6 * size));
    log.add(timingFigure(group, `${size} plugins: RSS growth per plugin`, rss, "KB/plugin", 1024 * size));
    log.add(timingFigure(group, `${size} plugins: JS heap growth per plugin`, heap, "KB/plugin", 1024 * size));
  }
  const [small, middle, large] = SIZES.map((size) => medians.get(size) ?? { ms: Number.NaN, rss: Number.NaN, heap: Number.NaN });
  if (!small || !middle || !large) return;
  // The cost of each plugin past the first 100, free of the fixed costs every bootstrap pays.
  const extra = 1000 - 100;
  const marginal = "from the medians at 100 and 1000 plugins";
  log.add({ group: SCALE_GROUP, name: "marginal time per plugin (100 → 1000)", value: (large.ms - middle.ms) / extra, unit: "ms/plugin", note: marginal });
  log.add({ group: SCALE_GROUP, name: "marginal RSS per plugin (100 → 1000)", value: (large.rss - middle.rss) / extra / 1024, unit: "KB/plugin", note: marginal });
  log.add({ group: SCALE_GROUP, name: "marginal JS heap per plugin (100 → 1000)", value: (large.heap - middle.heap) / extra / 1024, unit: "KB/plugin", note: marginal });
  log.ratio(SCALE_GROUP, "time(1000) / time(10)", large.ms, small.ms, { op: "<=", limit: 120 }, "linear growth is 100×");
  log.ratio(SCALE_GROUP, "time(1000) / time(100)", large.ms, middle.ms, undefined, "linear growth is 10×");
}

async function bootstrapOnce(configPath: string, size: number): Promise<BootstrapSample> {
  const run = await runProcess([process.execPath, CHILD, configPath], { capture: true });
  const sample = JSON.parse(run.stdout) as BootstrapSample;
  if (sample.tools !== size) throw new Error(`bootstrap registered ${sample.tools} tools, expected ${size}`);
  return sample;
}
