/**
 * A plugin host's confining step started ahead: as soon as the app knows a confined call is
 * about to come (`plugboard call TOOL`), before it has found the plugin that provides the
 * tool, so that the step's own start (`unshare`, a Bun) runs while the app finds its plugins.
 * It runs nothing until a host takes it and sends its rules, which name the program then. A
 * host whose command line would differ (another network, another confining program) starts
 * its own, and a step no host took is ended with the app's build.
 */
import { readFileSync, readlinkSync, realpathSync } from "node:fs";
import { lazilySync } from "@plugboard/core/internal";
import { killGroup, killGroupOnExit } from "@plugboard/core/process";
import { trace } from "@plugboard/core/trace";
import type { AheadConfinedCommand, LaunchOptions } from "@plugboard/sandbox/launcher";
import type { Mechanism } from "@plugboard/sandbox";

/** A host's process: its protocol on stdin and stdout, its messages on stderr. */
export type HostChild = Bun.Subprocess<"pipe", "pipe", "pipe">;

/** A confining step started ahead of its host (`startHostAhead`), for the first host it fits. */
export interface HostAhead {
  /** The step, when a host confined with `options` may be it and no host took it yet; then it is that host's. */
  take(options: LaunchOptions): { readonly child: HostChild; readonly step: AheadConfinedCommand } | undefined;
  /** Ends the step unless a host took it (safe to call twice): it runs nothing. */
  close(): void;
  /**
   * Whether the step comes to run in its namespaces: its `unshare` made them (user, PID,
   * mount, IPC and network: each differs from this process's) and its child runs the Bun that
   * waits for the rules. Then they work on this machine, as the namespace probe would have
   * found. False once the step has ended without, or after `SHOWN_WITHIN_MS`.
   */
  inNamespaces(): Promise<boolean>;
}

/** How long `inNamespaces` waits for the step's `unshare` (milliseconds), before the probe is asked instead. */
const SHOWN_WITHIN_MS = 1000;

/** The namespaces a step started ahead has of its own (the probe's). */
const NAMESPACES = ["user", "pid", "mnt", "ipc", "net"];

/** Whether a child of `pid` (`unshare --fork`'s) runs `bun` in namespaces other than `own` (this process's, in `NAMESPACES` order). */
function childInNamespaces(pid: number, bun: string, own: readonly string[]): boolean {
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(" ").filter(Boolean);
    return children.some((child) => readlinkSync(`/proc/${child}/exe`) === bun && NAMESPACES.every((name, index) => readlinkSync(`/proc/${child}/ns/${name}`) !== own[index]));
  } catch {
    // Gone, not started yet, or not ours to read: not shown.
    return false;
  }
}

/**
 * Spawns `step` as a host's process (in a process group of its own, its rules' pipe on
 * `RULES_FD`, a narrowed network's channel on fd 3); the pipe's end here is closed either way.
 */
export function spawnStep(step: AheadConfinedCommand, channel?: number): HostChild {
  try {
    return Bun.spawn([step.command, ...step.args], {
      env: step.env,
      cwd: step.cwd,
      stdio: ["pipe", "pipe", "pipe", channel ?? "ignore", step.rulesFd],
      detached: true,
    });
  } catch (error) {
    step.abandon();
    throw error;
  } finally {
    step.spawned();
  }
}

/** Starts a host's confining step now, its command line and environment from `launch` (see `confineAhead`). */
export function startHostAhead(mechanism: Pick<Extract<Mechanism, { available: true }>, "unshare">, launch: LaunchOptions): HostAhead {
  const { confineAhead } = lazilySync("the sandbox's launcher", () => require("@plugboard/sandbox/launcher") as typeof import("@plugboard/sandbox/launcher"));
  const step = confineAhead(mechanism, launch);
  const child = spawnStep(step);
  trace("host: spawned");
  // Ended with the app in any case: it may die before its build ends.
  const forget = killGroupOnExit(child.pid);
  let open = true;
  return {
    take(options) {
      if (!open || !step.fits(options)) return undefined;
      open = false;
      forget();
      return { child, step };
    },
    close() {
      if (!open) return;
      open = false;
      step.abandon();
      killGroup(child.pid);
      forget();
    },
    inNamespaces: async () => {
      const bun = realpathSync(process.execPath);
      const own = NAMESPACES.map((name) => readlinkSync(`/proc/self/ns/${name}`));
      const until = performance.now() + SHOWN_WITHIN_MS;
      // The kernel tells no one when a process enters namespaces or execs: looked at every millisecond, while the step lives.
      while (child.exitCode === null && child.signalCode === null && performance.now() < until) {
        if (childInNamespaces(child.pid, bun, own)) return true;
        await Bun.sleep(1);
      }
      return false;
    },
  };
}
