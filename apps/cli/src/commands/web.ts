/**
 * `plugboard web`: the web chat of `@plugboard/web` (bundled into the CLI), with the flags of
 * `bun run web`, the CLI's config lookup and its shipped plugins. Serves until an ending signal.
 */
import { startupLines, startWebApp, TOKEN_ENV } from "@plugboard/web";
import type { ParsedArgs } from "../args.ts";
import { abortOnInterrupt } from "../interrupt.ts";
import type { Io } from "../io.ts";
import { CLI_FOLDER, defaultConfig, shippedHostPrograms } from "../load-app.ts";
import { reportStrayErrors } from "../stray-errors.ts";
import { plural } from "@plugboard/core/internal";

/** Serves the chat; Ctrl-C, SIGTERM or SIGHUP stop it, aborting the turns in flight (exit 130, 143 or 129). */
export async function webCommand(parsed: ParsedArgs, io: Io): Promise<number> {
  const { config, workspace, host, port, token = io.env[TOKEN_ENV] || undefined } = parsed.flags;
  using stop = abortOnInterrupt();
  const web = await startWebApp({
    ...(config === undefined ? { defaultConfig: defaultConfig(io.cwd, io.env) } : { configPath: config }),
    ...(workspace === undefined ? {} : { workspace }),
    ...(host === undefined ? {} : { host }),
    appFolder: CLI_FOLDER,
    ...shippedHostPrograms(),
    cwd: io.cwd,
    env: io.env,
    ...(port === undefined ? {} : { port }),
    token,
    logger: { debug() {}, info: io.note, warn: io.note },
  });
  reportStrayErrors(web.app, io, false);
  for (const line of startupLines(web, token !== undefined)) io.note(line);
  await new Promise((resolve) => stop.signal.addEventListener("abort", resolve, { once: true }));
  const inFlight = web.server.stats.inFlight;
  io.note(`stopping${inFlight > 0 ? ` (aborting ${inFlight} ${plural(inFlight, "turn")} in flight)` : ""}…`);
  await web.close();
  return stop.exitCode(0);
}
