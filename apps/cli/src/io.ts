/** The process's streams, environment and folder, gathered once so commands take them explicitly. */
import { isAbsolute } from "node:path";
import { createStyle, type Style } from "./output.ts";

/** What a command reads from and writes to. */
export interface Io {
  readonly stdin: NodeJS.ReadStream;
  readonly stdout: NodeJS.WriteStream;
  readonly stderr: NodeJS.WriteStream;
  readonly env: Record<string, string | undefined>;
  /** The folder the user ran the command in. */
  readonly cwd: string;
  /** Colours for stderr. */
  readonly style: Style;
  /** Writes `plugboard: MESSAGE` on stderr. */
  note(message: string): void;
}

/** The real process's `Io`. */
export function processIo(): Io {
  const { stdin, stdout, stderr, env } = process;
  const style = createStyle(stderr, env);
  return {
    stdin,
    stdout,
    stderr,
    env,
    cwd: invocationCwd(env, process.cwd()),
    style,
    note: (message) => stderr.write(`${style.dim("plugboard:")} ${message}\n`),
  };
}

/**
 * The folder the user typed the command in. Package-manager scripts run in the package's
 * folder, so under the root `plugboard` script the original folder comes from the
 * variables npm (`INIT_CWD`) or bun (`npm_config_local_prefix`) set for it.
 */
export function invocationCwd(env: Record<string, string | undefined>, cwd: string): string {
  if (env.npm_lifecycle_event !== "plugboard") return cwd;
  const origin = env.INIT_CWD ?? env.npm_config_local_prefix;
  return origin !== undefined && isAbsolute(origin) ? origin : cwd;
}
