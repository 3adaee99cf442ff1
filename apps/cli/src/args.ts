/**
 * Command-line parsing with `node:util`'s `parseArgs`, validated against the flags (`flags.ts`)
 * and each command's spec (`commands/`).
 * Every mistake becomes a `UsageError` whose message is one line ending with a `--help` hint.
 */
import { type ParseArgsOptionsConfig, parseArgs } from "node:util";
import { nearest } from "@plugboard/bootstrap/nearest-name";
import { PlugboardError } from "@plugboard/errors";
import { COMMAND_GROUPS, type CommandName, commandSpec, SPECS } from "./commands/index.ts";
import { FLAGS, type FlagName } from "./flags.ts";

/** A word that names a group of two-word commands (`plugin`). */
export type CommandGroup = (typeof COMMAND_GROUPS)[number];

/** A command line the user got wrong; exits 2. */
export class UsageError extends PlugboardError {
  /** The command the line named, when it names one. */
  readonly command?: CommandName;

  constructor(problem: string, command?: CommandName) {
    const help = command && command !== "interactive" ? `plugboard ${command} --help` : "plugboard --help";
    super("USAGE", `${problem} (see ${help})`);
    if (command !== undefined) this.command = command;
  }
}

/**
 * Whether the failure of a command line that did not parse is also said as `run --json`'s
 * `error` event: the line names `run` and asks for `--json` (before any `--`).
 */
export function wantsErrorEvent(error: unknown, argv: readonly string[]): boolean {
  const end = argv.indexOf("--");
  return error instanceof UsageError && error.command === "run" && (end === -1 ? argv : argv.slice(0, end)).includes("--json");
}

/** The flag values a command received, already checked. */
export interface Flags {
  readonly config?: string;
  readonly workspace?: string;
  /** As typed; checked by bootstrap when the app starts. */
  readonly maxSteps?: string;
  readonly model?: string;
  readonly baseURL?: string;
  /** `--yes` / `-y`: every `ask` of the policy is approved (for `plugin add`: the plugin's permissions are granted). */
  readonly yes: boolean;
  readonly json: boolean;
  readonly dir?: string;
  /** `plugboard plugin sync --check`: compare only. */
  readonly check?: true;
  /** `plugboard check --offline`: do not contact the model endpoint. */
  readonly offline?: true;
  readonly registry?: string;
  /** `plugboard mcp --http`. */
  readonly http?: true;
  /** `--port N` (`mcp --http`, `web`), checked to be a port number. */
  readonly port?: number;
  readonly host?: string;
  /** `plugboard mcp --http --peers URL,…`: the other copies' /mcp URLs, as given. */
  readonly peers?: string;
  /** `plugboard web --token`. */
  readonly token?: string;
  /** `plugboard --continue`: the latest kept conversation goes on. */
  readonly continue?: true;
}

export interface ParsedArgs {
  readonly command: CommandName;
  /** The arguments after the command name. */
  readonly args: readonly string[];
  readonly flags: Flags;
  readonly help: boolean;
  /** Set when the help asked for is a group's (`plugboard plugin --help`, `plugboard help plugin`): its commands. */
  readonly group?: CommandGroup;
  readonly version: boolean;
}

const OPTIONS = {
  ...Object.fromEntries(Object.entries(FLAGS).map(([name, spec]) => [name, { type: spec.type, ...(spec.short ? { short: spec.short } : {}) }])),
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "v" },
} as const satisfies ParseArgsOptionsConfig;

/**
 * Parses `argv` (without the runtime and script). `plugboard help [COMMAND]` is the same as
 * `plugboard [COMMAND] --help`; a two-word command (`plugin new`) takes two positionals.
 */
export function parseCliArgs(argv: readonly string[]): ParsedArgs {
  let parsed: { values: Record<string, string | boolean | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(parseProblem(error, argv), commandIn(argv));
  }
  const { values } = parsed;
  const [first, ...others] = parsed.positionals;
  if (first === "help") return { ...helpFor(others), flags: { yes: false, json: false } };
  if (values.help === true && first !== undefined && isGroup(first) && others.length === 0) return groupHelp(first);
  const { command, rest } = first === undefined ? { command: "interactive" as const, rest: others } : toCommand(first, others);
  const spec = commandSpec(command);
  const help = values.help === true;
  const version = values.version === true;

  for (const name of Object.keys(FLAGS) as FlagName[]) {
    if (values[name] !== undefined && !spec.flags.includes(name)) {
      throw new UsageError(`--${name} does not apply to ${describe(command)}`, command);
    }
  }
  if (!help && !version) checkArgCount(command, rest.length);
  return { command, args: rest, flags: toFlags(values, command), help, version };
}

/** The command `word` (with the next word, for a group such as `plugin`) names, and the arguments after it. */
function toCommand(word: string, after: readonly string[]): { command: CommandName; rest: string[] } {
  // A command that also has two-word ones (`mcp`, `mcp login`).
  const [next, ...others] = after;
  const twoWords = isGroup(word) ? undefined : SPECS.find((spec) => spec.name === `${word} ${next}`);
  if (twoWords) return { command: twoWords.name, rest: others };
  if (isGroup(word)) {
    const [sub, ...rest] = after;
    const found = SPECS.find((spec) => spec.name === `${word} ${sub}`);
    if (found) return { command: found.name, rest };
    const choices = SPECS.filter((spec) => spec.name.startsWith(`${word} `)).map((spec) => spec.usage.replace(" [flags]", ""));
    const problem = sub === undefined ? `'plugboard ${word}' needs a command: ${choices.join(" or ")}` : `unknown command '${word} ${sub}'; ${didYouMean(sub, subcommands(word), `${word} `) ?? `use ${choices.join(" or ")}`}`;
    throw new PlugboardError("USAGE", `${problem} (see plugboard ${word} --help)`);
  }
  const command = SPECS.find((spec) => spec.name === word && spec.name !== "interactive" && !spec.name.includes(" "));
  if (command) return { command: command.name, rest: [...after] };
  throw new UsageError(`unknown command '${word}'; ${didYouMean(word, [...commandWords(), "help"]) ?? `to ask the model, use: plugboard run "${word} …"`}`);
}

/** `did you mean NAME?` (after `prefix`, a group's name) when one of `names` is near `word`. */
function didYouMean(word: string, names: readonly string[], prefix = ""): string | undefined {
  const near = nearest(word, names);
  return near === undefined ? undefined : `did you mean ${prefix}${near}?`;
}

/** The first words of the commands: what `plugboard WORD` can start with. */
function commandWords(): string[] {
  return [...new Set(SPECS.filter((spec) => spec.name !== "interactive").map((spec) => spec.name.split(" ")[0] ?? spec.name))];
}

/** The second words of a group's commands (`new`, `check`, … of `plugin`). */
function subcommands(group: CommandGroup): string[] {
  return SPECS.filter((spec) => spec.name.startsWith(`${group} `)).map((spec) => spec.name.slice(group.length + 1));
}

function helpFor(words: readonly string[]): Omit<ParsedArgs, "flags"> {
  const [word, ...after] = words;
  if (word !== undefined && isGroup(word) && after.length === 0) return groupHelp(word);
  // Help asked about a word that is no command: there is nothing to ask the model, only the list.
  const commands = commandWords();
  if (word !== undefined && !commands.includes(word)) throw new UsageError(`there is no command '${word}'; ${didYouMean(word, commands) ?? `the commands are ${commands.join(", ")}`}`);
  return { command: word === undefined ? "interactive" : toCommand(word, after).command, args: [], help: true, version: false };
}

/** The help of a group: its first command stands as the command, which is never run. */
function groupHelp(group: CommandGroup): ParsedArgs {
  const first = SPECS.find((spec) => spec.name.startsWith(`${group} `));
  return { command: first?.name ?? "interactive", args: [], flags: { yes: false, json: false }, help: true, group, version: false };
}

function isGroup(word: string): word is CommandGroup {
  return (COMMAND_GROUPS as readonly string[]).includes(word);
}

function checkArgCount(command: CommandName, count: number): void {
  const { min, max, usage } = { ...commandSpec(command).args, usage: commandSpec(command).usage };
  if (count < min) throw new UsageError(`missing arguments; usage: ${usage}`, command);
  if (count > max) throw new UsageError(`too many arguments; usage: ${usage}`, command);
}

function toFlags(values: Record<string, string | boolean | undefined>, command: CommandName): Flags {
  const text = (name: FlagName): string | undefined => {
    const value = values[name];
    if (typeof value !== "string") return undefined;
    if (value.trim() === "") throw new UsageError(`--${name} needs a value`, command);
    return value;
  };
  return {
    config: text("config"),
    workspace: text("workspace"),
    maxSteps: text("max-steps"),
    model: text("model"),
    baseURL: text("base-url"),
    yes: values.yes === true,
    json: values.json === true,
    dir: text("dir"),
    ...(values.check === true ? { check: true } : {}),
    ...(values.offline === true ? { offline: true } : {}),
    ...(values.continue === true ? { continue: true } : {}),
    registry: url(text("registry"), command),
    ...(values.http === true ? { http: true } : {}),
    port: port(text("port"), command),
    host: text("host"),
    peers: text("peers"),
    token: text("token"),
  };
}

function port(value: string | undefined, command: CommandName): number | undefined {
  if (value !== undefined && !(/^\d+$/.test(value) && Number(value) <= 65_535)) throw new UsageError(`--port must be a whole number from 0 to 65535, got '${value}'`, command);
  return value === undefined ? undefined : Number(value);
}

function url(value: string | undefined, command: CommandName): string | undefined {
  if (value !== undefined && !/^https?:\/\//.test(value)) throw new UsageError(`--registry must be an http(s) URL, got '${value}'`, command);
  return value;
}

function parseProblem(error: unknown, argv: readonly string[]): string {
  if (!(error instanceof Error)) throw error;
  const code = (error as NodeJS.ErrnoException).code;
  const quoted = error.message.match(/'(-[^' ]*)/)?.[1] ?? "";
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") return `unknown option '${quoted}'`;
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
    if (FLAGS[quoted.replace(/^--/, "") as FlagName]?.type === "boolean" || quoted === "--help" || quoted === "--version") {
      return `${quoted} takes no value`;
    }
    // `--max-steps -1`: the value looks like an option, and is only taken written with `=`.
    const next = argv[argv.indexOf(quoted) + 1];
    return next?.startsWith("-") ? `${quoted} needs a value; one that starts with "-" is written ${quoted}=${next}` : `${quoted} needs a value`;
  }
  if (code?.startsWith("ERR_PARSE_ARGS")) return error.message.split("\n")[0] ?? error.message;
  throw error;
}

/** The command named in a command line that did not parse, for the help hint. */
function commandIn(argv: readonly string[]): CommandName | undefined {
  const [word, next] = argv.filter((arg) => !arg.startsWith("-"));
  const name = word !== undefined && isGroup(word) ? `${word} ${next}` : word;
  return SPECS.find((spec) => spec.name === name && spec.name !== "interactive")?.name;
}

function describe(command: CommandName): string {
  return command === "interactive" ? "the interactive session" : `'plugboard ${command}'`;
}
