/**
 * The command line of `bun run web`: flags parsed with `node:util`, checked, and the help
 * text. Bad usage throws `PlugboardError` (`USAGE`), which the entry turns into exit code 2.
 */
import { parseArgs } from "node:util";
import { PlugboardError } from "@plugboard/bootstrap";
import { DEFAULT_HOST, DEFAULT_PORT } from "./server.ts";

/** The parsed command line. */
export interface WebArgs {
  readonly help: boolean;
  readonly port: number;
  readonly host: string;
  readonly config: string | undefined;
  readonly workspace: string | undefined;
  readonly token: string | undefined;
}

/** The environment variable that carries the token when `--token` is not given. */
export const TOKEN_ENV = "PLUGBOARD_WEB_TOKEN";

/** What `--help` prints. */
export const HELP = `Usage: bun run web [options]

Serves the Plugboard web chat: the chat page at / and the chat API at /api/chat.

Options:
  --port N          port to listen on; 0 picks a free one (default ${DEFAULT_PORT})
  --host ADDRESS    address to listen on (default ${DEFAULT_HOST}); any address other
                    than loopback needs a token
  --config FILE     config file listing the plugins (default apps/web/plugboard.config.json)
  --workspace DIR   the folder the tools work in (default: the current folder)
  --token TOKEN     require "Authorization: Bearer TOKEN" on /api/ (default: $${TOKEN_ENV});
                    prefer the variable, since flags are visible to other local users
  -h, --help        show this help

Model: MODEL_API_KEY, BASE_URL and MODEL in the environment or a .env file beside the config.
With no API key and no base URL an offline demo model answers.
`;

/** What every usage error of `bun run web` ends with. */
const HELP_HINT = 'Run "bun run web --help" for the options.';

/**
 * Parses `argv` (without the runtime and script) and the environment.
 *
 * @example parseWebArgs(["--port", "0"], process.env).port // 0
 */
export function parseWebArgs(argv: readonly string[], env: Record<string, string | undefined>): WebArgs {
  let values: ReturnType<typeof parse>["values"];
  try {
    ({ values } = parse(argv));
  } catch (error) {
    throw new PlugboardError("USAGE", `${(error as Error).message}\n${HELP_HINT}`);
  }
  return {
    help: values.help === true,
    port: parsePort(values.port),
    host: values.host ?? DEFAULT_HOST,
    config: values.config,
    workspace: values.workspace,
    token: values.token ?? env[TOKEN_ENV],
  };
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    options: {
      port: { type: "string" },
      host: { type: "string" },
      config: { type: "string" },
      workspace: { type: "string" },
      token: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
}

/** The `--port` value: a whole number from 0 to 65535, `DEFAULT_PORT` when not given; else a `USAGE` error. */
export function parsePort(text: string | undefined): number {
  if (text === undefined) return DEFAULT_PORT;
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) {
    throw new PlugboardError("USAGE", `--port must be a whole number from 0 to 65535, got "${text}"\n${HELP_HINT}`);
  }
  return port;
}
