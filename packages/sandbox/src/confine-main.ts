/**
 * The confining step of a plugin host's start, inside the host's new namespaces: build the
 * view in `PLUGBOARD_SANDBOX_RULES` and make it the root, with a narrowed `network` hand the
 * app the listener its proxy answers on (egress-channel.ts), leave the app's session (so no
 * terminal of the person's can be opened), restrict this thread with Landlock and the
 * seccomp filter, then `execve` the program named by the arguments, which inherits every
 * restriction on every thread it will have. Run by the launcher; not an API.
 */
import { applyView } from "./apply-view.ts";
import { CHANNEL_FD, handOverListener } from "./egress-channel.ts";
import { execve } from "./exec.ts";
import { type LandlockRules, RULES_VARIABLE, restrictSelf } from "./landlock.ts";
import { libc } from "./libc.ts";
import { installSeccomp, type SeccompRules } from "./seccomp.ts";
import type { View } from "./view.ts";

/** Everything the confining step applies, as the launcher passes it. */
export interface ConfinementRules {
  readonly view: View;
  readonly landlock: LandlockRules;
  readonly seccomp: SeccompRules;
  /** A narrowed `network`: the app's proxy is the only route out, its channel on fd `CHANNEL_FD`. */
  readonly egress?: true;
}

/**
 * Confines this process with the rules in `env` and replaces it with `argv` (program first);
 * on failure writes the reason and exits 126. Never returns.
 */
export function confineAndExec(argv: readonly string[], environment: Readonly<Record<string, string | undefined>>): never {
  const [file, ...args] = argv;
  const rules = environment[RULES_VARIABLE];
  if (file === undefined || rules === undefined) {
    process.stderr.write(`usage: ${RULES_VARIABLE}=JSON bun confine-main.ts PROGRAM [ARGS...]\n`);
    process.exit(2);
  }
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(environment)) {
    if (name !== RULES_VARIABLE && value !== undefined) env[name] = value;
  }
  try {
    const { view, landlock, seccomp, egress } = JSON.parse(rules) as ConfinementRules;
    applyView(view);
    if (egress === true) handOverListener(CHANNEL_FD);
    libc.setsid();
    restrictSelf(landlock);
    installSeccomp(seccomp);
    execve(file, [file, ...args], env);
  } catch (error) {
    process.stderr.write(`plugboard sandbox: ${error instanceof Error ? error.message : String(error)}\n`);
  }
  process.exit(126);
}

if (import.meta.main) confineAndExec(process.argv.slice(2), process.env);
