/**
 * What `plugboard policy explain` and `policy test` read: the config's policy and hooks,
 * where the file writes each rule and hook, and the workspace (a `path` is normalised
 * against it); and how one call is judged, with the deciding entry as written.
 */
import { relative } from "node:path";
import { type AppConfig, locatePolicy, type PolicySource, type WrittenEntry } from "@plugboard/config";
import { UsageError, type ParsedArgs } from "../args.ts";
import { decide, hooksFor, type PolicyRule, type PolicyVerdict } from "@plugboard/runtime";
import type { Io } from "../io.ts";
import { loadApp } from "../load-app.ts";

/** A loaded policy and how to judge calls against it. */
export interface LoadedPolicy {
  readonly config: AppConfig;
  /** The config's path as the person reads it (relative to the current folder when inside it). */
  readonly file: string;
  /** Where the file writes each entry of its policy and hooks. */
  readonly source: PolicySource;
  judge(tool: string, args: Readonly<Record<string, unknown>>): Promise<Judgement>;
  /** The rule as the config writes it, with its line: `{ … } (plugboard.config.json:12)`; the default when none. */
  where(rule: PolicyRule | undefined): string;
  /** The plugins that run confined in their hosts (by manifest name), as the app decided at start. */
  readonly confined: readonly string[];
}

/** One call's verdict, and the hooks that would run for it (none for a denied call). */
export interface Judgement {
  readonly verdict: PolicyVerdict;
  readonly hooks: readonly string[];
}

/**
 * Loads the config named by `--config` (else the current folder's, else the shipped one) and
 * builds its app once, so that a rule naming a tool no plugin or server provides is refused
 * here as at every start (nothing runs; changed tools stay withheld, unsaid).
 */
export async function loadPolicy(parsed: ParsedArgs, io: Io): Promise<LoadedPolicy> {
  const app = await loadApp(parsed, io, { announceWorkspace: false, changedTools: { withhold: true } });
  await app.close();
  const { config, workspace } = app;
  const source: PolicySource = locatePolicy(await Bun.file(config.configPath).text());
  const near = relative(io.cwd, config.configPath);
  const file = near.startsWith("..") ? config.configPath : near;
  const at = (entry: WrittenEntry | undefined) => (entry ? `${entry.text} (${file}:${entry.line})` : undefined);
  const where = (rule: PolicyRule | undefined): string => {
    const index = rule === undefined ? -1 : config.policy.rules.indexOf(rule);
    const written = at(source.rules[index]);
    if (written !== undefined) return written;
    const line = source.default === undefined ? `not set in ${file}` : `${file}:${source.default.line}`;
    return `the default, ${config.policy.default} (${line})`;
  };
  const judge = async (tool: string, args: Readonly<Record<string, unknown>>): Promise<Judgement> => {
    const verdict = await decide(config.policy, tool, args, workspace);
    if (verdict.action === "deny") return { verdict, hooks: [] };
    const listed = (kind: "before" | "after") =>
      hooksFor(config.hooks[kind], tool).map((hook) => {
        const entry = source[kind][config.hooks[kind].indexOf(hook)];
        return `${kind} ${hook.label}${entry ? ` (${file}:${entry.line})` : ""}`;
      });
    return { verdict, hooks: [...listed("before"), ...listed("after")] };
  };
  return { config, file, source, judge, where, confined: app.sandbox.confined };
}

/** The JSON object of a call's arguments, or a usage error that says how to write it. */
export function argumentsOf(json: string, command: ParsedArgs["command"]): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new UsageError(`The arguments are not JSON: ${json}. Write them as one JSON object, e.g. '{"command":"git status"}'`, command);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new UsageError(`The arguments must be a JSON object, got ${json}. Write them as e.g. '{"command":"git status"}'`, command);
  }
  return value as Record<string, unknown>;
}
