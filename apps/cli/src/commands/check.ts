/** `plugboard check`: load and validate everything, run nothing, print a short summary. */
import { realpathSync } from "node:fs";
import { dirname, relative } from "node:path";
import type { ParsedArgs } from "../args.ts";
import type { Io } from "../io.ts";
import { acceptedLine, DEFAULT_BASE_URL, type ModelSettings, PlugboardError, type StartedApp, withheldCodeLine, withheldLine } from "@plugboard/bootstrap";
import { plural, visible } from "@plugboard/core/internal";
import { describeRule, type Hook, type Hooks, type Policy } from "@plugboard/runtime";
import { loadApp } from "../load-app.ts";
import { grantedPathLines } from "./check-paths.ts";
import { protectedLines } from "./check-protected.ts";

/**
 * Validates the config, every plugin and the workspace, then asks the model endpoint whether
 * it knows the key and the model; returns 0, or 1 when pinned tools are withheld from the
 * model, or plugins not loaded, since they changed (problems throw: exit 2, the endpoint's exit 3).
 * Every plugin host starts and lists its tools, whatever the listing cache holds. `accept`
 * (`plugin add`'s check) pins the code and tools of the plugin of that name as they are, first
 * saying, as `plugin accept` does, each tool it pinned whose description the scan flagged.
 */
export async function checkCommand(parsed: ParsedArgs, io: Io, accept?: string): Promise<number> {
  const app = await loadApp(parsed, io, { announceWorkspace: false, freshHosts: true, changedTools: accept === undefined ? { withhold: true } : { accept } });
  const { config, plugins, registry } = app;
  await app.close();
  const { model } = config;
  const demo = model.apiKey === undefined && model.baseURL === undefined;
  // `plugin add` checks the app it changed: a model endpoint that fails says nothing about the plugin.
  const askEndpoint = parsed.command === "check" && parsed.flags.offline !== true;
  const endpoint = demo
    ? "the offline demo model (no MODEL_API_KEY or BASE_URL)"
    : `${model.name} at ${model.baseURL ?? DEFAULT_BASE_URL}${model.apiKey === undefined ? " (no API key)" : " (API key set)"}${askEndpoint ? await reached(model) : ""}`;
  const lines = [
    // What the person just trusted, though it reads as addressed to the model.
    ...app.pinning.accepted.filter((change) => change.flags.length > 0).map(acceptedLine),
    `OK: ${config.configPath}`,
    `  workspace: ${app.workspace.root}${config.workspaceSource === "default" ? " (the current folder)" : ""}`,
    `  model:     ${endpoint}`,
    ...(demo ? [] : [`  dialect:   ${dialectLine(app)}`]),
    `  max steps: ${config.maxSteps}`,
    `  plugins:   ${plugins.length}${plugins.length > 0 ? ` (${plugins.map((plugin) => `${plugin.name} ${plugin.version}`).join(", ")})` : ""}`,
    ...(app.servers.length > 0
      ? [`  mcp:       ${app.servers.length} (${app.servers.map((server) => `${server.name} ${server.version} over ${server.transport}`).join(", ")})`]
      : []),
    `  tools:     ${registry.size}${registry.size > 0 ? ` (${registry.names().join(", ")})` : ""}`,
    ...searchLine(app),
    ...policyLines(config.policy),
    ...hookLines(config.hooks, app.workspace.root, config.plugins.some((entry) => entry.permissions.includes("fs.write"))),
    `  audit:     ${config.audit ?? "(none)"}`,
    codeLine(app),
    ...networkLines(app),
    ...grantedPathLines(app),
    `  sandbox:   ${sandboxLine(app)}`,
    ...sandboxLayers(app),
    ...protectedLines(app, io.env),
    ...limitsLines(app),
    ...withheldLines(app),
  ];
  // Names, versions and withheld descriptions come from the plugins and servers themselves.
  await io.print(`${visible(lines.join("\n"))}\n`);
  return app.pinning.withheld.length > 0 || app.codePinning.withheld.length > 0 ? 1 : 0;
}

/** The schema dialect the tools are sent in, and the tools it sends not as written (core's dialect.ts). */
function dialectLine({ config, registry }: StartedApp): string {
  const { dialect } = config.model;
  const changed = registry.names().filter((name) => registry.get(name)?.sent.asWritten === false);
  const rewritten = changed.length === 0 ? "every tool's schema as written" : `rewritten for it: ${changed.join(", ")}`;
  return `${dialect}${config.model.dialect === "openai" ? "" : ` (${rewritten})`}`;
}

/** Whose code the lock pins: the plugins compared with their pins, and the shipped ones, which the release pins. */
function codeLine({ codePinning, pinning }: StartedApp): string {
  const pinned = codePinning.sources;
  return `  code:      ${pinned.length === 0 ? "" : `${pinned.join(", ")} pinned in ${pinning.lockPath}; `}the shipped plugins pinned by the release`;
}

/** The plugins not loaded and the pinned tools withheld since they changed, each with how to accept it. */
function withheldLines({ pinning, codePinning }: StartedApp): string[] {
  const plugins = codePinning.withheld.length;
  const tools = pinning.withheld.length;
  return [
    ...(plugins === 0
      ? []
      : [
          `  not loaded: ${plugins} ${plural(plugins, "plugin")} whose code changed since pinned:`,
          ...codePinning.withheld.map((change) => `    ${withheldCodeLine(change, pinning.lockPath)}`),
        ]),
    ...(tools === 0
      ? []
      : [`  withheld:  ${tools} ${plural(tools, "tool")} changed since pinned, not offered to the model:`, ...pinning.withheld.map((change) => `    ${withheldLine(change, pinning.lockPath)}`)]),
  ];
}

/** Over `tools.searchOver` tools: what the model is sent instead of every tool. */
function searchLine({ registry, runtime }: StartedApp): string[] {
  const { searchOver, pinned } = runtime.toolSearch;
  if (registry.size <= searchOver) return [];
  return [`  search:    on (more than ${searchOver} tools): the model is sent tool_search${pinned.length > 0 ? ` and ${pinned.join(", ")}` : ""}`];
}

/** Asks the endpoint (see `probeEndpoint`): how it answered, or a `MODEL_ENDPOINT` error (exit 3) saying what to change. */
async function reached(model: ModelSettings): Promise<string> {
  const { createModelClient, probeEndpoint } = await import("@plugboard/agent");
  const probe = await probeEndpoint(createModelClient(model));
  if (!probe.ok) throw new PlugboardError("MODEL_ENDPOINT", `check failed at the model endpoint: ${probe.failure.message}`);
  return probe.how === "listed" ? ", reached: the model is listed" : ", reached: a one-token completion answered";
}

/** Each layer in force and what this kernel lacks, under the sandbox line. */
function sandboxLayers({ sandbox }: StartedApp): string[] {
  if (sandbox.mechanism === undefined) return [];
  const { layers, missing } = sandbox.mechanism;
  return [...layers, `missing on this kernel: ${missing.length === 0 ? "nothing" : missing.join("; ")}`].map((line) => `             ${line}`);
}

/** The limits of each confined tree as this machine enforces them, and what it lacks for the others. */
function limitsLines({ sandbox }: StartedApp): string[] {
  if (sandbox.limits === undefined) return [];
  const { inForce, lacking } = sandbox.limits;
  return [`  limits:    ${inForce}`, `             missing on this machine: ${lacking.length === 0 ? "nothing" : lacking.join("; ")}`];
}

/** The mechanism in force (or why there is none) and which plugins it confines. */
function sandboxLine({ sandbox, plugins }: StartedApp): string {
  if (sandbox.mechanism === undefined) return sandbox.summary;
  const unconfined = plugins.map((plugin) => plugin.name).filter((name) => !sandbox.confined.includes(name));
  const which = unconfined.length === 0 ? "every plugin confined" : `unconfined ("sandbox": false): ${unconfined.join(", ")}`;
  return `${sandbox.summary} (${which})`;
}

/** Each plugin and server granted `network`, with the hosts its grant is narrowed to (or any host); nothing when none is. */
function networkLines({ config, plugins, codePinning }: StartedApp): string[] {
  const names = plugins.map((plugin) => plugin.name);
  const unloaded = new Map(codePinning.withheld.map((change) => [change.index, change.source]));
  const granted = config.plugins.flatMap((entry, index) => {
    const name = "mcp" in entry ? `${entry.name} (mcp)` : (unloaded.get(index) ?? names.shift() ?? "");
    if (!entry.permissions.includes("network")) return [];
    return [`${name} → ${entry.network === undefined ? "any host" : `${entry.network.join(", ")} (only, through the app's proxy)`}`];
  });
  return granted.map((line, index) => `${index === 0 ? "  network:   " : "             "}${line}`);
}

/** The rules in order (the first match decides), then the default. */
function policyLines(policy: Policy): string[] {
  const rules = policy.rules.map((rule, index) => `    ${index + 1}. ${describeRule(rule)} → ${rule.action}`);
  return [
    `  policy:    ${policy.rules.length} ${plural(policy.rules.length, "rule")} (the first that matches decides), else ${policy.default}`,
    ...rules,
  ];
}

/**
 * The hooks in the order they run, each with the tools it runs for and its timeout, and a
 * warning under one whose code lies in a workspace plugins may write; nothing when there are none.
 */
function hookLines(hooks: Hooks, workspace: string, writable: boolean): string[] {
  const all = [...hooks.before.map((hook) => ({ phase: "before", hook })), ...hooks.after.map((hook) => ({ phase: "after", hook }))];
  if (all.length === 0) return [];
  return [
    `  hooks:     ${all.length} (in order, unconfined, as you)`,
    ...all.flatMap(({ phase, hook }) => [`    ${phase} ${hook.tool ?? "*"}: ${hook.label} (timeout ${hook.timeoutMs} ms)`, ...(writable ? hookWarning(hook, workspace) : [])]),
  ];
}

/** Whether a hook's program lies in the workspace, and if so what a plugin could still do to it. */
function hookWarning(hook: Hook, workspace: string): string[] {
  if (hook.program === undefined) return [];
  let root: string;
  let folder: string;
  try {
    root = realpathSync(workspace);
    folder = dirname(realpathSync(hook.program));
  } catch {
    return [];
  }
  const inside = relative(root, folder);
  if (inside.startsWith("..") || inside.startsWith("/")) return [];
  if (inside === "") {
    return [
      "      warning: its code lies in the workspace's top folder, which plugins may write and which cannot be made read-only: it runs in an empty folder instead, but a plugin could still plant what it imports from there; move it into a folder of its own, such as hooks/",
    ];
  }
  return [`      warning: its code lies in the workspace, which plugins may write: ${inside}/ is read-only to confined plugins, not to one that runs unconfined`];
}
