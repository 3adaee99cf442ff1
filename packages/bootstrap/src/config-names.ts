/**
 * Every name the config gives a tool — a policy rule's `tool` and its `args` keys, a hook's
 * `tool`, each of `tools.pinned` — checked in one place against the tools provided: a rule
 * that can never match is a mistake (a typo, a plugin left out), refused with the nearest real
 * name. Tools withheld by their pins, and those of a plugin not loaded since its code changed,
 * count as provided, so that an update never makes a start fail. A wildcard is refused only
 * when it matches no tool. A hook's program that does not exist is refused too (a plugin could
 * otherwise create it and have it run unconfined).
 */
import { existsSync } from "node:fs";
import type { AppConfig } from "@plugboard/config";
import { configErrors } from "@plugboard/config/messages";
import { wildcardMatch } from "@plugboard/runtime";
import { nearest } from "./nearest-name.ts";

/** A tool the config may name, and its argument names (undefined when its schema is not known here). */
export interface KnownTool {
  readonly name: string;
  readonly arguments?: readonly string[];
}

/** The argument names of a parameter schema (its `properties`), undefined when it lists none. */
export function argumentNames(parameters: unknown): readonly string[] | undefined {
  const properties = typeof parameters === "object" && parameters !== null ? (parameters as { properties?: unknown }).properties : undefined;
  return typeof properties === "object" && properties !== null ? Object.keys(properties) : undefined;
}

/** Throws `CONFIG_INVALID` listing every name of the config no tool of `tools` has, each with the nearest real one, and every hook program that does not exist. */
export function checkConfigNames(config: AppConfig, tools: readonly KnownTool[]): void {
  const names = tools.map(({ name }) => name);
  const unmatched = [
    ...config.policy.rules.flatMap(({ tool, args }, index) => {
      const at = `policy.rules[${index}]`;
      const matched = tools.filter(({ name }) => wildcardMatch(tool, name));
      if (matched.length === 0) return [toolProblem(`${at}.tool`, tool, names)];
      return Object.keys(args ?? {}).flatMap((key) => argumentProblem(`${at}.args.${key}`, tool, key, matched));
    }),
    ...(["before", "after"] as const).flatMap((phase) =>
      config.hooks[phase].flatMap(({ tool }, index) =>
        tool === undefined || names.some((name) => wildcardMatch(tool, name)) ? [] : [toolProblem(`hooks.${phase}[${index}].tool`, tool, names)],
      ),
    ),
    ...config.tools.pinned.flatMap((tool, index) => (names.includes(tool) ? [] : [toolProblem(`tools.pinned[${index}]`, tool, names)])),
  ];
  const programs = (["before", "after"] as const).flatMap((phase) =>
    config.hooks[phase].flatMap(({ command: [program = ""] }, index) =>
      !program.includes("/") || existsSync(program) ? [] : [`hooks.${phase}[${index}].command: ${program} does not exist (a program's path is relative to the config's folder)`],
    ),
  );
  if (unmatched.length > 0) throw configErrors.unmatchedNames(config.configPath, [...unmatched, ...programs]);
  if (programs.length > 0) throw configErrors.invalid(config.configPath, programs);
}

function toolProblem(at: string, tool: string, names: readonly string[]): string {
  if (isWildcard(tool)) return `${at}: no enabled tool matches ${JSON.stringify(tool)} (enabled: ${listed(names)})`;
  const near = nearest(tool, names);
  return `${at}: no enabled tool is named ${JSON.stringify(tool)}${near === undefined ? ` (enabled: ${listed(names)})` : `; did you mean ${near}?`}`;
}

function argumentProblem(at: string, tool: string, key: string, matched: readonly KnownTool[]): string[] {
  // A tool whose schema is not known here (its plugin not loaded) may have any argument.
  if (matched.some(({ arguments: known }) => known === undefined || known.includes(key))) return [];
  const known = [...new Set(matched.flatMap(({ arguments: names = [] }) => names))];
  const whose = isWildcard(tool) ? `no tool matching ${JSON.stringify(tool)} has an` : `${tool} has no`;
  const near = nearest(key, known);
  return [`${at}: ${whose} argument ${JSON.stringify(key)}${near === undefined ? ` (arguments: ${listed(known)})` : `; did you mean ${near}?`}`];
}

function isWildcard(pattern: string): boolean {
  return pattern.includes("*") || pattern.includes("?");
}

/** At most a dozen names, then how many more. */
function listed(names: readonly string[]): string {
  if (names.length === 0) return "none";
  return names.length <= 12 ? names.join(", ") : `${names.slice(0, 12).join(", ")} and ${names.length - 12} more`;
}
