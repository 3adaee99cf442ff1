/**
 * The last stages of building an app: the registry, of the open sources' entries but the
 * tools their pins withhold, and the runtime over it, with the config's policy, hooks, tool
 * search, result caps, audit log, the tools the session's taint follows, and the app's
 * secrets (the config's and the servers' OAuth tokens), which the runtime keeps from the model.
 */
import { ToolRegistry } from "@plugboard/core";
import type { Permission } from "@plugboard/core";
import { ToolRuntime } from "@plugboard/runtime";
import type { OpenSources } from "./open-sources.ts";
import type { Pinning } from "./pinned-tools.ts";
import type { Plan } from "./plan.ts";
import { taintTools } from "./taint-tools.ts";

/** The registry and runtime of the app, and each tool's grants. */
export interface Assembled {
  readonly registry: ToolRegistry;
  readonly runtime: ToolRuntime;
  /** For each tool, the permissions the config grants to the plugin or server providing it. */
  readonly toolGrants: ReadonlyMap<string, readonly Permission[]>;
}

/** Builds the registry and the runtime. */
export function assembleRuntime({ config, options, workspace, sandbox }: Plan, opened: OpenSources, pinning: Pinning): Assembled {
  const withheld = new Set(pinning.withheld.map(({ tool }) => tool));
  // A withheld tool is sent neither at once (tools.pinned) nor found by a search: it is not in the registry.
  const offered = opened.provided.map(({ index, owner, entries, grants }) => ({ index, owner, entries: entries.filter(({ tool }) => !withheld.has(tool.name)), grants }));
  // Each tool's schema is rewritten for the endpoint's dialect here, once (core's dialect.ts).
  const registry = new ToolRegistry(offered.flatMap(({ entries }) => entries), { dialect: config.model.dialect });
  const toolGrants = new Map(offered.flatMap(({ entries, grants }) => entries.map(({ tool }) => [tool.name, grants] as const)));
  const runtime = new ToolRuntime(registry, {
    workspace,
    logger: options.logger,
    policy: config.policy,
    // A pinned name of a withheld tool, or of a plugin not loaded, is the config's (config-names.ts) but not the registry's.
    toolSearch: { ...config.tools, pinned: config.tools.pinned.filter((name) => registry.get(name) !== undefined) },
    hooks: config.hooks,
    results: config.results,
    audit: opened.audit?.write,
    taint: taintTools(offered.flatMap(({ index, owner, entries }) => {
      const entry = config.plugins[index];
      return entry === undefined ? [] : [{ entry, confined: sandbox.confined.includes(owner), tools: entries.map(({ tool }) => tool.name) }];
    })),
    secrets: [...config.secrets, ...opened.secrets],
  });
  // A server's OAuth token refreshed during the session is kept from the model as the first was.
  opened.keepFound((secrets) => runtime.keepSecrets(secrets));
  return { registry, runtime, toolGrants };
}
