/** The process's streams, environment and folder, gathered once so commands take them explicitly. */
import { invocationCwd } from "@plugboard/bootstrap";
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
    cwd: invocationCwd(env, process.cwd(), "plugboard"),
    style,
    note: (message) => stderr.write(`${style.dim("plugboard:")} ${message}\n`),
  };
}
