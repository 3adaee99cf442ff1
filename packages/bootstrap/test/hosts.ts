/** Finding plugin hosts in /proc: the running processes confined to the workspace (each host, and `unshare` before it). */
import { realpathSync } from "node:fs";
import { processesWhere } from "@plugboard/test-helpers";

/** Whether a command line is a host's (or its `unshare`'s) for `workspace`: the confining step names it (`--workspace DIR`), a host program's spec too. */
function forWorkspace(argv: readonly string[], workspace: string): boolean {
  return argv.some((argument, index) => (argv[index - 1] === "--workspace" && argument === workspace) || argument.includes(`"workspace":"${workspace}"`));
}

/** Pids of the running hosts (and their `unshare`) confined to `workspace`. */
export function hostsOf(workspace: string): number[] {
  return processesWhere(({ argv }) => forWorkspace(argv, workspace));
}

/** Pids of the running hosts confined to `workspace`, each once: the Bun each runs in, not its `unshare`. */
export function hostProcessesOf(workspace: string): number[] {
  const bun = realpathSync(process.execPath);
  return processesWhere(({ argv }) => forWorkspace(argv, workspace) && (argv[0] === process.execPath || argv[0] === bun));
}
