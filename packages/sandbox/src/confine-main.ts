/**
 * The confining step of a plugin host's start: restrict this thread with the Landlock
 * rules in `PLUGBOARD_SANDBOX_RULES`, then `execve` the program named by the arguments, which
 * inherits the restriction on every thread it will have. Run by the launcher inside the
 * host's namespaces; not an API.
 */
import { execve } from "./exec.ts";
import { type LandlockRules, RULES_VARIABLE, restrictSelf } from "./landlock.ts";

if (import.meta.main) {
  const [file, ...args] = process.argv.slice(2);
  const rules = process.env[RULES_VARIABLE];
  if (file === undefined || rules === undefined) {
    process.stderr.write(`usage: ${RULES_VARIABLE}=JSON bun confine-main.ts PROGRAM [ARGS...]\n`);
    process.exit(2);
  }
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (name !== RULES_VARIABLE && value !== undefined) env[name] = value;
  }
  try {
    restrictSelf(JSON.parse(rules) as LandlockRules);
    execve(file, [file, ...args], env);
  } catch (error) {
    process.stderr.write(`plugboard sandbox: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(126);
  }
}
