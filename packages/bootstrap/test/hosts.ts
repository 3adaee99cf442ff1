/** Finding plugin hosts in /proc: the running processes whose spec names the workspace (each host, and `unshare` before it). */
import { processesWhere } from "@plugboard/test-helpers";

/** Pids of the running hosts (and their `unshare`) whose spec names `workspace`. */
export function hostsOf(workspace: string): number[] {
  return processesWhere(({ argv }) => argv.some((argument) => argument.includes(`"workspace":"${workspace}"`)));
}
