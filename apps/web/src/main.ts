/**
 * The process entry of `bun run web`: parse the flags, start the app, print where it listens,
 * and shut down cleanly on SIGINT/SIGTERM (exit 0). Usage, config and plugin errors exit 2.
 */
import { endOnStrayPluginErrors, invocationCwd } from "@plugboard/bootstrap";
import { PlugboardError } from "@plugboard/bootstrap";
import { visible } from "@plugboard/core/internal";
import { HELP, parseWebArgs } from "./args.ts";
import { startupLines, startWebApp } from "./web-app.ts";

/** A line for the person at the terminal: warnings and failures may quote a plugin, a server or the model. */
const stderr = (line: string): void => {
  process.stderr.write(`${visible(line)}\n`);
};

async function main(): Promise<void> {
  const args = parseWebArgs(process.argv.slice(2), process.env);
  if (args.help) {
    process.stdout.write(HELP);
    return;
  }
  const web = await startWebApp({
    ...(args.config === undefined ? {} : { configPath: args.config }),
    ...(args.workspace === undefined ? {} : { workspace: args.workspace }),
    cwd: invocationCwd(process.env, process.cwd(), "web"),
    port: args.port,
    host: args.host,
    token: args.token,
    logger: { debug() {}, info: stderr, warn: stderr },
  });
  endOnStrayPluginErrors(web.app, async (message) => {
    stderr(message);
    await new Promise((done) => process.stderr.write("", done));
  });
  for (const line of startupLines(web, args.token !== undefined)) stderr(line);

  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) process.exit(130);
    stopping = true;
    const inFlight = web.server.stats.inFlight;
    stderr(`${signal}: stopping${inFlight > 0 ? ` (aborting ${inFlight} turn${inFlight === 1 ? "" : "s"} in flight)` : ""}…`);
    web.close().then(
      () => process.exit(0),
      (error: unknown) => {
        stderr(`Shutdown failed: ${String(error)}`);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

main().catch((error: unknown) => {
  if (error instanceof PlugboardError) {
    stderr(error.message);
    process.exit(2);
  }
  stderr(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
