/** BENCHMARKS.md section 17 (the test suite on a clean clone): what is measured, and a reading. */
import { formatNumber as n } from "../harness/format.ts";
import { SUITE_GOAL_SECONDS, TEST_SUITE_GROUP } from "../test-suite/test-suite.ts";
import type { FigureIndex } from "./lookup.ts";
import type { Section } from "./section.ts";

const testSuiteSection: Section = {
  title: "17. The test suite on a clean clone",
  groups: [TEST_SUITE_GROUP],
  measured: (env) =>
    [
      "`bun run test -- --force` (turbo runs every package's tests, three tasks at a time, the CLI's own runner four of its",
      "test files at a time; `--force`: nothing replayed from turbo's cache) once, on a fresh `git clone` of the",
      "checkout's HEAD after `bun install --frozen-lockfile`: no turbo cache and no test times from an earlier run, as",
      "CI's clean clone. The clone's folder is opened to other users, as a checkout is, so that the tests that run as",
      "another user run. Timed from outside, spawn to exit: wall time, and the CPU time of turbo and every process it",
      `waited for. A failing suite is not timed (the bench fails). On ${env.cores} cores; goal: at most ${SUITE_GOAL_SECONDS} s,`,
      "with the machine otherwise idle. Not run with --quick. `bun run --cwd bench test-suite` refreshes this section alone.",
    ].join(" "),
  reading: (index: FigureIndex, env) => {
    const wall = index.value(TEST_SUITE_GROUP, "the whole suite, wall time");
    const cpu = index.value(TEST_SUITE_GROUP, "the whole suite, CPU time");
    const load = index.value(TEST_SUITE_GROUP, "1-minute load average, start of the suite");
    const met = wall <= SUITE_GOAL_SECONDS;
    return [
      `The suite took ${n(wall)} s (${n(cpu)} s of CPU on ${env.cores} cores, so the cores were busy ${n((cpu / (wall * env.cores)) * 100)}% of the time): ${met ? "within" : "**over**"} the goal of ${SUITE_GOAL_SECONDS} s, at a load average of ${n(load)} when it began. The suite is bound by CPU: most tests start real processes (the CLI, plugin hosts, confining steps, servers, npm), so its time follows the machine's speed and whatever else runs on it; the CLI's runner prints each file's CPU time, the largest first, which names what to make cheaper.`,
    ];
  },
};

/** Section 17. */
export const TEST_SUITE_SECTIONS: readonly Section[] = [testSuiteSection];
