/**
 * The runtime: one tool call in, one result out. Prepares the call once (the tool looked up,
 * the model's raw arguments read and validated, `prepared-call.ts`), passes the gate (the
 * policy, the before hooks, the session's remembered rules and the person for an `ask`), then
 * calls the handler, runs the after hooks, takes the app's secrets out of the result (`redaction.ts`) and records the
 * call. Every expected failure is a result the model can read; a
 * programming error propagates wrapped in a `PluginError` naming the tool and its plugin.
 */
import type { Approver } from "./approval.ts";
import { Asking } from "./asking.ts";
import type { AuditSink } from "./audit.ts";
import { type Logger, silentLogger, type ToolContext, type ToolResult, type FunctionTool, type RegisteredTool, type ToolRegistry, type ResultsFile, type ResultsLimits, type Workspace } from "@plugboard/core";
import { PluginError, runHandler } from "@plugboard/core/internal";
import { runAfterHooks } from "./after-hooks.ts";
import { type GateOutcome, passGate } from "./gate.ts";
import { type HookEffect, type Hooks, hooksFor, NO_HOOKS } from "./hooks.ts";
import { ALLOW_ALL, type Policy, type PolicyRule } from "./policy.ts";
import { type PreparedCall, prepareCall } from "./prepared-call.ts";
import type { ArgumentsReading } from "./repair.ts";
import { ShellLines } from "./shell-lines.ts";
import { checkToolSearch, DEFAULT_TOOL_SEARCH, type ToolSearchSettings } from "./tool-search-settings.ts";
import { capResult, resultsFileFor, toolErrors } from "@plugboard/core/internal";
import { REDACTED_MARK, Redactor, type Secret } from "./redaction.ts";

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
  /**
   * The app's secrets: their values are replaced by `[redacted: NAME]` in every result before
   * the model gets it, as are the well-known key formats (`key-formats.ts`) whatever this holds.
   * @default none
   */
  readonly secrets?: readonly Secret[];
}

/** A result as the runtime returns it: what the model gets, and how many secrets were taken out of it. */
export interface CallResult extends ToolResult {
  /** Secrets replaced by `[redacted: NAME]`; absent when none. */
  readonly redactions?: number;
}

/** Per-call inputs of `execute`. */
export interface ExecuteOptions {
  /** The model's tool call id; `"direct"` when a person calls the tool. */
  readonly callId?: string;
  readonly signal?: AbortSignal;
  /**
   * Asked when the policy says `ask` and no rule the session remembered allows the call;
   * absent means no one to ask, so the call is refused.
   */
  readonly approve?: Approver;
  /** The audit records' `session` for this call. @default the runtime's */
  readonly session?: string;
  /**
   * `false` for a call whose result no model reads (the person's own `plugboard call`): its
   * secrets are left in. @default every result is redacted
   */
  readonly redact?: false;
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
  readonly #asking: Asking;
  readonly #redactor: Redactor;

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
    this.#asking = new Asking(this.workspace);
    this.#redactor = new Redactor(options.secrets);
  }

  /** The OpenAI `tools` array (deep copies), in registration order. */
  schemas(): FunctionTool[] {
    return this.registry.schemas();
  }

  /**
   * The call of tool `name` with the model's raw JSON `rawArguments`, made ready to run: the
   * tool looked up, the arguments read (repaired when almost JSON) and validated, once.
   * `reading` is the arguments as another runtime already read them.
   *
   * @example const call = runtime.prepare("read_file", '{"path":"README.md"}'); // then runtime.execute(call)
   */
  prepare(name: string, rawArguments: string, reading?: ArgumentsReading): PreparedCall {
    return prepareCall(this.registry, name, rawArguments, reading);
  }

  /**
   * The rules the "always" answers of `session` added, in order: what the runtime remembers
   * and judges before it asks anyone about a call.
   */
  remembered(session: string = this.session): readonly PolicyRule[] {
    return this.#asking.remembered(session);
  }

  /**
   * Executes a prepared call (`prepare`), or prepares tool `name` with the model's raw JSON
   * `rawArguments` and executes it.
   *
   * @example await runtime.execute("read_file", '{"path":"README.md","limit":1}')
   */
  execute(call: PreparedCall, options?: ExecuteOptions): Promise<CallResult>;
  execute(name: string, rawArguments: string, options?: ExecuteOptions): Promise<CallResult>;
  execute(call: PreparedCall | string, second?: string | ExecuteOptions, third?: ExecuteOptions): Promise<CallResult> {
    if (typeof call !== "string") return this.#execute(call, typeof second === "object" ? second : {});
    return this.#execute(this.prepare(call, typeof second === "string" ? second : ""), third ?? {});
  }

  async #execute(call: PreparedCall, options: ExecuteOptions): Promise<CallResult> {
    if (!call.ok) return call.error;
    const { registered, name, rawArguments } = call;
    const tool = registered.tool.name;
    const repaired = { ...(tool === name ? {} : { tool: name }), ...(call.repaired ? { arguments: rawArguments } : {}) };

    const callId = options.callId ?? "direct";
    const signal = options.signal ?? NEVER;
    const arrived = { ts: new Date().toISOString(), at: performance.now() };
    const request = { id: callId, tool, arguments: call.arguments };
    const session = options.session ?? this.session;
    // The call's bash lines, read once whoever judges them: the policy, the offer, the remembered rules.
    const lines = new ShellLines();
    const ask = (asked: typeof request) => this.#asking.ask({ request: asked, session, approve: options.approve, lines, signal });
    const before = hooksFor(this.hooks.before, tool);
    let gate: GateOutcome | undefined;
    let result: CallResult | undefined;
    let after: readonly HookEffect[] = [];
    try {
      // A placeholder written over a file would replace the secret it stands for: refused before anyone is asked.
      if (writesPlaceholder(registered, request.arguments)) {
        gate = { decision: "deny", arguments: request.arguments, hooks: [] };
        result = toolErrors.redactedPlaceholder(tool);
        return result;
      }
      const hooks = before.length === 0 ? undefined : { before, session, validate: registered.validate };
      gate = await passGate({ policy: this.policy, workspace: this.workspace, request, lines, ask, signal, ...(hooks ? { hooks } : {}) });
      if (!gate.refusal && writesPlaceholder(registered, gate.arguments)) gate = { ...gate, decision: "deny", refusal: toolErrors.redactedPlaceholder(tool) };
      const redact = options.redact !== false;
      if (gate.refusal) {
        result = await this.#forTheModel(gate.refusal, undefined, redact);
        return result;
      }
      const results = this.#results && resultsFileFor(this.workspace.root, callId, this.#results);
      const ctx: ToolContext = { workspace: this.workspace, signal, callId, logger: this.#logger, ...(results ? { results } : {}) };
      let whole = await this.#run(registered, { ...gate.arguments }, ctx);
      result = whole;
      const afterHooks = hooksFor(this.hooks.after, tool);
      if (afterHooks.length > 0 && !signal.aborted) {
        const call = { tool, args: gate.arguments, session, callId, workspace: this.workspace.root };
        const hooked = await runAfterHooks(afterHooks, call, whole, signal);
        after = hooked.effects;
        whole = hooked.result;
        result = whole;
      }
      // After hooks saw the whole result; the model gets what fits, its secrets taken out.
      result = await this.#forTheModel(whole, results, redact);
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
        ...(result?.redactions === undefined ? {} : { redactions: result.redactions }),
      });
    }
  }

  /**
   * What the model gets of a result: its secrets replaced (redaction.ts) unless `redact` is off,
   * then the whole when it fits, else head and tail with the file that holds it (results.ts) —
   * the file holds the result as it was: it is the person's, in their workspace.
   */
  async #forTheModel(whole: ToolResult, results: ResultsFile | undefined, redact: boolean): Promise<CallResult> {
    const redactor = this.#redactor;
    if (!redact) return results === undefined ? whole : capResult(whole, this.workspace.root, results);
    const { text: content, count } = redactor.redact(whole.content);
    const structured = whole.structuredContent === undefined ? undefined : redactor.redactValue(whole.structuredContent);
    const redactions = count + (structured?.count ?? 0);
    if (redactions === 0) return results === undefined ? whole : capResult(whole, this.workspace.root, results);
    const redacted = { content, isError: whole.isError, ...(structured === undefined ? {} : { structuredContent: structured.value }) };
    const capped = results === undefined ? redacted : await capResult(redacted, this.workspace.root, results, whole.content);
    return { ...capped, redactions };
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

/** Whether a call of a tool that writes a file (`concurrency: { writes }`: write_file, edit_file) carries a redaction's placeholder. */
function writesPlaceholder(registered: RegisteredTool, args: Readonly<Record<string, unknown>>): boolean {
  return typeof registered.tool.concurrency === "object" && JSON.stringify(args).includes(REDACTED_MARK);
}
