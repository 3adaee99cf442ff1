/**
 * The last stages of building an app: the registry, of the open sources' entries but the
 * tools their pins withhold, and the runtime over it, with the config's policy, hooks, tool
 * search, result caps, audit log and the app's secrets (the config's and the servers' OAuth
 * tokens), which the runtime keeps from the model.
 */
import { ToolRegistry } from "@plugboard/core";
import type { Permission } from "@plugboard/core";
import { ToolRuntime } from "@plugboard/runtime";
import { checkHooks } from "./checks.ts";
import type { OpenSources } from "./open-sources.ts";
import type { Pinning } from "./pinned-tools.ts";
import type { Plan } from "./plan.ts";

/** The registry and runtime of the app, and each tool's grants. */
export interface Assembled {
  readonly registry: ToolRegistry;
  readonly runtime: ToolRuntime;
  /** For each tool, the permissions the config grants to the plugin or server providing it. */
  readonly toolGrants: ReadonlyMap<string, readonly Permission[]>;
}

/** Builds the registry and the runtime; a hook no enabled tool matches is the config's error (`checkHooks`). */
export function assembleRuntime({ config, options, workspace, found, plugins }: Plan, opened: OpenSources, pinning: Pinning): Assembled {
  const withheld = new Set(pinning.withheld.map(({ tool }) => tool));
  // A withheld tool is sent neither at once (tools.pinned) nor found by a search: it is not in the registry.
  const offered = opened.provided.map(({ entries, grants }) => ({ entries: entries.filter(({ tool }) => !withheld.has(tool.name)), grants }));
  // Each tool's schema is rewritten for the endpoint's dialect here, once (core's dialect.ts).
  const registry = new ToolRegistry(offered.flatMap(({ entries }) => entries), { dialect: config.model.dialect });
  const toolGrants = new Map(offered.flatMap(({ entries, grants }) => entries.map(({ tool }) => [tool.name, grants] as const)));
  // A plugin not loaded (its code changed) still counts as the config's: a hook for one of its tools is no mistake of the config.
  const unloaded = found.filter((plugin) => !plugins.includes(plugin)).flatMap(({ manifest }) => manifest.tools.map(({ name }) => name));
  checkHooks(config, [...registry.names(), ...unloaded]);
  const runtime = new ToolRuntime(registry, {
    workspace,
    logger: options.logger,
    policy: config.policy,
    toolSearch: { ...config.tools, pinned: config.tools.pinned.filter((name) => !withheld.has(name)) },
    hooks: config.hooks,
    results: config.results,
    audit: opened.audit?.write,
    secrets: [...config.secrets, ...opened.secrets],
  });
  return { registry, runtime, toolGrants };
}
