/**
 * Suite 4 — cold start: whole-process time of the CLI as users run it (the bundle,
 * `apps/cli/dist/bin.js`: the published bin, and what `bun run plugboard` starts) against a
 * Bun process that only imports `openai`, and `--version` against an empty Bun process.
 * `tools` mounts the confined plugins' tools from the listing cache, as every start after
 * the first does. Informational rows: `help`; `tools` with no listing cache (the four hosts
 * started); `tools` with the plugins unconfined (`"sandbox": "off"`: no plugin host
 * processes), from the bundle, through `bun run plugboard` (the package script, with its own
 * Bun process and the bundle's freshness check) and from the TypeScript sources.
 * The commands are taken in turn, round after round, so that a change in the machine's load
 * hits all of them alike; wall time and the child's CPU time are both recorded.
 */
import { readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FigureLog } from "./harness/figures.ts";
import { summarize, timingFigure } from "./harness/measure.ts";
import type { RunMode } from "./harness/mode.ts";
import { BENCH_DIR, REPO_ROOT } from "./harness/paths.ts";
import { type ProcessRun, runProcess } from "./harness/process.ts";

/** The groups' names in every report. */
export const COLD_START_GROUP = "Cold start";
export const COLD_START_CPU_GROUP = "Cold start, CPU time";

interface Command {
  readonly name: string;
  readonly argv: readonly string[];
  readonly note: string;
  /** Added to the environment. */
  readonly env?: Readonly<Record<string, string>>;
  /** Takes seconds: half the runs. */
  readonly slow?: boolean;
}

const bun = process.execPath;
const BIN = join(REPO_ROOT, "apps/cli/dist/bin.js");

/** The names the ratios and the report refer to. */
export const COMMAND_NAMES = {
  tools: "plugboard tools",
  openai: "bun -e \"await import('openai')\"",
  version: "plugboard --version",
  empty: 'bun -e "0" (an empty process)',
  help: "plugboard help",
  uncached: "plugboard tools, hosts started (no listing cache)",
  unconfined: "plugboard tools, plugins unconfined",
  script: "bun run plugboard tools, plugins unconfined",
  source: "plugboard tools, plugins unconfined, from the sources",
} as const;

/** The shipped config with `"sandbox": "off"`: the five plugins load in the CLI's process. */
const UNCONFINED_CONFIG = join(tmpdir(), `plugboard-bench-unconfined-${process.pid}.json`);
/** A file: as `XDG_CACHE_HOME`, no listing can be kept under it, so every host starts. */
const NO_CACHE = join(tmpdir(), `plugboard-bench-no-cache-${process.pid}`);

const COMMANDS: readonly Command[] = [
  {
    name: COMMAND_NAMES.tools,
    argv: [bun, BIN, "tools"],
    note: "bun apps/cli/dist/bin.js tools (the bundle): the shipped config, five confined plugins, their tools mounted from the listing cache (each host starts on its first call)",
  },
  { name: COMMAND_NAMES.openai, argv: [bun, "-e", "await import('openai')"], note: "openai resolves from bench/" },
  { name: COMMAND_NAMES.version, argv: [bun, BIN, "--version"], note: "bun apps/cli/dist/bin.js --version" },
  { name: COMMAND_NAMES.empty, argv: [bun, "-e", "0"], note: 'bun -e "" prints the usage text instead of running, so the script is 0' },
  { name: COMMAND_NAMES.help, argv: [bun, BIN, "help"], note: "the overview: arguments parsed, no config loaded" },
  {
    name: COMMAND_NAMES.uncached,
    argv: [bun, BIN, "tools"],
    env: { XDG_CACHE_HOME: NO_CACHE },
    note: "the first start after a plugin changed: each confined host (four: read_file and glob share one) starts and lists its tools",
    slow: true,
  },
  {
    name: COMMAND_NAMES.unconfined,
    argv: [bun, BIN, "tools", "--config", UNCONFINED_CONFIG],
    note: 'the shipped config with "sandbox": "off": no plugin host processes, the plugins imported',
  },
  {
    name: COMMAND_NAMES.script,
    argv: [bun, "run", "--cwd", REPO_ROOT, "plugboard", "tools", "--config", UNCONFINED_CONFIG],
    note: "the root script: bun run, then scripts/start.ts (freshness check) and the bundle",
  },
  {
    name: COMMAND_NAMES.source,
    argv: [bun, join(REPO_ROOT, "apps/cli/src/main.ts"), "tools", "--config", UNCONFINED_CONFIG],
    note: "bun apps/cli/src/main.ts tools: every module transpiled at start",
  },
];

/** Measures the commands and records wall time, CPU time and the ratios. */
export async function coldStart(mode: RunMode, log: FigureLog): Promise<void> {
  const shipped = JSON.parse(await readFile(join(REPO_ROOT, "apps/cli/plugboard.config.json"), "utf8")) as object;
  await writeFile(UNCONFINED_CONFIG, JSON.stringify({ ...shipped, sandbox: "off" }));
  await writeFile(NO_CACHE, "");
  try {
    await measure(mode, log);
  } finally {
    await rm(UNCONFINED_CONFIG, { force: true });
    await rm(NO_CACHE, { force: true });
  }
}

async function measure(mode: RunMode, log: FigureLog): Promise<void> {
  const perRound = mode.quick ? 4 : 10;
  const rounds = 3;
  // Builds the bundle when a source is newer (as `bun run plugboard` does), untimed.
  await runProcess([bun, join(REPO_ROOT, "apps/cli/scripts/start.ts"), "--version"], { cwd: REPO_ROOT, env: coldEnv() });
  // Every command runs in bench/ (where openai resolves), so each Bun start reads the same
  // package.json and tsconfig.json; the first round below also fills the listing cache.
  const run = (command: Command) => runProcess(command.argv, { cwd: BENCH_DIR, env: { ...coldEnv(), ...command.env } });
  mode.progress(`cold start: ${COMMANDS.length} commands × ${rounds * perRound} runs, in turn`);
  const runs = COMMANDS.map((): ProcessRun[] => []);
  for (const command of COMMANDS) await run(command);
  for (let round = 0; round < rounds; round++) {
    for (const [index, command] of COMMANDS.entries()) {
      const count = command.slow ? Math.ceil(perRound / 2) : perRound;
      for (let turn = 0; turn < count; turn++) runs[index]?.push(await run(command));
    }
  }
  const record = (group: string, pick: (run: ProcessRun) => number) => {
    const values = new Map<string, number>();
    for (const [index, command] of COMMANDS.entries()) {
      const timing = summarize((runs[index] ?? []).map((run) => pick(run) * 1e6));
      values.set(command.name, log.add(timingFigure(group, command.name, timing, "ms", 1e6, command.note)));
    }
    return (name: string) => values.get(name) ?? Number.NaN;
  };
  const wall = record(COLD_START_GROUP, (run) => run.wallMs);
  const { tools, openai, version, empty } = COMMAND_NAMES;
  log.ratio(COLD_START_GROUP, "plugboard tools / import('openai')", wall(tools), wall(openai), { op: "<=", limit: 1 });
  log.ratio(COLD_START_GROUP, "plugboard --version / empty process", wall(version), wall(empty), { op: "<=", limit: 1.2 });
  log.ratio(COLD_START_GROUP, "plugboard tools, plugins unconfined: from the sources / the bundle", wall(COMMAND_NAMES.source), wall(COMMAND_NAMES.unconfined));
  log.ratio(COLD_START_GROUP, "plugboard tools, plugins unconfined / import('openai')", wall(COMMAND_NAMES.unconfined), wall(openai));
  const cpu = record(COLD_START_CPU_GROUP, (run) => run.cpuMs);
  log.ratio(COLD_START_CPU_GROUP, "plugboard tools / import('openai'), CPU time", cpu(tools), cpu(openai));
  log.ratio(COLD_START_CPU_GROUP, "plugboard tools, plugins unconfined / import('openai'), CPU time", cpu(COMMAND_NAMES.unconfined), cpu(openai));
  log.ratio(COLD_START_CPU_GROUP, "plugboard --version / empty process, CPU time", cpu(version), cpu(empty));
}

/** No model credentials: `tools` must not depend on them, and the child sees the same env each run. */
export function coldEnv(): Record<string, string | undefined> {
  const { MODEL_API_KEY: _a, OPENAI_API_KEY: _b, BASE_URL: _c, OPENAI_BASE_URL: _d, MODEL: _e, ...env } = process.env;
  return env;
}
