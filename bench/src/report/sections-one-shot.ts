/** BENCHMARKS.md section 14 (one confined command against the anchors): what is measured, and a reading with the per-stage budget. */
import { formatNumber as n } from "../harness/format.ts";
import { CODEX_VERSION, SRT_VERSION } from "../one-shot/anchors.ts";
import { ONE_SHOT_GROUP, ONE_SHOT_GROUPS, STAGES_GROUP } from "../one-shot/groups.ts";
import { ONE_SHOT_NAMES } from "../one-shot/one-shot.ts";
import type { FigureIndex } from "./lookup.ts";
import type { Section } from "./section.ts";

const oneShot: Section = {
  title: "14. One confined command, against Codex's and Anthropic's sandboxes",
  groups: ONE_SHOT_GROUPS,
  measured: () =>
    [
      "Whole processes, spawn to exit, each run in the same workspace (a temp folder made a git repository, holding one",
      "file), in turn, the order turning every round, after one untimed run of each; 30 runs each (10 in --quick), wall",
      "and CPU time (user + system, with the processes each waited for). *Plugboard*: `plugboard call bash",
      "'{\"command\":\"true\"}'`, the bundled CLI (`bun --no-env-file --config=/dev/null apps/cli/dist/bin.js`, rebuilt first",
      "when a source is newer) with the shipped config (`\"sandbox\": \"auto\"`: its five plugins confined, bash's host",
      "started for the call while the app is built, the others not at all), its own `XDG_CACHE_HOME` and `XDG_STATE_HOME`",
      "with the listing cache warm, and every defence against what a call leaves behind on: the code's pins checked, the",
      "workspace's git metadata, other tools' files and the app's code kept read-only in the host's view, the look after",
      "the call for what it left behind, the record of the span in which confined plugins could write, and the default",
      "limits (a pids and a memory cgroup joined by the tree's first process, each private tmpfs sized).",
      `*Codex* (\`@openai/codex\` ${CODEX_VERSION}): \`codex sandbox true\`, its default sandbox (the workspace read-only, no`,
      "network, a seccomp filter), with an empty `CODEX_HOME` of the bench's; its native binary (the platform package",
      "`@openai/codex-linux-x64`, which npm installs as an optional dependency), and its npm package's bin, a Node",
      `launcher that finds and spawns that binary. *Anthropic's sandbox runtime* (\`@anthropic-ai/sandbox-runtime\` ${SRT_VERSION}):`,
      "`srt true` on Node with its built-in defaults written to `--settings` (no writes, no network but through its",
      "proxies, bubblewrap; it needs `bwrap`, `socat` and `rg`, Debian's `bubblewrap`, `socat` and `ripgrep`, and is",
      "reported as not measured, with the reason, where they are missing). The anchors are installed by npm at the pinned",
      "versions into `bench/.anchors/` on the first run and kept (not workspace dependencies: Codex's platform package is",
      "about 400 MB). *Stage by stage*: the same Plugboard command 20 times more (6 in --quick) with `PLUGBOARD_TRACE=1`,",
      "whose marks (`plugboard trace EPOCH_MS STAGE` on stderr: the CLI's, the app's, and the confining step's and plugin",
      "host's, which the app passes on) give each stage's time, spawn and exit taken by the bench; median of each. The",
      "host starts while the app is built, so its stages run beside the app's, and the call waits for the later of the",
      "two. Goal: no slower than Codex's native sandbox. `bun run --cwd bench one-shot` refreshes this section alone.",
    ].join(" "),
  reading: (index: FigureIndex, env) => oneShotReadings(index, env.cores),
};

function oneShotReadings(index: FigureIndex, cores: number): string[] {
  const value = (name: string) => index.value(ONE_SHOT_GROUP, name);
  const stage = (name: string) => index.value(STAGES_GROUP, name);
  const ours = value(ONE_SHOT_NAMES.plugboard);
  if (Number.isNaN(ours)) return ["The one-shot command was not measured in this run."];
  const native = value(ONE_SHOT_NAMES.codexNative);
  const launcher = value(ONE_SHOT_NAMES.codexLauncher);
  const srt = value(ONE_SHOT_NAMES.srt);
  const cpu = (name: string) => value(`${name}, CPU time`);
  const ratio = ours / native;
  const notMeasured = (name: string) => index.find(ONE_SHOT_GROUP, name)?.note ?? "";
  const anchors = [
    Number.isNaN(native) ? `Codex's sandbox was not measured (${notMeasured(ONE_SHOT_NAMES.codexNative)})` : `Codex's sandbox takes ${n(native)} ms by its native binary (${n(cpu(ONE_SHOT_NAMES.codexNative))} ms of CPU) and ${n(launcher)} ms through its npm launcher, which starts Node first`,
    Number.isNaN(srt) ? `Anthropic's sandbox runtime was not measured (${notMeasured(ONE_SHOT_NAMES.srt)})` : `Anthropic's sandbox runtime ${n(srt)} ms (${n(cpu(ONE_SHOT_NAMES.srt))} ms of CPU: Node, its proxies and bubblewrap)`,
  ];
  const verdict = Number.isNaN(ratio) ? "" : ` — ${n(ratio)}× Codex's native sandbox, ${ratio <= 1 ? "within" : "**over**"} the goal of no slower`;
  const load = Math.max(value("1-minute load average, start of the suite"), value("1-minute load average, end of the suite"));
  const busy = load > cores ? ` This run's machine was busy (a 1-minute load average of up to ${n(load)} on ${cores} cores): every row is inflated, a process start most, and the CPU times are the steadier figures.` : "";
  const app = stage("app start: spawn to the app built");
  const host = stage("the host's start: spawned to ready");
  const call = stage("the call: to its result");
  const exit = stage("exit: the result to the process's end");
  const confining = ["host: unshare, a Bun started, the confining step loaded", "host: its rules read", "host: the tree's cgroups joined", "host: the view mounted", "host: the session left, capabilities dropped, Landlock", "host: seccomp"].map(stage);
  const confiningTotal = confining.reduce((sum, each) => sum + each, 0);
  const hostProgram = stage("host: the host program loaded") + stage("host: the host program ready");
  const appCode = stage("Bun started, the CLI's entry loaded") + stage("the call command's code loaded");
  const appWork = app - appCode;
  const waited = stage("call: the gate, then waiting for the host");
  const toSpawn = ["Bun started, the CLI's entry loaded", "the call command's code loaded", "the config loaded", "the host's confining step spawned ahead"].map(stage).reduce((sum, each) => sum + each, 0);
  const rules = stage("host: its rules read");
  const afterReady = ["host: ready, as the app heard it", "call: the bash plugin loaded in the host", "call: bash ran true", "call: the answer back in the app", "call: what the call left behind looked for", "call: the result to the CLI"].map(stage).reduce((sum, each) => sum + each, 0);
  return [
    `A whole \`plugboard call bash '{"command":"true"}'\`, confined, takes ${n(ours)} ms (${n(cpu(ONE_SHOT_NAMES.plugboard))} ms of CPU)${verdict}. ${anchors.join("; ")}.${busy}`,
    `Where Plugboard's ${n(stage("plugboard call bash true, traced"))} ms go (the traced runs; the table lists every stage): the app's start, ${n(app)} ms to the app built, is ${n(appCode)} ms of Bun starting and loading the CLI's code for \`call\` and ${n(appWork)} ms of work — the config, the host's confining step spawned ahead (${n(stage("the host's confining step spawned ahead"))} ms after the config: before the plugins are found), the five plugins resolved and their code's pins checked, the sandbox detected, the host's view with every protected path and its cgroups made and sent to the step, the app built around it. Beside it the host starts, ${n(host)} ms from its spawn to ready: the confining step ${n(confiningTotal)} ms (\`unshare\` and a first Bun loading the confining program ${n(confining[0] ?? Number.NaN)} ms, waiting for the app's rules ${n(rules)} ms, the tree's cgroups joined ${n(confining[2] ?? Number.NaN)} ms, the view mounted ${n(confining[3] ?? Number.NaN)} ms, capabilities dropped and Landlock ${n(confining[4] ?? Number.NaN)} ms, seccomp ${n(confining[5] ?? Number.NaN)} ms), then the host program, run in the step's own process, ${n(hostProgram)} ms to ready. The call waits ${n(waited)} ms for the host once the app is built, then the bash plugin finishes loading in the host (${n(stage("call: the bash plugin loaded in the host"))} ms more: the host begins loading the plugin of the tool about to be called as soon as it runs, its TypeScript transpiled), bash runs \`true\` (${n(stage("call: bash ran true"))} ms) and the workspace is looked at for what the call left behind (${n(stage("call: what the call left behind looked for"))} ms): the call ${n(call)} ms in all. Exit takes ${n(exit)} ms, most of it waiting for the host's tree to end (its PID and mount namespaces torn down) so that its cgroups can be removed.`,
    `The budget, against Codex's ${n(native)} ms: the critical path is the app's start up to the host's spawn (${n(toSpawn)} ms), the host's start (${n(host)} ms, of which ${n(rules)} ms waiting for the rules the app makes meanwhile), the call once the host is ready (${n(afterReady)} ms) and exit (${n(exit)} ms); the rest of the app's work runs beside the host's start. Codex is one native program that sets up its sandbox and \`exec\`s the command; Plugboard starts two Bun processes in a row on that path — the CLI, and the confining step, which confines itself and then runs the host program in its own process — and loads the plugin's TypeScript in the host. No stage alone closes the gap of ${n(ours - native)} ms: the confining step as a small native program would save most of its Bun's ${n(confining[0] ?? Number.NaN)} ms, the plugin's load, which the host begins as it runs, what of it outlasts the call's way to the host (${n(stage("call: the bash plugin loaded in the host"))} ms), and Bun's own start with the CLI's code (${n(appCode)} ms) is the rest of the path before the spawn. The host program starts no second Bun: Landlock binds only the thread that applies it, so the step used to \`execve\` the host into a new Bun that started already restricted; now the step starts on one thread (its environment turns Bun's JIT compiler thread and the heap's warm-up thread off), installs the seccomp filter last on that thread, and runs the host program in place when every thread shows the filter, no capability and \`no_new_privs\` (a thread that does not makes it \`execve\` as before). The host program loaded took ${n(stage("host: the host program loaded"))} ms from seccomp in this run. The tree's cgroups joined (${n(confining[2] ?? Number.NaN)} ms) is the kernel moving the confining step into the tree's two cgroups: on cgroup v1 it writes its own thread into each \`tasks\` (the thread that then runs the program), which skips the kernel's wait for an RCU grace period that moving the whole process through \`cgroup.procs\` takes (10 ms or more when measured here); on cgroup v2, where only \`cgroup.procs\` joins, a process could be started inside its cgroup (\`clone3\` with \`CLONE_INTO_CGROUP\`), which \`Bun.spawn\` does not offer.`,
  ];
}

/** Section 14. */
export const ONE_SHOT_SECTIONS: readonly Section[] = [oneShot];
