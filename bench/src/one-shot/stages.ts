/**
 * The stages of one `plugboard call bash` run, from the marks `PLUGBOARD_TRACE=1` writes on
 * stderr (`plugboard trace EPOCH_MS STAGE`, core's trace.ts): the CLI's and the app's, the
 * confining step's and the plugin host's (which the app passes on), each with the time since
 * the epoch, so that the bench's own spawn and exit times fall in the same order. The host
 * starts while the app is built, so its stages run beside the app's: the call waits for
 * whichever ends last.
 */
import type { ProcessRun } from "../harness/process.ts";

/** A mark, or the run's spawn or end as the bench saw them. */
type Mark = string;
const SPAWN = "(spawn)";
const EXIT = "(exit)";

/** One stage: the time from one mark to another. */
export interface Stage {
  readonly name: string;
  readonly from: Mark;
  readonly to: Mark;
  readonly note?: string;
}

const stage = (name: string, from: Mark, to: Mark, note?: string): Stage => ({ name, from, to, ...(note === undefined ? {} : { note }) });

/** The whole run in four parts. */
export const SUMMARIES: readonly Stage[] = [
  stage("app start: spawn to the app built", SPAWN, "app: built", "Bun, the CLI's code, the config, the plugins, the sandbox's checks and the host's spawn"),
  stage("the host's start: spawned to ready", "host: spawned", "host: ready", "beside the app's start: the confining step, then the host program"),
  stage("the call: to its result", "call: executing", "call: result", "waiting for the host, the plugin's first load, bash, the look for what the call left behind"),
  stage("exit: the result to the process's end", "call: result", EXIT, "the host ended, output drained"),
];

/** Every stage, in the order of a run. */
export const STAGES: readonly Stage[] = [
  stage("Bun started, the CLI's entry loaded", SPAWN, "cli: started"),
  stage("the call command's code loaded", "cli: started", "cli: command loaded"),
  stage("the config loaded", "cli: command loaded", "app: config loaded"),
  stage("the host's confining step spawned ahead", "app: config loaded", "host: spawned", "as the plan begins, before the workspace is opened and the plugins found: the launcher loaded, the step's command line, environment and rules' pipe made"),
  stage("the plugins resolved", "app: config loaded", "app: plugins resolved", "five packages found and their manifests checked, the step above spawned meanwhile"),
  stage("the code's pins checked", "app: plugins resolved", "app: code pins checked"),
  stage("the sandbox detected", "app: code pins checked", "app: sandbox detected", "a yes of the namespace probe kept from an earlier start; on a first start, the step started ahead seen in its namespaces, which stands in for the probe"),
  stage("the confinement's modules loaded", "app: sandbox detected", "app: confinement's modules loaded"),
  stage("the listing cache read, the host programs found", "app: confinement's modules loaded", "host: programs found", "the egress channel loaded as the first host starts, the programs the CLI ships found"),
  stage("the host's view, protected paths and cgroups made and sent", "host: programs found", "host: view and limits made", "while the host's confining step starts: the step started ahead taken, the protections loaded and the span of confined writes begun (the first host), the paths kept read-only (code, git metadata, other tools' files), the code's closure, the view, the tree's cgroups, the rules (the program among them) written to its pipe"),
  stage("the app built around the host", "host: view and limits made", "app: built", "the other hosts mounted from the listing cache, the registry and the runtime"),
  stage("host: unshare, a Bun started, the confining step loaded", "host: spawned", "confine: started"),
  stage("host: its rules read", "confine: started", "confine: rules read", "waiting for the app's rules, when its start was the quicker"),
  stage("host: the tree's cgroups joined", "confine: rules read", "confine: cgroups joined"),
  stage("host: the view mounted", "confine: cgroups joined", "confine: view mounted"),
  stage("host: the session left, capabilities dropped, Landlock", "confine: view mounted", "confine: landlock applied"),
  stage("host: seccomp", "confine: landlock applied", "confine: seccomp installed"),
  stage("host: the host program loaded", "confine: seccomp installed", "host program: loaded", "in the confining step's own process, every thread of it confined (an execve and a second Bun when one was not)"),
  stage("host: the host program ready", "host program: loaded", "host program: sends ready", "its token read (the workspace opens, and the called tool's plugin loads, from here on, while the first call comes)"),
  stage("host: ready, as the app heard it", "host program: sends ready", "host: ready"),
  stage("call: the gate, then waiting for the host", "call: executing", "call: sent to the host"),
  stage("call: the bash plugin loaded in the host", "call: sent to the host", "host program: runs bash", "what of its loading (begun as the host ran) outlasts the call's way to the host"),
  stage("call: bash ran true", "host program: runs bash", "host program: bash answered", "the plugin's run: the command's process tree, its output, the tree ended"),
  stage("call: the answer back in the app", "host program: bash answered", "call: the host answered"),
  stage("call: what the call left behind looked for", "call: the host answered", "call: leftovers looked for"),
  stage("call: the result to the CLI", "call: leftovers looked for", "call: result"),
  stage("exit: the app closed, its host ended", "call: result", "cli: apps closed"),
  stage("exit: output drained, the process ended", "cli: apps closed", EXIT),
];

const TRACE_LINE = /^plugboard trace (\d+\.\d+) (.+)$/;

/** Each stage's time (ms) in `run`, from its trace; a stage whose marks are missing is left out. */
export function stageTimes(run: ProcessRun): Map<Stage, number> {
  const marks = new Map<Mark, number>([
    [SPAWN, run.startedAt],
    [EXIT, run.startedAt + run.wallMs],
  ]);
  for (const line of run.stderr.split("\n")) {
    const match = TRACE_LINE.exec(line);
    // The first time a mark is reached (a host that started again would mark twice).
    if (match !== null && !marks.has(match[2] ?? "")) marks.set(match[2] ?? "", Number(match[1]));
  }
  const times = new Map<Stage, number>();
  for (const each of [...SUMMARIES, ...STAGES]) {
    const from = marks.get(each.from);
    const to = marks.get(each.to);
    if (from !== undefined && to !== undefined) times.set(each, to - from);
  }
  return times;
}
