/**
 * Suite 13 — one confined command, whole process, side by side with the anchors: `plugboard
 * call bash '{"command":"true"}'` (the bundled CLI, the shipped config, its five plugins
 * confined, the defences against what a call leaves behind on), Codex's sandbox (`codex
 * sandbox true`, its native binary, and through its npm launcher) and Anthropic's sandbox
 * runtime (`srt true`, its built-in defaults), each spawn to exit, in one workspace (a git
 * repository holding one file), in turn, round after round. Then Plugboard's run taken apart:
 * the same command with `PLUGBOARD_TRACE=1`, each stage's time from the marks the CLI, the
 * app, the confining step and the plugin host write on stderr (core's trace.ts).
 */
import { loadavg } from "node:os";
import type { FigureLog } from "../harness/figures.ts";
import { summarize, timingFigure } from "../harness/measure.ts";
import type { RunMode } from "../harness/mode.ts";
import { type ProcessRun, runProcess } from "../harness/process.ts";
import { withCliWorkspace } from "../sandbox/cli-workspace.ts";
import { type Anchor, anchors, CODEX_VERSION, SRT_VERSION } from "./anchors.ts";
import { ONE_SHOT_GROUP, STAGES_GROUP } from "./groups.ts";
import { type Stage, STAGES, SUMMARIES, stageTimes } from "./stages.ts";

const CALL = ["call", "bash", JSON.stringify({ command: "true" })];
/** What `plugboard call bash` prints for `true`. */
const CALL_OUTPUT = "(no output)\nexit code: 0\n";

/** The names the ratios and the report refer to. */
export const ONE_SHOT_NAMES = {
  plugboard: "plugboard call bash true, confined",
  codexNative: "Codex's sandbox: codex sandbox true, its native binary",
  codexLauncher: "Codex's sandbox through its npm launcher: node bin/codex.js sandbox true",
  srt: "Anthropic's sandbox runtime: srt true",
} as const;

interface Contender {
  readonly name: string;
  readonly note: string;
  readonly anchor: Anchor;
  readonly env?: Readonly<Record<string, string>>;
}

/** Measures the four commands, then Plugboard's stages. */
export async function oneShot(mode: RunMode, log: FigureLog): Promise<void> {
  const loadAtStart = loadavg()[0] ?? Number.NaN;
  const found = await anchors(mode);
  const runs = mode.quick ? 10 : 30;
  const traced = mode.quick ? 6 : 20;
  await withCliWorkspace({ mode }, async (cli) => {
    // A repository, as most workspaces are: each sandbox has its metadata to keep (Plugboard's view keeps .git/config and hooks read-only).
    await runProcess(["git", "init", "--quiet", cli.root]);
    const ours: Anchor = { ok: true, argv: cli.argv("auto", CALL) };
    const contenders: Contender[] = [
      {
        name: ONE_SHOT_NAMES.plugboard,
        note: "the bundled CLI, spawn to exit: the shipped config's five plugins confined (bash's host started for the call, the others not at all), the listing cache warm, the protections on",
        anchor: ours,
      },
      {
        name: ONE_SHOT_NAMES.codexNative,
        note: `@openai/codex ${CODEX_VERSION}, its platform package's binary; an empty CODEX_HOME: its default sandbox (the workspace read-only, no network)`,
        anchor: found.codexNative,
        env: { CODEX_HOME: found.codexHome },
      },
      {
        name: ONE_SHOT_NAMES.codexLauncher,
        note: "the npm package's bin, a Node script that finds the native binary and spawns it",
        anchor: found.codexLauncher,
        env: { CODEX_HOME: found.codexHome },
      },
      {
        name: ONE_SHOT_NAMES.srt,
        note: `@anthropic-ai/sandbox-runtime ${SRT_VERSION} on Node, its built-in defaults written to --settings: bubblewrap, no network but through its proxies, no writes`,
        anchor: found.srt,
      },
    ];
    const measured = contenders.filter((contender) => contender.anchor.ok);
    mode.progress(`one-shot: ${measured.length} commands × ${runs} runs, in turn, then ${traced} traced runs of plugboard call bash`);
    const run = async (contender: Contender, trace = false): Promise<ProcessRun> => {
      if (!contender.anchor.ok) throw new Error(`${contender.name}: ${contender.anchor.why}`);
      const argv = contender.anchor === ours ? contender.anchor.argv : [...contender.anchor.argv, "true"];
      const result = await runProcess(argv, { cwd: cli.root, env: { ...cli.env, ...contender.env, ...(trace ? { PLUGBOARD_TRACE: "1" } : {}) }, capture: true });
      if (contender.anchor === ours && result.stdout !== CALL_OUTPUT) throw new Error(`plugboard call bash printed ${JSON.stringify(result.stdout)}: ${result.stderr}`);
      return result;
    };
    // One untimed run of each: the listing cache filled, the host programs made, the files in the page cache.
    for (const contender of measured) await run(contender);
    const walls = new Map<string, number[]>(measured.map(({ name }) => [name, []]));
    const cpus = new Map<string, number[]>(measured.map(({ name }) => [name, []]));
    for (let round = 0; round < runs; round++) {
      // The order turns every round, so no command always runs on a machine another just warmed.
      const order = measured.map((_, index) => measured[(index + round) % measured.length]).filter((contender) => contender !== undefined);
      for (const contender of order) {
        const done = await run(contender);
        walls.get(contender.name)?.push(done.wallMs);
        cpus.get(contender.name)?.push(done.cpuMs);
      }
    }
    const wall = new Map<string, number>();
    for (const contender of contenders) {
      if (!contender.anchor.ok) {
        log.add({ group: ONE_SHOT_GROUP, name: contender.name, value: Number.NaN, unit: "ms", note: `not measured: ${contender.anchor.why}` });
        continue;
      }
      wall.set(contender.name, log.add(timingFigure(ONE_SHOT_GROUP, contender.name, msTiming(walls.get(contender.name) ?? []), "ms", 1e6, contender.note)));
    }
    for (const contender of measured) {
      log.add(timingFigure(ONE_SHOT_GROUP, `${contender.name}, CPU time`, msTiming(cpus.get(contender.name) ?? []), "ms", 1e6, "user + system, the processes it waited for included"));
    }
    const of = (name: string) => wall.get(name) ?? Number.NaN;
    log.ratio(ONE_SHOT_GROUP, "plugboard call bash / Codex's native sandbox", of(ONE_SHOT_NAMES.plugboard), of(ONE_SHOT_NAMES.codexNative), { op: "<=", limit: 1 });
    log.ratio(ONE_SHOT_GROUP, "plugboard call bash / Codex through its npm launcher", of(ONE_SHOT_NAMES.plugboard), of(ONE_SHOT_NAMES.codexLauncher));
    log.ratio(ONE_SHOT_GROUP, "plugboard call bash / Anthropic's sandbox runtime", of(ONE_SHOT_NAMES.plugboard), of(ONE_SHOT_NAMES.srt));

    // Plugboard's run, stage by stage.
    const plugboard = measured[0];
    if (plugboard === undefined) return;
    const samples: Map<Stage, number>[] = [];
    const totals: number[] = [];
    for (let index = 0; index < traced; index++) {
      const done = await run(plugboard, true);
      samples.push(stageTimes(done));
      totals.push(done.wallMs);
    }
    log.add(timingFigure(STAGES_GROUP, "plugboard call bash true, traced (PLUGBOARD_TRACE=1), spawn to exit", msTiming(totals), "ms", 1e6, "the runs the stages below come from"));
    for (const stage of [...SUMMARIES, ...STAGES]) {
      const values = samples.flatMap((times) => {
        const value = times.get(stage);
        return value === undefined ? [] : [value];
      });
      if (values.length === 0) throw new Error(`no traced run reached the stage ${stage.name}: the trace's marks changed`);
      log.add(timingFigure(STAGES_GROUP, stage.name, msTiming(values), "ms", 1e6, stage.note));
    }
  });
  // The machine is shared: the load during these rows says how far to trust them.
  log.add({ group: ONE_SHOT_GROUP, name: "1-minute load average, start of the suite", value: loadAtStart, unit: "" });
  log.add({ group: ONE_SHOT_GROUP, name: "1-minute load average, end of the suite", value: loadavg()[0] ?? Number.NaN, unit: "" });
}

/** A timing from samples in ms. */
function msTiming(values: readonly number[]) {
  return summarize(values.map((value) => value * 1e6));
}
