/** `--help` texts, rendered from the commands' specs and the flags, so they say exactly what the parser accepts. */
import type { CommandGroup } from "./args.ts";
import { type CommandName, commandSpec, SPECS } from "./commands/index.ts";
import { FLAGS, type FlagName } from "./flags.ts";

const ENVIRONMENT = [
  ["MODEL_API_KEY", "API key of the model endpoint (fallback: OPENAI_API_KEY)"],
  ["BASE_URL", "OpenAI-compatible endpoint (fallback: OPENAI_BASE_URL)"],
  ["MODEL", "model name"],
  ["PLUGBOARD_MCP_TOKEN", "bearer token `plugboard mcp --http` requires of its clients"],
  ["PLUGBOARD_WEB_TOKEN", "bearer token `plugboard web` requires on /api/ (or --token)"],
  ["NO_COLOR", "no colours on stderr"],
] as const;

const EXIT_CODES = [
  ["0", "answered (or the command succeeded)"],
  ["1", "step limit reached, `call` returned an error result, `policy test` found a case that does not match, `plugin check` found a failing check, `plugin sync --check` an out-of-date manifest, or `check` found pinned tools withheld"],
  ["2", "usage, config or plugin error"],
  ["3", "model endpoint failure, or an answer with neither text nor a tool call"],
  ["130", "interrupted (Ctrl-C)"],
  ["143, 129", "ended by SIGTERM, SIGHUP (the running call is cancelled and its processes killed, as for Ctrl-C)"],
] as const;

/** What each group of commands is for, said first in its help. */
const GROUPS: Readonly<Record<CommandGroup, string>> = {
  plugin: "Write, check, add and remove plugins, and accept pinned tools that changed.",
  policy: "Explain and test the config's policy: which rule decides a call, and whether a list of calls gets the decisions you expect.",
};

/** The help text of `command` (the overview for the interactive default), or of a group's commands. */
export function helpText(command: CommandName | CommandGroup): string {
  if (command === "interactive") return overview();
  return isGroup(command) ? groupHelp(command) : commandHelp(command);
}

function groupHelp(group: CommandGroup): string {
  const commands = SPECS.filter((spec) => spec.name.startsWith(`${group} `)).map((spec) => [spec.usage.replace(" [flags]", ""), spec.summary] as const);
  return [
    `Usage: plugboard ${group} COMMAND [flags]`,
    "",
    GROUPS[group],
    "",
    "Commands:",
    ...table(commands),
    "",
    `Each command's flags: plugboard ${group} COMMAND --help.`,
  ].join("\n");
}

function isGroup(word: string): word is CommandGroup {
  return word in GROUPS;
}

function overview(): string {
  const spec = commandSpec("interactive");
  const commands = SPECS.map((entry) => [entry.usage.replace(" [flags]", ""), entry.summary] as const);
  return [
    "plugboard: run a tool-using model agent against a folder.",
    "",
    "Usage:",
    ...table(commands),
    "",
    ...spec.details,
    "With no API key and no base URL, an offline demo model answers (said on stderr).",
    "",
    "Flags:",
    ...table([
      ...flagRows(spec.flags),
      ["-h, --help", "show help (also: plugboard help COMMAND, plugboard COMMAND --help)"],
      ["-v, --version", "show the version"],
    ]),
    "",
    "Environment (a .env file beside the config is read too; the process environment wins):",
    ...table(ENVIRONMENT),
    "",
    "Exit codes:",
    ...table(EXIT_CODES),
  ].join("\n");
}

function commandHelp(command: CommandName): string {
  const spec = commandSpec(command);
  return [
    `Usage: ${spec.usage}`,
    "",
    `${spec.summary.charAt(0).toUpperCase()}${spec.summary.slice(1)}.`,
    ...spec.details,
    "",
    "Flags:",
    ...table([...flagRows(spec.flags, { ...spec.flagHelp, ...(spec.json ? { json: spec.json } : {}) }), ["-h, --help", "show this help"]]),
  ].join("\n");
}

function flagRows(flags: readonly FlagName[], help: Partial<Record<FlagName, string>> = {}): (readonly [string, string])[] {
  return flags.map((name) => {
    const flag = FLAGS[name];
    const long = flag.value ? `--${name} ${flag.value}` : `--${name}`;
    const label = flag.short ? `-${flag.short}, ${long}` : long;
    return [label, help[name] ?? flag.help] as const;
  });
}

function table(rows: readonly (readonly [string, string])[]): string[] {
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`);
}
