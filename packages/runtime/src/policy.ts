/**
 * The per-call policy: rules in order, the first that matches decides, else the default.
 * `tool` and every `args` pattern are wildcards over the whole string (`*` any characters,
 * `?` exactly one; a pattern ending in ` *` also matches the text before it alone, so `ls *`
 * matches a bare `ls`). The argument named `path` is normalised relative to the workspace first
 * (`./notes/../secrets/x` and `/abs/ws/secrets/x` are `secrets/x`), so spelling a path
 * differently does not slip past a rule. A `bash` call's `command` patterns match each
 * simple command of the parsed line (command-rules.ts), not the raw string.
 */
import { relative, resolve, sep } from "node:path";
import { type CommandVerdict, judgeLine } from "./command-rules.ts";
import type { Workspace } from "@plugboard/core";
import { ShellLines } from "./shell-lines.ts";
import type { TaintMode } from "./taint.ts";

/** What happens to a call. */
export type PolicyAction = "allow" | "ask" | "deny";

/** One rule: a tool pattern, optional argument patterns, and the action when all match. */
export interface PolicyRule {
  readonly tool: string;
  /** Argument name → wildcard pattern; the argument must be present and match. */
  readonly args?: Readonly<Record<string, string>>;
  readonly action: PolicyAction;
}

/** The rules (first match wins) and the action when none matches. */
export interface Policy {
  readonly default: PolicyAction;
  readonly rules: readonly PolicyRule[];
  /** What a session does, once untrusted content entered it, with calls that can send data out (`taint.ts`). @default "ask" */
  readonly taint?: TaintMode;
}

/** Every call runs: the policy when a config sets none. */
export const ALLOW_ALL: Policy = Object.freeze({ default: "allow", rules: Object.freeze([]) });

/** The argument names normalised as workspace paths before matching. */
export const PATH_ARGUMENTS: readonly string[] = Object.freeze(["path"]);

/** The tools whose `command` argument is a bash line that rules match command by command. */
export const SHELL_TOOLS: readonly string[] = Object.freeze(["bash"]);

/** The action for a call, and the rule that decided it (none when the default did). */
export interface PolicyVerdict {
  readonly action: PolicyAction;
  readonly rule?: PolicyRule;
  /** Why a bash line asks though its rule allowed it (or could not be read). */
  readonly reason?: string;
  /** For a bash line judged command by command: each command's verdict. */
  readonly commands?: readonly CommandVerdict[];
}

/**
 * Decides a call with validated `args`. `lines` holds the call's bash lines read so far, so
 * that the policy, the rule an approval offers and the remembered rules read a line once.
 *
 * @example await decide(policy, "write_file", { path: "./secrets/key" }, workspace) // { action: "deny", rule }
 */
export async function decide(
  policy: Policy,
  tool: string,
  args: Readonly<Record<string, unknown>>,
  workspace: Workspace,
  lines: ShellLines = new ShellLines(),
): Promise<PolicyVerdict> {
  // Each argument is turned into text (a path normalised) once, and only when a rule asks for it.
  const values = new Map<string, Promise<string | undefined>>();
  const argument = (name: string): Promise<string | undefined> => {
    let value = values.get(name);
    if (value === undefined) {
      value = textOf(name, Object.hasOwn(args, name) ? args[name] : undefined, workspace);
      values.set(name, value);
    }
    return value;
  };
  // `command` given: that pattern matches this text instead of the argument's value.
  const firstRule = async (command?: string): Promise<PolicyRule | undefined> => {
    for (const rule of policy.rules) {
      if (!wildcardMatch(rule.tool, tool)) continue;
      let argsMatch = true;
      for (const [name, pattern] of Object.entries(rule.args ?? {})) {
        const value = command !== undefined && name === "command" ? command : await argument(name);
        if (value === undefined || !wildcardMatch(pattern, value)) {
          argsMatch = false;
          break;
        }
      }
      if (argsMatch) return rule;
    }
    return undefined;
  };
  const line = args.command;
  const commandAware =
    SHELL_TOOLS.includes(tool) &&
    typeof line === "string" &&
    policy.rules.some((rule) => rule.args?.command !== undefined && wildcardMatch(rule.tool, tool));
  if (commandAware) return judgeLine(line, await lines.read(line), firstRule, policy.default);
  const rule = await firstRule();
  return rule ? { action: rule.action, rule } : { action: policy.default };
}

/** A rule as the config writes it and the deny text shows it: `write_file path=secrets/*`. */
export function describeRule(rule: PolicyRule): string {
  return [rule.tool, ...Object.entries(rule.args ?? {}).map(([name, pattern]) => `${name}=${pattern}`)].join(" ");
}

/** Whether `pattern` (`*` any characters, `?` one; `X *` also `X` alone) matches all of `text`. */
export function wildcardMatch(pattern: string, text: string): boolean {
  return compile(pattern).test(text);
}

const compiled = new Map<string, RegExp>();

function compile(pattern: string): RegExp {
  let regex = compiled.get(pattern);
  if (regex) return regex;
  // `X *` also matches `X` alone: `ls *` allows a bare `ls`, `rm *` denies it.
  const alone = pattern.endsWith(" *");
  const body = [...(alone ? pattern.slice(0, -2) : pattern)]
    .map((char) => (char === "*" ? "[\\s\\S]*" : char === "?" ? "[\\s\\S]" : char.replace(/[\\^$.|+()[\]{}/]/g, "\\$&")))
    .join("");
  regex = new RegExp(`^${body}${alone ? "(?: [\\s\\S]*)?" : ""}$`, "u");
  compiled.set(pattern, regex);
  return regex;
}

/**
 * `path` relative to the workspace, with `.`/`..` resolved and symlinks followed (as the
 * tool itself will); `/` separators. A path that leaves the workspace keeps its lexical form
 * (`../x`): the tool refuses it anyway.
 */
async function normalisePath(path: string, workspace: Workspace): Promise<string> {
  const real = await workspace.resolve(path).catch(() => resolve(workspace.root, path));
  return (relative(workspace.root, real) || ".").split(sep).join("/");
}

/** An argument as rules see it: absent stays absent, a path is normalised, other values are JSON. */
async function textOf(name: string, value: unknown, workspace: Workspace): Promise<string | undefined> {
  if (value === undefined) return undefined;
  if (typeof value !== "string") return JSON.stringify(value);
  return PATH_ARGUMENTS.includes(name) ? normalisePath(value, workspace) : value;
}
