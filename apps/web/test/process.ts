/** The web app as a real process: `bun src/main.ts` with flags and an environment of our choosing. */
import { join } from "node:path";
import { WEB_DIR } from "./helpers.ts";

/** A spawned web process. */
export interface WebProcess {
  readonly proc: Bun.Subprocess<"ignore", "pipe", "pipe">;
  /** Everything printed on stderr so far. */
  stderr(): string;
  /** Resolves with the URL once the server says where it listens; rejects if it exits first. */
  readonly listening: Promise<string>;
  /** Resolves with the exit code, once everything it printed on stderr has been read. */
  readonly exited: Promise<number>;
}

/** Spawns the web app with `args`, a clean environment plus `env`, in `cwd`. */
export function spawnWeb(args: readonly string[], env: Record<string, string> = {}, cwd = WEB_DIR): WebProcess {
  const proc = Bun.spawn(["bun", join(WEB_DIR, "src/main.ts"), ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", NO_COLOR: "1", ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  let text = "";
  let found: ((url: string) => void) | undefined;
  const listening = new Promise<string>((resolve, reject) => {
    found = resolve;
    proc.exited.then((code) => reject(new Error(`The web process exited with ${code} before listening:\n${text}`)));
  });
  listening.catch(() => {});
  const read = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of proc.stderr) {
      text += decoder.decode(chunk, { stream: true });
      const url = /listening on (http:\/\/\S+)/.exec(text)?.[1];
      if (url) found?.(url);
    }
  })();
  // Once the process has ended and all it wrote on stderr is read: a check of stderr after it sees everything.
  return { proc, stderr: () => text, listening, exited: Promise.all([proc.exited, read]).then(([code]) => code) };
}
