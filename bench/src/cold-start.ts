/**
 * Suite 4 — cold start: whole-process wall time of `plugboard tools` (config, manifests
 * and the five plugins loaded, the tools printed) against a Bun process that only imports
 * `openai`, and against an empty Bun process. Taken in rounds, the three in turn.
 */
import { join } from "node:path";
import type { FigureLog } from "./harness/figures.ts";
import { PHASES, type PhaseTimes } from "./cold-start-phases.ts";
import { summarize, timeInRounds, timeRuns, timingFigure } from "./harness/measure.ts";
import type { RunMode } from "./harness/mode.ts";
import { BENCH_DIR, REPO_ROOT } from "./harness/paths.ts";
import { runProcess } from "./harness/process.ts";

/** The group's name in every report. */
export const COLD_START_GROUP = "Cold start";

interface Command {
  readonly name: string;
  readonly argv: readonly string[];
  readonly cwd: string;
  readonly note: string;
}

const bun = process.execPath;
const PHASES_CHILD = join(import.meta.dir, "cold-start-phases.ts");

const COMMANDS: readonly Command[] = [
  {
    name: "plugboard tools",
    argv: [bun, join(REPO_ROOT, "apps/cli/src/main.ts"), "tools"],
    cwd: REPO_ROOT,
    note: "bun apps/cli/src/main.ts tools: the shipped config, five plugins",
  },
  {
    name: "bun -e \"await import('openai')\"",
    argv: [bun, "-e", "await import('openai')"],
    cwd: BENCH_DIR,
    note: "run in bench/, where openai resolves",
  },
  {
    name: 'bun -e "0" (an empty process)',
    argv: [bun, "-e", "0"],
    cwd: BENCH_DIR,
    note: 'bun -e "" prints the usage text instead of running, so the script is 0',
  },
];

/** Measures the three commands and records wall time, peak RSS and the ratios. */
export async function coldStart(mode: RunMode, log: FigureLog): Promise<void> {
  const perRound = mode.quick ? 4 : 10;
  const rounds = 3;
  mode.progress(`cold start: ${COMMANDS.length} commands × ${rounds * perRound} runs`);
  const timings = await timeInRounds(
    COMMANDS.map((command) => (samples: number) =>
      timeRuns(() => runProcess(command.argv, { cwd: command.cwd, env: coldEnv() }), { samples }),
    ),
    { rounds, perRound },
  );
  const group = COLD_START_GROUP;
  const values = COMMANDS.map((command, index) => {
    const timing = timings[index];
    if (!timing) throw new Error(`no timing for ${command.name}`);
    return log.add(timingFigure(group, command.name, timing, "ms", 1e6, command.note));
  });
  const [plugboard = Number.NaN, openai = Number.NaN, empty = Number.NaN] = values;
  log.ratio(group, "plugboard tools / import('openai')", plugboard, openai, { op: "<=", limit: 1.5 });
  log.ratio(group, "plugboard tools / empty process", plugboard, empty);
  log.ratio(group, "import('openai') / empty process", openai, empty);
  await phases(mode, log);
}

/** The group of the phase breakdown. */
export const PHASES_GROUP = "Cold start: where plugboard tools spends its time";

/** Runs the phase child `samples` times and records the median of each phase. */
async function phases(mode: RunMode, log: FigureLog): Promise<void> {
  const samples = mode.quick ? 5 : 15;
  mode.progress(`cold start: phases × ${samples}`);
  const runs: PhaseTimes[] = [];
  for (let index = 0; index < samples; index++) {
    const run = await runProcess([bun, PHASES_CHILD], { cwd: BENCH_DIR, env: coldEnv(), capture: true });
    runs.push(JSON.parse(run.stdout) as PhaseTimes);
  }
  for (const phase of PHASES) {
    log.add(timingFigure(PHASES_GROUP, phase, summarize(runs.map((run) => run[phase] * 1e6)), "ms", 1e6));
  }
}

/** No model credentials: `tools` must not depend on them, and the child sees the same env each run. */
function coldEnv(): Record<string, string | undefined> {
  const { MODEL_API_KEY: _a, OPENAI_API_KEY: _b, BASE_URL: _c, OPENAI_BASE_URL: _d, MODEL: _e, ...env } = process.env;
  return env;
}
