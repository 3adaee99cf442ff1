/** BENCHMARKS.md section 12 (what a call leaves behind): what exactly is measured, and a reading of the figures. */
import { formatNumber as n } from "../harness/format.ts";
import { LEFTOVERS_GROUP } from "../leftovers/leftovers.ts";
import type { FigureIndex } from "./lookup.ts";
import type { Section } from "./section.ts";

/** The goal for the walk after each call, in milliseconds. */
const GOAL_MS = 50;

const leftoversSection: Section = {
  title: "12. After a call: what it left behind",
  groups: [LEFTOVERS_GROUP],
  measured: () =>
    [
      "After each call of a confined plugin that may write the workspace, the app walks it to `\"protectDepth\"` folder",
      "levels (8) for a new git repository, a new name in a repository's metadata and a new file other tools run on",
      "their own (`LeftoverWatch.look`, packages/sandbox/src/protect/leftovers.ts). The workspace is generated: 100,000 files in",
      "10 × 10 × 10 folders of 100, a repository at the root and in each top folder, a `.vscode/` beside each, and a",
      "`node_modules` of 10,000 files, which the walk does not enter. The first walk reads every folder (once, when the",
      "first host starts); a later one reads again only the folders whose status changed since (one `lstat` each for the",
      "rest). Measured: the first walk, the walk of an unchanged workspace (a call that made nothing new), and the",
      "walk after a repository with a hook and `core.fsmonitor` was made (it is found and read). `bun run --cwd bench",
      "leftovers` refreshes this section alone.",
    ].join(" "),
  reading: (index: FigureIndex, env) => {
    const value = (name: string) => index.value(LEFTOVERS_GROUP, name);
    const load = Math.max(value("1-minute load average, start of the suite"), value("1-minute load average, end of the suite"));
    const nothing = value("the walk after a call, nothing new");
    const made = value("the walk after a call that made a repository");
    const verdict = (ms: number) => (ms <= GOAL_MS ? "within" : "**over**");
    return [
      `The walk after a call takes ${n(nothing)} ms when the call made nothing new and ${n(made)} ms when it made a repository: ${verdict(Math.max(nothing, made))} the goal of ${GOAL_MS} ms per call of a plugin that may write. The first walk, which reads every folder, takes ${n(value("the first walk, at the first host's start"))} ms, once per app (an app that starts no host never walks); each later host's start reuses what it read. ${load > env.cores ? `Measured at a load average of up to ${n(load)} on ${env.cores} cores: an idle machine's figures are lower.` : ""}`.trimEnd(),
    ];
  },
};

/** Section 12. */
export const LEFTOVERS_SECTIONS: readonly Section[] = [leftoversSection];
