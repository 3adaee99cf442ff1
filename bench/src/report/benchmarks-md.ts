/**
 * BENCHMARKS.md, rendered from `bench/results/latest.json`: the run's environment, every
 * target with its result, then one section per benchmark with what it measures, its
 * figures and a reading of them.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describeTarget, type Figure, missedBy } from "../harness/figures.ts";
import { formatNumber, formatSpread, formatValue, formatVerdict } from "../harness/format.ts";
import { BENCH_DIR, REPO_ROOT } from "../harness/paths.ts";
import type { Environment } from "./environment.ts";
import { FigureIndex } from "./lookup.ts";
import type { Results } from "./results-file.ts";
import { LOOP_SECTIONS } from "./sections-loops.ts";
import { MCP_SECTIONS } from "./sections-mcp.ts";
import { SANDBOX_SECTIONS } from "./sections-sandbox.ts";
import { LEFTOVERS_SECTIONS } from "./sections-leftovers.ts";
import { AUTHOR_INSTALL_SECTIONS } from "./sections-author-install.ts";
import { DESCRIPTION_SCAN_SECTIONS } from "./sections-description-scan.ts";
import { ONE_SHOT_SECTIONS } from "./sections-one-shot.ts";
import { GOVERNANCE_SECTIONS } from "./sections-governance.ts";
import { TEST_SUITE_SECTIONS } from "./sections-test-suite.ts";
import { TOOL_SEARCH_SECTIONS } from "./sections-tool-search.ts";
import { TOOL_SECTIONS } from "./sections-tools.ts";

/** Where the report of a full run is written. */
export const BENCHMARKS_PATH = join(REPO_ROOT, "BENCHMARKS.md");

/** Where the report of a quick run goes instead (not committed). */
export const QUICK_BENCHMARKS_PATH = join(BENCH_DIR, "results", "quick.md");

/** Writes the report of `results` (BENCHMARKS.md by default). */
export async function writeBenchmarksMd(results: Results, path: string = BENCHMARKS_PATH): Promise<void> {
  await writeFile(path, renderBenchmarksMd(results));
}

/** The whole document. */
export function renderBenchmarksMd({ environment, figures }: Results): string {
  const index = new FigureIndex(figures);
  const sections = [...LOOP_SECTIONS, ...TOOL_SECTIONS, ...MCP_SECTIONS, ...SANDBOX_SECTIONS, ...TOOL_SEARCH_SECTIONS, ...LEFTOVERS_SECTIONS, ...AUTHOR_INSTALL_SECTIONS, ...ONE_SHOT_SECTIONS, ...DESCRIPTION_SCAN_SECTIONS, ...GOVERNANCE_SECTIONS, ...TEST_SUITE_SECTIONS].map((section) => {
    const rows = section.groups.flatMap((group) => index.inGroup(group));
    return [
      `## ${section.title}`,
      "",
      `**What is measured.** ${section.measured(environment)}`,
      "",
      figureTable(rows),
      "",
      ...section.reading(index, environment).flatMap((paragraph) => [paragraph, ""]),
    ].join("\n");
  });
  return `${[
    "# Benchmarks",
    "",
    "Written by `bun run bench` from `bench/results/latest.json`; every full run rewrites both. `bun run bench` is the full",
    "run (under ten minutes); `bun run bench --quick` uses smaller inputs and fewer samples (a few minutes) and writes",
    "`bench/results/quick.json` and `quick.md` instead (not committed), so it never replaces these figures. These are",
    "benchmarks, not tests: nothing in `bun run test` asserts a time. Each measurement is the median of its samples with",
    "their spread (25th–75th percentile and the sample count; min and max are in latest.json); ratios divide medians.",
    "",
    environmentTable(environment),
    "",
    "## Targets",
    "",
    targetTable(figures),
    "",
    ...sections,
  ].join("\n").trimEnd()}\n`;
}

function environmentTable(env: Environment): string {
  const load = (values: readonly number[]) => values.map((value) => value.toFixed(2)).join(" / ");
  const minutes = Math.floor(env.durationSeconds / 60);
  return [
    "| run | |",
    "|---|---|",
    `| date | ${env.date.replace("T", " ").slice(0, 16)} UTC |`,
    `| mode | ${env.mode === "full" ? "full" : "**quick** (smaller inputs, fewer samples: not the reference figures)"} |`,
    `| machine | ${env.cpu}, ${env.cores} cores, ${env.memoryGiB} GiB, ${env.os} |`,
    `| Bun | ${env.bun} |`,
    `| load average (1 / 5 / 15 min) | ${load(env.loadAtStart)} at the start, ${load(env.loadAtEnd)} at the end of the timings |`,
    `| duration | ${minutes} min ${env.durationSeconds % 60} s |`,
    `| packages | ${Object.entries(env.packages)
      .map(([name, version]) => `${name} ${version}`)
      .join(", ")} |`,
  ].join("\n");
}

function targetTable(figures: readonly Figure[]): string {
  const rows = figures
    .filter((figure) => figure.target)
    .map((figure) => {
      const target = figure.target ? describeTarget(figure.target, figure.unit) : "";
      const verdict = figure.met || !figure.target ? "met" : `**missed** by ${formatNumber(missedBy(figure.value, figure.target))}%`;
      return `| ${figure.group}: ${figure.name} | ${target} | ${formatValue(figure)} | ${verdict} |`;
    });
  return ["| ratio | target | result | |", "|---|---|---|---|", ...rows].join("\n");
}

function figureTable(figures: readonly Figure[]): string {
  const rows: string[] = [];
  let group: string | undefined;
  for (const figure of figures) {
    if (figure.group !== group) {
      group = figure.group;
      rows.push(`| **${group}** | | | |`);
    }
    const note = figure.note ? `<br><sub>${figure.note}</sub>` : "";
    rows.push(`| ${figure.name}${note} | ${formatValue(figure)} | ${formatSpread(figure)} | ${formatVerdict(figure)} |`);
  }
  return ["| benchmark | median / value | spread (p25–p75, n) | target |", "|---|---:|---:|---|", ...rows].join("\n");
}
