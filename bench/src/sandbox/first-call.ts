/**
 * The first confined call as a person meets it: the wall time of a whole `plugboard call
 * read_file '{"path":"notes.txt"}'` process (the bundled CLI) with the shipped config's
 * five plugins confined and the listing cache warm, so that only read_file's host starts
 * (while the app is built: buildApp's `warm`), against the same command with the sandbox
 * off. The two are run in turn, one run each at a time, after one untimed run of each.
 * Then the same app built in the bench's process, from its config to the call's result,
 * confined and off: what the host's start costs without the CLI's own start and exit.
 */
import { join } from "node:path";
import { buildApp, loadConfig } from "@plugboard/bootstrap";
import type { FigureLog } from "../harness/figures.ts";
import { summarize, timingFigure } from "../harness/measure.ts";
import type { RunMode } from "../harness/mode.ts";
import { REPO_ROOT } from "../harness/paths.ts";
import { runProcess } from "../harness/process.ts";
import { type CliWorkspace, NOTES, type SandboxSetting, withCliWorkspace } from "./cli-workspace.ts";
import { CLI_GROUP } from "./groups.ts";

const ARGS = ["call", "read_file", JSON.stringify({ path: NOTES.path })];
/** The goal: confined, at most 1.5 times the same command with the sandbox off. */
const GOAL = 1.5;
const CLI_FOLDER = join(REPO_ROOT, "apps/cli");

/** Measures the first confined call against the sandbox off. */
export async function firstCall(mode: RunMode, log: FigureLog): Promise<void> {
  const runs = mode.quick ? 12 : 30;
  mode.progress(`sandbox: plugboard call read_file, confined and with the sandbox off, ${runs} runs each, in turn`);
  const { walls, inBench } = await withCliWorkspace({ mode }, async (cli) => {
    const sampled = { walls: { auto: [] as number[], off: [] as number[] }, inBench: { auto: [] as number[], off: [] as number[] } };
    const call = async (sandbox: SandboxSetting) => {
      const run = await runProcess(cli.argv(sandbox, ARGS), { cwd: cli.root, env: cli.env, capture: true });
      if (run.stdout !== NOTES.text) throw new Error(`plugboard call read_file (sandbox ${sandbox}) printed ${JSON.stringify(run.stdout)}: ${run.stderr}`);
      return run.wallMs;
    };
    // The first runs fill the listing cache (and make the host programs), untimed.
    for (const sandbox of ["auto", "off"] as const) await call(sandbox);
    // One run of each at a time, the order swapped every time, so neither always runs on a machine the other just warmed.
    for (let run = 0; run < runs; run++) {
      for (const sandbox of run % 2 === 0 ? (["auto", "off"] as const) : (["off", "auto"] as const)) sampled.walls[sandbox].push(await call(sandbox));
    }
    for (let run = 0; run < runs; run++) {
      for (const sandbox of run % 2 === 0 ? (["auto", "off"] as const) : (["off", "auto"] as const)) sampled.inBench[sandbox].push(await appAndCall(cli, sandbox));
    }
    return sampled;
  });
  const ms = (name: string, values: readonly number[], note: string) => log.add(timingFigure(CLI_GROUP, name, summarize(values.map((value) => value * 1e6)), "ms", 1e6, note));
  const confined = ms(
    "plugboard call read_file, five plugins confined",
    walls.auto,
    "the bundled CLI, spawn to exit; listing cache warm: read_file's host starts while the app is built, the others not at all",
  );
  const off = ms("plugboard call read_file, sandbox off", walls.off, 'the same command with "sandbox": "off": the plugins imported into the CLI');
  log.ratio(CLI_GROUP, "first confined call / sandbox off", confined, off, { op: "<=", limit: GOAL });
  log.add({ group: CLI_GROUP, name: "added by the confined host (difference of medians)", value: confined - off, unit: "ms" });
  const note = "loadConfig, buildApp as the CLI calls it (warm: read_file) and the call, in a process that has loaded everything already";
  const hosted = ms("in the bench's process: the app built and read_file called, five plugins confined", inBench.auto, note);
  const plain = ms("in the bench's process: the app built and read_file called, sandbox off", inBench.off, note);
  log.add({ group: CLI_GROUP, name: "of which read_file's host: started, listed and called (difference of medians)", value: hosted - plain, unit: "ms" });
}

/** The app of `call` built in this process, to its first result, in ms (its close not counted). */
async function appAndCall(cli: CliWorkspace, sandbox: SandboxSetting): Promise<number> {
  const started = performance.now();
  const config = await loadConfig(cli.config(sandbox), { env: cli.env, cwd: cli.root });
  const app = await buildApp(config, { appFolder: CLI_FOLDER, env: cli.env, warm: ["read_file"] });
  try {
    const result = await app.runtime.execute("read_file", ARGS[2] ?? "");
    const elapsed = performance.now() - started;
    if (`${result.content}\n` !== NOTES.text) throw new Error(`read_file (sandbox ${sandbox}) answered ${JSON.stringify(result.content)}`);
    return elapsed;
  } finally {
    await app.close();
  }
}
