import { isAbsolute } from "node:path";

/**
 * The folder the user typed the command in. Package-manager scripts run in the package's
 * folder, so under the root script named `script` (`plugboard`, `web`) the original folder
 * comes from the variables npm (`INIT_CWD`) or bun (`npm_config_local_prefix`) set for it.
 *
 * @example const cwd = invocationCwd(process.env, process.cwd(), "plugboard");
 */
export function invocationCwd(env: Record<string, string | undefined>, cwd: string, script: string): string {
  if (env.npm_lifecycle_event !== script) return cwd;
  const origin = env.INIT_CWD ?? env.npm_config_local_prefix;
  return origin !== undefined && isAbsolute(origin) ? origin : cwd;
}
