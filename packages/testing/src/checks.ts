/**
 * The conformance checks a plugin is held to, in the order they run and are reported, with
 * what each one expects and the general fix; and the shapes of their results.
 */

/** A check's identifier. */
export type CheckId =
  | "package"
  | "manifest"
  | "tools"
  | "strict-schemas"
  | "dialects"
  | "invalid-arguments"
  | "foreseeable-errors"
  | "abort"
  | "quiet"
  | "permissions"
  | "confined";

/**
 * `warn` passes with reasons worth reading (`strict-schemas`, since strict mode is
 * optional, and `dialects`); `skip` means the check could not run: the plugin did not load, or (`confined`)
 * there is no `plugboard` to run it confined, or no sandbox on this system.
 */
export type CheckStatus = "pass" | "warn" | "fail" | "skip";

/** The outcome of one check. */
export interface CheckResult {
  readonly id: CheckId;
  readonly title: string;
  readonly status: CheckStatus;
  /** What is wrong (`fail`), worth changing (`warn`) or why the check did not run (`skip`). */
  readonly problems: readonly string[];
  /** What to change; set when the status is `fail` or `warn`. */
  readonly fix?: string;
  /** What the check could not observe, or how to let it see more. */
  readonly notes: readonly string[];
}

/** Every check's result for one plugin folder. */
export interface ConformanceReport {
  /** The plugin's folder, absolute. */
  readonly directory: string;
  /** `name@version` from package.json (else the manifest), when readable. */
  readonly plugin: string | undefined;
  /** One result per check, in `CHECK_IDS` order. */
  readonly checks: readonly CheckResult[];
  /** True when no check failed (warnings and skips do not fail a plugin by themselves). */
  readonly ok: boolean;
}

/** What each check expects (its title) and the general way to fix it. */
export const CHECKS: Readonly<Record<CheckId, { readonly title: string; readonly fix: string }>> = {
  package: {
    title: "package.json is ready to publish",
    fix: 'In package.json: list plugboard.plugin.json and the entry\'s folder in "files", export "./plugboard.plugin.json", and make @plugboard/core a peerDependency, not a dependency.',
  },
  manifest: {
    title: "the manifest is valid and agrees with package.json",
    fix: "Fix plugboard.plugin.json as the message says.",
  },
  tools: {
    title: "the entry loads and returns exactly the manifest's tools",
    fix: "Fix the entry (or the manifest's tools) as the message says.",
  },
  "strict-schemas": {
    title: "parameter schemas fit OpenAI strict mode (optional)",
    fix: "For strict mode, list every property in required (an optional one becomes nullable: Type.Union([T, Type.Null()])), set additionalProperties: false on every object, and say what unsupported keywords (default, minLength, …) meant in the description instead.",
  },
  dialects: {
    title: "each model dialect can send its tools (what each rewrite drops is in the notes)",
    fix: "Name each tool with a letter or _ first: Gemini refuses other names.",
  },
  "invalid-arguments": {
    title: "invalid arguments never reach a handler",
    fix: "Build parameters from TypeBox types the validator checks (Type.String(), Type.Integer(), …), not Type.Any() or Type.Unknown() dressed with a type, and do not set additionalProperties: true.",
  },
  "foreseeable-errors": {
    title: "bad input gives Error: results, not exceptions",
    fix: "Throw ToolError (or return errorResult) for failures the caller can cause: a missing file, a path outside the workspace (Workspace.resolve throws the right error), a value out of range. Only bugs may throw anything else.",
  },
  abort: {
    title: "a call stops soon after its signal aborts",
    fix: "Pass ctx.signal to whatever the handler waits on (fetch, Bun.spawn, timers) or check ctx.signal.aborted in loops, so the call settles soon after the signal aborts.",
  },
  quiet: {
    title: "loading and calling it print nothing on stdout",
    fix: "Do not print from a plugin: stdout belongs to the app (answers, JSON events). Use ctx.logger for diagnostics and return output as the tool result.",
  },
  permissions: {
    title: "it uses only the permissions it asks for",
    fix: 'Add every permission the plugin uses to the manifest\'s "permissions" (fs.write, process.spawn, network), or stop using it; never touch files outside the workspace.',
  },
  confined: {
    title: "run confined by the sandbox with its grants, it is refused nothing",
    fix: 'Add every permission the plugin uses to the manifest\'s "permissions" (fs.write, process.spawn, network), or stop using it: an app runs it confined to exactly those grants, and the kernel refuses the rest.',
  },
};

/** Every check, in the order they run and are reported. */
export const CHECK_IDS = Object.keys(CHECKS) as readonly CheckId[];

/** A result for `id`; `fix` is added for `fail` and `warn` unless given. */
export function result(
  id: CheckId,
  status: CheckStatus,
  problems: readonly string[] = [],
  extra: { readonly fix?: string; readonly notes?: readonly string[] } = {},
): CheckResult {
  const { title, fix } = CHECKS[id];
  const needsFix = status === "fail" || status === "warn";
  return {
    id,
    title,
    status,
    problems,
    ...(needsFix ? { fix: extra.fix ?? fix } : {}),
    notes: extra.notes ?? [],
  };
}

/** `fail` when there are problems, else `pass`. */
export function failIfAny(id: CheckId, problems: readonly string[], notes: readonly string[] = []): CheckResult {
  return result(id, problems.length > 0 ? "fail" : "pass", problems, { notes });
}
