/**
 * Every command and flag the CLI accepts, as data: the parser validates against it and
 * `--help` is rendered from it, so the help can never drift from the code.
 */

/** A command name; `interactive` is what a bare `plugboard` runs; `plugin …` commands are two words. */
export type CommandName =
  | "interactive"
  | "run"
  | "tools"
  | "plugins"
  | "call"
  | "check"
  | "mcp"
  | "mcp login"
  | "mcp logout"
  | "trust"
  | "web"
  | "plugin new"
  | "plugin check"
  | "plugin sync"
  | "plugin add"
  | "plugin remove"
  | "policy explain"
  | "policy test"
  | "plugin accept";

/** Flags that take a value or switch something on; `--help` and `--version` are global. */
export type FlagName = "config" | "workspace" | "max-steps" | "model" | "base-url" | "yes" | "json" | "dir" | "http" | "port" | "host" | "peers" | "registry" | "check" | "offline" | "token";

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
    help: "approve every call the config's policy asks about (a deny still applies); without it and without a terminal, those calls are refused",
  },
  json: { type: "boolean", help: "print JSON instead of text" },
  dir: { type: "string", value: "DIR", help: "the folder to create (default: ./plugboard-plugin-NAME)" },
  check: { type: "boolean", help: "write nothing; exit 1 when the manifest's tools are out of date" },
  offline: { type: "boolean", help: "do not contact the model endpoint" },
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

export interface CommandSpec {
  readonly name: CommandName;
  readonly usage: string;
  readonly summary: string;
  /** Longer explanation shown by `--help`. */
  readonly details: readonly string[];
  readonly flags: readonly FlagName[];
  /** What `--json` does for this command, when it accepts it. */
  readonly json?: string;
  /** What a flag means for this command, where that differs from its general help. */
  readonly flagHelp?: Partial<Record<FlagName, string>>;
  /** How many arguments follow the command name. */
  readonly args: { readonly min: number; readonly max: number };
}

const MODEL_FLAGS: readonly FlagName[] = ["config", "workspace", "max-steps", "model", "base-url"];

export const COMMANDS: readonly CommandSpec[] = [
  {
    name: "interactive",
    usage: "plugboard [flags]",
    summary: "chat with the model in a loop (the default command)",
    details: [
      "Reads one request per line at the `plugboard >> ` prompt and keeps the conversation across turns.",
      "`q`, `exit`, an empty line or Ctrl-D quits; Ctrl-C cancels the turn in flight, and quits at the prompt.",
      "A call the config's policy asks about shows the tool and its arguments: `y` allows it once, `a` allows the tool for the rest of the session, `c` allows bash commands like it (a rule from its leading words, shown first: `s` this session, `p` saved to the config), `n` refuses it (then an optional reason for the model); Ctrl-C cancels the turn.",
    ],
    flags: [...MODEL_FLAGS, "yes"],
    args: { min: 0, max: 0 },
  },
  {
    name: "run",
    usage: "plugboard run [flags] PROMPT...",
    summary: "one turn: the answer on stdout, a trace of each tool call on stderr",
    details: [
      "The words after `run` are joined into the prompt; with none, the prompt is read from stdin (when it is not a terminal).",
      "Exits 0 when answered, 1 when the step limit stops the turn, 3 when the model endpoint fails or answers with neither text nor a tool call, 130 on Ctrl-C.",
      "A call the config's policy asks about is asked on the terminal (y once, a always for this tool, c always for commands like it, n no); with no terminal it is refused unless --yes.",
    ],
    flags: [...MODEL_FLAGS, "yes", "json"],
    json: 'one JSON event per line on stdout: {"type":"tool_call",…}, {"type":"tool_result",…}, {"type":"final",…}',
    args: { min: 0, max: Number.POSITIVE_INFINITY },
  },
  {
    name: "tools",
    usage: "plugboard tools [flags]",
    summary: "the tools as the model sees them",
    details: [
      "Lists each enabled tool with its parameters (`?` marks optional ones) and description.",
      "A confined plugin's tools come from the listing cache (~/.cache/plugboard/hosts) while the plugin is unchanged; otherwise its host is started to list them.",
      'With more tools than the config\'s "tools.searchOver" (default 64), the model is sent tool_search and the pinned tools instead, and finds the others by searching: a last line says so.',
    ],
    flags: ["config", "workspace", "json"],
    json: "print the `tools` array of every enabled tool, as the model is sent it (all of it up to tools.searchOver)",
    args: { min: 0, max: 0 },
  },
  {
    name: "plugins",
    usage: "plugboard plugins [flags]",
    summary: "each plugin with its version, tools and permissions",
    details: [
      "Lists the plugins the config enables, in config order, with the folder each was loaded from and why:",
      "a package is looked up beside the config first (its node_modules, then each parent's), then among the plugins shipped with plugboard.",
      "MCP servers the config mounts are listed too, with the version they report and their command line or URL.",
    ],
    flags: ["config", "workspace", "json"],
    json: 'print a JSON array of {name, version, tools, permissions, directory, origin} (origin: "config", "app" or "path"; for an MCP server "mcp-stdio" or "mcp-http", with its command line or URL as directory)',
    args: { min: 0, max: 0 },
  },
  {
    name: "call",
    usage: "plugboard call [flags] TOOL [JSON]",
    summary: "one tool call through the same runtime, no model",
    details: [
      "JSON is the tool's arguments as one JSON object (default: {}); quote it for the shell.",
      "Prints the result on stdout; exits 1 when the result is an error (`Error: …`), 130 on Ctrl-C.",
      "The call is your own: where the config's policy says ask, it counts as approved (--yes changes nothing); a deny still applies.",
    ],
    flags: ["config", "workspace", "yes", "json"],
    json: 'print {"type":"tool_result","id","is_error","content"}',
    args: { min: 1, max: 2 },
  },
  {
    name: "check",
    usage: "plugboard check [flags]",
    summary: "validate the config and every plugin without running anything",
    details: [
      "Reads the config, then every plugin's manifest, options and tools, and opens the workspace and the audit log; no tool call.",
      "Every confined plugin's host is started and asked for its tools, whatever the listing cache (~/.cache/plugboard/hosts) holds, and the cache is refreshed.",
      "Then asks the model endpoint for its models (an endpoint without /models: for a one-token completion), so a refused key, an unknown model or an unreachable host fails here (exit 3, with what to change); the offline demo model is not contacted, and --offline contacts nothing.",
      "Prints a short summary (with the policy's rules in order and its default, and the audit log) and exits 0, or the problems and exits 2.",
    ],
    flags: [...MODEL_FLAGS, "offline"],
    args: { min: 0, max: 0 },
  },
  {
    name: "mcp",
    usage: "plugboard mcp [flags]",
    summary: "serve the tools to MCP clients (Claude, Cursor, VS Code…) over stdio or HTTP",
    details: [
      "Serves the config's tools over the Model Context Protocol: on stdin/stdout by default, for a client that starts plugboard itself;",
      "with --http, over Streamable HTTP at http://HOST:PORT/mcp (stateless: run as many copies as you like behind a load balancer, each given the others with --peers).",
      "Every call passes the config's policy and audit log; a call the policy asks about is refused, since no one can be asked, unless --yes approves it. Annotations follow each plugin's permissions.",
      "With PLUGBOARD_MCP_TOKEN set, HTTP clients must send Authorization: Bearer TOKEN; without it, only loopback is served.",
    ],
    flags: ["config", "workspace", "yes", "http", "port", "host", "peers"],
    args: { min: 0, max: 0 },
  },
  {
    name: "mcp login",
    usage: "plugboard mcp login [flags] NAME",
    summary: "log in to a mounted Streamable HTTP MCP server that requires OAuth",
    details: [
      "For the config's MCP server NAME (an entry with a url): registers with its authorization server, prints the address to open in a browser, and waits for the redirect on http://127.0.0.1:PORT/callback.",
      "The tokens are kept in $XDG_CONFIG_HOME/plugboard/mcp-auth/NAME.json (else ~/.config/…; the folder 0700, the file 0600) and refreshed when they expire. Exits 0 once a connection with them works.",
    ],
    flags: ["config"],
    args: { min: 1, max: 1 },
  },
  {
    name: "mcp logout",
    usage: "plugboard mcp logout [flags] NAME",
    summary: "forget the OAuth tokens of a mounted MCP server",
    details: ["Deletes the tokens plugboard mcp login NAME kept; the server then needs a login again."],
    flags: ["config"],
    args: { min: 1, max: 1 },
  },
  {
    name: "web",
    usage: "plugboard web [flags]",
    summary: "serve the web chat: the chat page at / and its API at /api/chat",
    details: [
      "The same chat as `bun run web` in a checkout: the config's tools, its policy (an ask is an approve/deny card in the page) and audit log, the model from the environment or flags' defaults.",
      "Without --config it uses ./plugboard.config.json or .jsonc in the current folder, else the CLI's own; a plugin package the config's folder lacks is taken from those shipped with plugboard.",
      "Prints the model, the workspace, the tools and the address on stderr, then serves until Ctrl-C, SIGTERM or SIGHUP (exit 130, 143, 129).",
    ],
    flags: ["config", "workspace", "port", "host", "token"],
    flagHelp: {
      port: "port to listen on, 0 for any free one (default: 8787)",
      host: "address to listen on (default: 127.0.0.1); any address other than loopback needs a token",
    },
    args: { min: 0, max: 0 },
  },
  {
    name: "trust",
    usage: "plugboard trust FILE...",
    summary: "read a config, .env or lock file again that appeared or changed while plugins could write its folder",
    details: [
      "Plugboard records when confined plugins may write a workspace, and does not read the config, the .env beside it, a config found in the current folder",
      "or the lock file when it, or a link on its way, was created or changed (its ctime: written, renamed, linked, chmoded) in such a time: a plugin may have",
      "written it (the sandbox cannot keep a file that does not exist yet, or one renamed or linked into place, read-only), so it says so and exits 2.",
      "What plugboard writes itself (a rule saved with p, pins, plugin add) is read; your own edit made while a session ran is refused too.",
      "Look at the file; if it is yours, trust it with this command and it is read again. A later change to it, or to a link on its way, is checked again.",
      "The record is $XDG_STATE_HOME/plugboard/writable-spans.json (else ~/.local/state/plugboard/), which no plugin can write.",
    ],
    flags: [],
    args: { min: 1, max: Number.POSITIVE_INFINITY },
  },
  {
    name: "plugin new",
    usage: "plugboard plugin new [flags] NAME",
    summary: "scaffold a plugin package, ready to test and publish",
    details: [
      "Creates the package plugboard-plugin-NAME (@scope/plugboard-plugin-NAME for NAME @scope/NAME; @scope/plugin-NAME, the form of Plugboard's own packages, is kept as written): package.json, manifest, README, an example tool and its tests.",
      "NAME is lower-case letters and digits in words joined by single dashes, starting with a letter. A folder that is not empty is refused (exit 2).",
      "Then: cd into the folder, bun install, bun test. A tool's name and description are written once, in its defineTool;",
      "after changing them (or adding a tool), plugboard plugin sync writes them into the manifest.",
    ],
    flags: ["dir"],
    args: { min: 1, max: 1 },
  },
  {
    name: "plugin check",
    usage: "plugboard plugin check [flags] DIR",
    summary: "run the conformance checks on a plugin folder",
    details: [
      "Loads and calls the plugin in child processes, in a temp workspace, and prints each check with ✓ or ✗ and what to fix.",
      "A manifest whose tools are not the code's (names, order, or descriptions as plugboard plugin sync writes them) fails the tools check, with plugboard plugin sync as the fix.",
      "Exits 0 when no check failed (a warning passes), 1 when one failed, 2 when DIR is not a folder.",
    ],
    flags: ["json"],
    json: "print the report as JSON: {directory, plugin, checks: [{id, title, status, problems, fix, notes}], ok}",
    args: { min: 1, max: 1 },
  },
  {
    name: "plugin sync",
    usage: "plugboard plugin sync [flags] [DIR]",
    summary: "write the manifest's tool list from the plugin's code",
    details: [
      "Builds the tools of the plugin in DIR (default: the current folder) with its default options, in a child process as plugin check does,",
      'and makes the "tools" of its plugboard.plugin.json list them in the same order: each name, and the first sentence of its description',
      "(up to the first . ! or ? followed by a space, not counting e.g. or ...). The rest of the file is left exactly as it was.",
      "Prints what changed (added, removed, changed description, reordered) or that the manifest is up to date, and exits 0;",
      "exits 2, with one line saying why, when the plugin cannot be loaded. It runs the plugin's code: sync your own plugin, as you test it.",
    ],
    flags: ["check"],
    args: { min: 0, max: 1 },
  },
  {
    name: "plugin add",
    usage: "plugboard plugin add [flags] PACKAGE",
    summary: "install a plugin package beside the config and enable it",
    details: [
      "Installs PACKAGE (a name, or name@version) into the config's folder with bun add, shows its tools and the permissions it asks for, and asks you to grant them.",
      'Then adds { "package": PACKAGE, "permissions": [...] } to the config\'s plugins (./plugboard.config.json, created with the shipped plugins when there is none) and runs plugboard check.',
      "If you decline, or the check fails, the config and the folder are left as they were (exit 1 or 2). Without a terminal, pass --yes.",
    ],
    flags: ["config", "registry", "yes"],
    flagHelp: { yes: "grant the permissions the plugin asks for without asking (needed when there is no terminal)" },
    args: { min: 1, max: 1 },
  },
  {
    name: "plugin remove",
    usage: "plugboard plugin remove [flags] PACKAGE",
    summary: "disable a plugin and uninstall its package",
    details: ["Removes PACKAGE's entry from the config's plugins and, when the config's folder installed it, the package itself (bun remove)."],
    flags: ["config"],
    args: { min: 1, max: 1 },
  },
  {
    name: "policy explain",
    usage: "plugboard policy explain [flags] TOOL [JSON]",
    summary: "how the config's policy decides one call, and which rule decides it",
    details: [
      "JSON is the call's arguments as one JSON object (default: {}); quote it for the shell. Nothing runs: no plugin is loaded and no hook is started.",
      "Prints the decision (allow, ask or deny), the rule that made it as the config writes it with its file and line, or the default;",
      "for a bash command judged by its parsed line, each command in it with its own decision and rule; then the hooks that would run (none for a denied call).",
      `Example: plugboard policy explain bash '{"command":"git status; touch x"}'`,
    ],
    flags: ["config", "workspace"],
    args: { min: 1, max: 2 },
  },
  {
    name: "policy test",
    usage: "plugboard policy test [flags] FILE",
    summary: "check a list of calls and the decisions they must get against the config's policy",
    details: [
      'FILE is a JSON list of cases, each { "tool": "bash", "args": { "command": "git status" }, "expect": "allow" } ("args" may be left out; comments allowed).',
      "Prints each case with ✓ or ✗ (the decision it got and the rule, file and line that made it), then a count.",
      "Exits 0 when every case matches, 1 when one does not, 2 when FILE is not such a list (the message says what to fix).",
    ],
    flags: ["config", "workspace"],
    args: { min: 1, max: 1 },
  },
  {
    name: "plugin accept",
    usage: "plugboard plugin accept [flags] NAME",
    summary: "offer a pinned plugin's or MCP server's changed tools to the model again",
    details: [
      "The tools of mounted MCP servers and of installed third-party plugins are pinned in plugboard.lock.json beside the config the first time they are listed:",
      "each tool's description and a hash of its input schema. A tool whose description or schema differs later, or a new tool, is withheld from the model until accepted.",
      'NAME is the plugin\'s package name or the server\'s "name" in the config: every changed and new tool of it is accepted, and the tools it no longer has are dropped from the lock.',
      "NAME may also be one tool's name (as the model sees it): only that tool is accepted. Prints what was accepted and exits 0; exits 2 when nothing pinned has that name.",
      "First-party @plugboard/* plugins (they ship with plugboard) and path plugins (your own code) are not pinned.",
    ],
    flags: ["config", "workspace"],
    args: { min: 1, max: 1 },
  },
];

/** The first word of the two-word commands (`plugboard plugin new`). */
export const COMMAND_GROUPS = ["plugin", "policy"] as const;

/** The spec of a command. */
export function commandSpec(name: CommandName): CommandSpec {
  const spec = COMMANDS.find((candidate) => candidate.name === name);
  if (!spec) throw new Error(`No spec for command ${name}`);
  return spec;
}
