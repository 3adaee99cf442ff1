/**
 * Every flag the CLI accepts, as data: the parser validates against it and `--help` is
 * rendered from it, with each command's own list of flags in its spec (`commands/`).
 */

/** Flags that take a value or switch something on; `--help` and `--version` are global. */
export type FlagName = "config" | "workspace" | "max-steps" | "model" | "base-url" | "yes" | "json" | "dir" | "http" | "port" | "host" | "peers" | "registry" | "check" | "offline" | "token" | "continue";

export interface FlagSpec {
  readonly type: "string" | "boolean";
  /** The value's placeholder in help, for string flags. */
  readonly value?: string;
  /** A one-letter alias, such as `y` for `-y`. */
  readonly short?: string;
  readonly help: string;
}

export const FLAGS: Readonly<Record<FlagName, FlagSpec>> = {
  config: {
    type: "string",
    value: "FILE",
    help: "config file, JSON with comments allowed (default: ./plugboard.config.json or ./plugboard.config.jsonc if present, else the CLI's own plugboard.config.json)",
  },
  workspace: {
    type: "string",
    value: "DIR",
    help: "the folder the tools work in (default: the config's workspace, else the current folder)",
  },
  "max-steps": {
    type: "string",
    value: "N",
    help: "most model requests per turn, 1-1000 (default: the config's maxSteps, else 20)",
  },
  model: { type: "string", value: "NAME", help: "model name (default: $MODEL, the config's model.name, else gpt-4.1-mini)" },
  "base-url": {
    type: "string",
    value: "URL",
    help: "OpenAI-compatible endpoint, e.g. http://localhost:11434/v1 (default: $BASE_URL, the config's model.baseURL)",
  },
  yes: {
    type: "boolean",
    short: "y",
    help: "approve every call the config's policy asks about (a deny still applies; at a terminal you are still asked about calls that can send data out once untrusted content entered the conversation); without it and without a terminal, those calls are refused",
  },
  json: { type: "boolean", help: "print JSON instead of text" },
  dir: { type: "string", value: "DIR", help: "the folder to create (default: ./plugboard-plugin-NAME)" },
  check: { type: "boolean", help: "write nothing; exit 1 when the manifest's tools are out of date" },
  offline: { type: "boolean", help: "do not contact the model endpoint" },
  continue: {
    type: "boolean",
    help: "continue the most recent conversation kept for this config and workspace (a new one when there is none)",
  },
  registry: { type: "string", value: "URL", help: "the npm registry to install from (default: bun's, from .npmrc or the environment)" },
  http: { type: "boolean", help: "serve over Streamable HTTP at /mcp instead of stdio" },
  token: {
    type: "string",
    value: "TOKEN",
    help: 'require "Authorization: Bearer TOKEN" on /api/ (default: $PLUGBOARD_WEB_TOKEN); prefer the variable, since flags are visible to other local users',
  },
  port: { type: "string", value: "N", help: "the HTTP port, 0 for any free one (default: 8808)" },
  host: {
    type: "string",
    value: "H",
    help: "the HTTP address (default: 127.0.0.1); another than loopback needs PLUGBOARD_MCP_TOKEN",
  },
  peers: {
    type: "string",
    value: "URL,…",
    help: "the /mcp URLs of the other copies behind the same load balancer: a cancellation for a call running on another copy is passed on to them",
  },
};

/** The flags of the commands that talk to the model. */
export const MODEL_FLAGS: readonly FlagName[] = ["config", "workspace", "max-steps", "model", "base-url"];
