/**
 * One host's start taken apart. The view's computation: `confineCommand` for read_file's
 * host (the package closure walk and the mount list), as the app runs it at every host
 * start. The confining step: `bun -e 0` confined as that host is (unshare, then the first
 * Bun that builds the view, applies Landlock and seccomp and `execve`s the second), against
 * the same `bun -e 0` under `unshare`'s namespaces only and unconfined, a plain Bun that
 * only imports confine-main.ts (its share that is loading code), and the confined one with the
 * default limits (its first Bun joins the tree's cgroups, each private tmpfs gets a size), in
 * turn. Then what the app does for a tree's limits: its cgroups made and removed.
 */
import type { FigureLog } from "../harness/figures.ts";
import { type Timing, timeInRounds, timeRuns, timingFigure } from "../harness/measure.ts";
import type { RunMode } from "../harness/mode.ts";
import { runProcess } from "../harness/process.ts";
import { START_STEPS_GROUP } from "./groups.ts";
import { availableMechanism, confineAsReadFileHost, plainEnv, viewMounts } from "./host-view.ts";
import { DEFAULT_LIMITS } from "../../../packages/sandbox/src/limits/limits.ts";
import { limitTree } from "../../../packages/sandbox/src/limits/tree-limits.ts";

const EMPTY = [process.execPath, "-e", "0"];

/** Measures the view's computation and the confining step, in `workspace`. */
export async function startSteps(mode: RunMode, log: FigureLog, workspace: string): Promise<void> {
  const mechanism = availableMechanism();
  mode.progress("sandbox: one host's start, step by step (the view, the namespaces, the confining step)");
  const view = await timeRuns(() => confineAsReadFileHost(mechanism, workspace, EMPTY), { samples: mode.quick ? 20 : 100, warmup: 5 });
  const confined = confineAsReadFileHost(mechanism, workspace, EMPTY);
  const note = `the package closure of the plugin and the hosts package, walked at a host's first start (later ones stat what the walk read): a view of ${viewMounts(confined)} mounts`;
  log.add(timingFigure(START_STEPS_GROUP, "the view's computation (confineCommand, read_file's host)", view, "ms", 1e6, note));

  const env = plainEnv(confined);
  const spawn = (argv: readonly string[], withEnv: Record<string, string>) => () => runProcess(argv, { cwd: confined.cwd, env: withEnv });
  // confineCommand's own args: the namespaces' flags, then Bun, confine-main.ts and the program.
  const namespaces = confined.args.slice(0, confined.args.findIndex((arg) => !arg.startsWith("-")));
  const confineMain = confined.args[namespaces.length + 1] ?? "";
  // One tree's cgroups, joined by every run of it (each run's first process joins them, then exits).
  const limited = confineAsReadFileHost(mechanism, workspace, EMPTY, DEFAULT_LIMITS);
  const contenders = [
    spawn(EMPTY, env),
    spawn([process.execPath, "-e", `await import(${JSON.stringify(confineMain)})`], env),
    spawn([confined.command, ...namespaces, ...EMPTY], env),
    spawn([confined.command, ...confined.args], confined.env),
    spawn([limited.command, ...limited.args], limited.env),
  ];
  let measured: Awaited<ReturnType<typeof timeInRounds>>;
  try {
    measured = await timeInRounds(
      contenders.map((run) => (samples: number) => timeRuns(run, { samples })),
      mode.quick ? { rounds: 2, perRound: 3 } : { rounds: 4, perRound: 5 },
    );
  } finally {
    await limited.limits?.remove();
  }
  const [plain, loaded, unshared, whole, withLimits] = measured;
  if (plain === undefined || loaded === undefined || unshared === undefined || whole === undefined || withLimits === undefined) throw new Error("a contender of the confining step was not measured");
  const ms = (name: string, timing: Timing, note?: string) => log.add(timingFigure(START_STEPS_GROUP, name, timing, "ms", 1e6, note));
  const floor = ms("bun -e 0, unconfined", plain, "spawn to exit, the confined environment without the rules");
  const load = ms("bun -e 0 importing confine-main.ts, unconfined", loaded, "its modules loaded (bun:ffi included), nothing applied");
  const inNamespaces = ms("bun -e 0 in unshare's namespaces only", unshared, `unshare ${namespaces.join(" ")}: no view, no Landlock, no seccomp`);
  const total = ms("bun -e 0 confined as read_file's host", whole, "unshare, then bun confine-main.ts: the view mounted, Landlock, seccomp, execve");
  const part = (name: string, value: number) => log.add({ group: START_STEPS_GROUP, name, value, unit: "ms" });
  part("the confining step (confined − unconfined, difference of medians)", total - floor);
  part("of which the namespaces (unshare − unconfined)", inNamespaces - floor);
  part("of which confine-main.ts (confined − unshare)", total - inNamespaces);
  part("of which the first Bun, loading confine-main.ts's modules (the import row)", load);
  part("of which mounting the view, Landlock, seccomp and execve (the rest)", total - inNamespaces - load);
  const cgroups = limited.limits?.rules.cgroups.length ?? 0;
  const limitedTotal = ms("bun -e 0 limited, confined as read_file's host", withLimits, `with the default limits: ${cgroups} cgroup${cgroups === 1 ? "" : "s"} joined (${cgroups === 0 ? "none writable here" : "pids and memory"}), each private tmpfs sized`);
  part("the limits' share of the confining step (limited − confined)", limitedTotal - total);
  const made = await timeRuns(() => limitTree(DEFAULT_LIMITS).remove(), { samples: mode.quick ? 20 : 100, warmup: 5 });
  ms("a tree's cgroups made and removed, in the app", made, "mkdir below the app's cgroups, the limits written, rmdir once the tree has ended");
}
