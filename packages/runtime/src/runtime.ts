/**
 * The runtime: one tool call in, one result out. Looks the tool up, parses and validates
 * the model's raw arguments, passes the gate (the policy, the before hooks, the person for an
 * `ask`), then calls the handler, runs the after hooks and records the call. Every expected failure is a result the model can read; a
 * programming error propagates wrapped in a `PluginError` naming the tool and its plugin.
 */
import type { Approver } from "./approval.ts";
import type { AuditSink } from "./audit.ts";
import { type Logger, silentLogger, type ToolContext, type ToolResult, type FunctionTool, type RegisteredTool, type ToolRegistry, type ResultsFile, type ResultsLimits, type Workspace } from "@plugboard/core";
import { PluginError, runHandler, toolErrors } from "@plugboard/core/internal";
import { runAfterHooks } from "./after-hooks.ts";
import { type GateOutcome, passGate } from "./gate.ts";
import { type HookEffect, type Hooks, hooksFor, NO_HOOKS } from "./hooks.ts";
import { ALLOW_ALL, type Policy } from "./policy.ts";
import { readArguments, toolNamed } from "./repair.ts";
import { checkToolSearch, DEFAULT_TOOL_SEARCH, type ToolSearchSettings } from "./tool-search-settings.ts";
import { capResult, resultsFileFor } from "./result-caps.ts";

export interface RuntimeOptions {
  readonly workspace: Workspace;
  readonly logger?: Logger;
  /** Allow, ask or deny each validated call. @default every call allowed */
  readonly policy?: Policy;
  /** Receives one record per call that reached the policy. */
  readonly audit?: AuditSink;
  /** The audit records' `session` unless a call names its own. @default a random UUID */
  readonly session?: string;
  /** When the agent loop sends `tool_search` instead of every tool (`tool-search.ts`). @default search over 64 tools, none pinned */
  readonly toolSearch?: ToolSearchSettings;
  /** Programs of the user's run before and after calls (see `hooks.ts`). @default none */
  readonly hooks?: Hooks;
  /**
   * Results over `maxBytes` are saved to `.plugboard/results/` in the workspace and the model
   * gets their head and tail. @default none: every result reaches the model whole
   */
  readonly results?: ResultsLimits;
}

/** Per-call inputs of `execute`. */
export interface ExecuteOptions {
  /** The model's tool call id; `"direct"` when a person calls the tool. */
  readonly callId?: string;
  readonly signal?: AbortSignal;
  /** Asked when the policy says `ask`; absent means no one to ask, so the call is refused. */
  readonly approve?: Approver;
  /** The audit records' `session` for this call. @default the runtime's */
  readonly session?: string;
}

const NEVER = new AbortController().signal;

export class ToolRuntime {
  readonly registry: ToolRegistry;
  readonly workspace: Workspace;
  readonly policy: Policy;
  readonly session: string;
  readonly toolSearch: ToolSearchSettings;
  readonly hooks: Hooks;
  readonly #logger: Logger;
  readonly #audit: AuditSink | undefined;
  readonly #results: ResultsLimits | undefined;

  constructor(registry: ToolRegistry, options: RuntimeOptions) {
    this.registry = registry;
    this.workspace = options.workspace;
    this.policy = options.policy ?? ALLOW_ALL;
    this.session = options.session ?? crypto.randomUUID();
    this.toolSearch = options.toolSearch ?? DEFAULT_TOOL_SEARCH;
    checkToolSearch(this.toolSearch, registry.names());
    this.hooks = options.hooks ?? NO_HOOKS;
    this.#logger = options.logger ?? silentLogger;
    this.#audit = options.audit;
    this.#results = options.results;
  }

  /** The OpenAI `tools` array (deep copies), in registration order. */
  schemas(): FunctionTool[] {
    return this.registry.schemas();
  }

  /**
   * Executes tool `name` with the model's raw JSON `rawArguments`.
   *
   * @example await runtime.execute("read_file", '{"path":"README.md","limit":1}')
   */
  async execute(name: string, rawArguments: string, options: ExecuteOptions = {}): Promise<ToolResult> {
    const registered = lookUp(this.registry, name);
    if (!registered) return toolErrors.unknownTool(name, this.registry.names());

    const args = parseArguments(registered, rawArguments);
    if ("isError" in args) return args;
    const tool = registered.tool.name;
    const repaired = { ...(tool === name ? {} : { tool: name }), ...(args.repaired ? { arguments: rawArguments } : {}) };

    const callId = options.callId ?? "direct";
    const signal = options.signal ?? NEVER;
    const arrived = { ts: new Date().toISOString(), at: performance.now() };
    const request = { id: callId, tool, arguments: args.value };
    const session = options.session ?? this.session;
    const before = hooksFor(this.hooks.before, tool);
    let gate: GateOutcome | undefined;
    let result: ToolResult | undefined;
    let after: readonly HookEffect[] = [];
    try {
      const hooks = before.length === 0 ? undefined : { before, session, validate: registered.validate };
      gate = await passGate({ policy: this.policy, workspace: this.workspace, request, approve: options.approve, signal, ...(hooks ? { hooks } : {}) });
      if (gate.refusal) {
        result = gate.refusal;
        return result;
      }
      const results = this.#results && resultsFileFor(this.workspace.root, callId, this.#results);
      const ctx: ToolContext = { workspace: this.workspace, signal, callId, logger: this.#logger, ...(results ? { results } : {}) };
      result = await this.#run(registered, { ...gate.arguments }, ctx);
      const afterHooks = hooksFor(this.hooks.after, tool);
      if (afterHooks.length > 0 && !signal.aborted) {
        const call = { tool, args: gate.arguments, session, callId, workspace: this.workspace.root };
        const hooked = await runAfterHooks(afterHooks, call, result, signal);
        after = hooked.effects;
        result = hooked.result;
      }
      // After hooks saw the whole result; the model gets what fits.
      result = await this.#forTheModel(result, results);
      return result;
    } finally {
      const hooks = [...(gate?.hooks ?? []), ...after];
      this.#audit?.({
        ts: arrived.ts,
        session,
        callId,
        tool,
        args: request.arguments,
        ...(Object.keys(repaired).length === 0 ? {} : { repaired }),
        // No outcome means the turn was cancelled while a person or a before hook was deciding.
        decision: gate?.decision ?? "ask:no",
        ...(gate?.rule === undefined ? {} : { rule: gate.rule }),
        ...(hooks.length === 0 ? {} : { hooks }),
        durationMs: Math.round(performance.now() - arrived.at),
        isError: result?.isError ?? true,
        resultBytes: result === undefined ? 0 : Buffer.byteLength(result.content),
      });
    }
  }

  /** What the model gets of a result: the whole when it fits, else head and tail with the file that holds it (results.ts). */
  async #forTheModel(result: ToolResult, results: ResultsFile | undefined): Promise<ToolResult> {
    return results === undefined ? result : capResult(result, this.workspace.root, results);
  }

  async #run(registered: RegisteredTool, args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
    let result: ToolResult;
    try {
      // Once: by the tool's source, where its handler runs, or here for a bare definition.
      const { source, tool } = registered;
      result = await (source === undefined ? runHandler(tool, args, ctx) : source.call(tool.name, args, ctx));
    } catch (error) {
      throw new PluginError({ tool: registered.tool.name, plugin: registered.owner, phase: "handler", cause: error });
    }
    // Checked here, in the app, wherever the handler ran: a result unlike the declared schema is the plugin's bug.
    const problems = registered.checkOutput === undefined || result.isError ? [] : registered.checkOutput(result.structuredContent);
    if (problems.length > 0) {
      const cause = new TypeError(`its structuredContent does not match its outputSchema: ${problems.join("; ")}`);
      throw new PluginError({ tool: registered.tool.name, plugin: registered.owner, phase: "result", cause });
    }
    return result;
  }
}


/** The tool `name` names: its own, or the one tool it differs from only by case or `-`/`_`. */
export function lookUp(registry: ToolRegistry, name: string): RegisteredTool | undefined {
  const exact = registry.get(name);
  if (exact) return exact;
  const meant = toolNamed(name, registry.names());
  return meant === undefined ? undefined : registry.get(meant);
}

/**
 * A call's raw JSON arguments parsed (repaired when they are almost JSON, see `repair.ts`) and
 * validated against its tool's schema, or the error result the model sees. Also how the
 * scheduler reads what a call writes (`tool-calls.ts`).
 */
export function parseArguments(
  registered: RegisteredTool,
  rawArguments: string,
): { readonly value: Record<string, unknown>; readonly repaired: boolean } | ToolResult {
  const read = readArguments(rawArguments);
  if (read === undefined) return toolErrors.invalidJson(jsonError(rawArguments));
  const { value: args, repaired } = read;
  if (typeof args !== "object" || args === null || Array.isArray(args)) return toolErrors.notAnObject();
  const problems = registered.validate(args);
  if (problems.length > 0) return toolErrors.invalidArguments(registered.tool.name, problems);
  // Validated against the tool's own schema.
  return { value: args as Record<string, unknown>, repaired };
}

/** What `JSON.parse` says of text that is not JSON. */
function jsonError(text: string): string {
  try {
    JSON.parse(text);
    return "not JSON";
  } catch (error) {
    return (error as SyntaxError).message;
  }
}
