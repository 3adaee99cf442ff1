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
import { askToGrant, type GivenGrant } from "./grant-offer.ts";
import { type HookEffect, type Hooks, hooksFor, NO_HOOKS } from "./hooks.ts";
import { ALLOW_ALL, type Policy, type PolicyRule } from "./policy.ts";
import { type PreparedCall, prepareCall } from "./prepared-call.ts";
import type { ArgumentsReading } from "./repair.ts";
import { ShellLines } from "./shell-lines.ts";
import { DEFAULT_TAINT, SessionTaint, type Taint, type TaintTools } from "./taint.ts";
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
   * Which tools' results are untrusted and which tools can send data out: what the session's
   * taint follows (`taint.ts`, the policy's `taint`). @default none: nothing taints a session
   */
  readonly taint?: TaintTools;
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
   * The conversation the call belongs to: its taint is kept under this name (`taint`,
   * `restoreTaint`), apart from the session's remembered rules. @default the call's session
   */
  readonly conversation?: string;
  /**
   * `false` for a call whose result no model reads (the person's own `plugboard call`): its
   * secrets are left in. @default every result is redacted
   */
  readonly redact?: false;
  /** Told each piece of output the call shows while it runs (`ToolContext.progress`), for a person watching. @default none */
  readonly onProgress?: (text: string) => void;
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
  readonly #taint: SessionTaint;
  readonly #redactor: Redactor;
  readonly #sent = new Map<string, FunctionTool>();

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
    this.#taint = new SessionTaint(options.taint);
    this.#redactor = new Redactor(options.secrets);
  }

  /**
   * The OpenAI `tools` array (deep copies), in registration order, as the model and MCP clients
   * are sent it: the app's secrets replaced by `[redacted: NAME]` in every description (a
   * server may put its own token in one), as in results.
   */
  schemas(): FunctionTool[] {
    return this.registry.names().map((name) => structuredClone(this.#schema(name)));
  }

  /**
   * Tool `name`'s schema as the model is sent it (see `schemas`), or undefined when no tool has
   * that name. Made once and shared, as the registry's own: copy it before changing it.
   */
  schema(name: string): Readonly<FunctionTool> | undefined {
    return this.registry.get(name) === undefined ? undefined : this.#schema(name);
  }

  /** A registered tool's schema with the secrets taken out, made once. */
  #schema(name: string): FunctionTool {
    let sent = this.#sent.get(name);
    if (sent === undefined) {
      const registered = this.registry.get(name);
      if (registered === undefined) throw new Error(`${name} is not registered`);
      sent = this.#redactor.redactValue(registered.schema).value;
      this.#sent.set(name, sent);
    }
    return sent;
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
   * A conversation's taint: the tool whose untrusted result entered it, or undefined. A plain
   * JSON value, kept with the conversation and given back to `restoreTaint` when it resumes.
   * `conversation` is the name its calls were executed with (`ExecuteOptions.conversation`).
   */
  taint(conversation: string = this.session): Taint | undefined {
    return this.#taint.of(conversation);
  }

  /**
   * The results of the calls executed so far for `conversation` entered it (the agent loop says
   * so after each step): an untrusted one taints it from now on. Until then, calls the model
   * made beside the untrusted one (before it could read it) are not judged by it.
   */
  resultsEntered(conversation: string = this.session): void {
    this.#taint.entered(conversation);
  }

  /** Sets a conversation's taint (a kept conversation resumed), or ends it (`undefined`: a new conversation). */
  restoreTaint(taint: Taint | undefined, conversation: string = this.session): void {
    this.#taint.restore(conversation, taint);
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
    const conversation = options.conversation ?? session;
    // The call's bash lines, read once whoever judges them: the policy, the offer, the remembered rules.
    const lines = new ShellLines();
    const ask = (asked: typeof request) => this.#asking.ask({ request: asked, session, approve: options.approve, lines, signal });
    const before = hooksFor(this.hooks.before, tool);
    let gate: GateOutcome | undefined;
    let result: CallResult | undefined;
    let after: readonly HookEffect[] = [];
    // Whether the tool ran and its result, from the outside world, entered the conversation.
    let untrusted = false;
    let granted: GivenGrant | undefined;
    try {
      // A placeholder written over a file would replace the secret it stands for: refused before anyone is asked.
      if (writesPlaceholder(registered, request.arguments)) {
        gate = { decision: "deny", arguments: request.arguments, hooks: [] };
        result = toolErrors.redactedPlaceholder(tool);
        return result;
      }
      const hooks = before.length === 0 ? undefined : { before, session, validate: registered.validate };
      const mode = this.policy.taint ?? DEFAULT_TAINT;
      const tainted = mode === "off" ? undefined : this.#taint.judging(conversation, tool);
      const taint = tainted === undefined || mode === "off" ? undefined : { tainted, mode };
      gate = await passGate({ policy: this.policy, workspace: this.workspace, request, lines, ask, signal, ...(taint ? { taint } : {}), ...(hooks ? { hooks } : {}) });
      // Arguments a before hook rewrote are read again.
      if (!gate.refusal && gate.arguments !== request.arguments && writesPlaceholder(registered, gate.arguments)) gate = { ...gate, decision: "deny", refusal: toolErrors.redactedPlaceholder(tool) };
      const redact = options.redact !== false;
      if (gate.refusal) {
        result = await this.#forTheModel(gate.refusal, undefined, redact);
        return result;
      }
      const results = this.#results && resultsFileFor(this.workspace.root, callId, this.#results);
      const ctx: ToolContext = { workspace: this.workspace, signal, callId, logger: this.#logger, ...(results ? { results } : {}), ...(options.onProgress ? { progress: options.onProgress } : {}) };
      let whole = await this.#run(registered, { ...gate.arguments }, ctx);
      // Refused by the sandbox for lack of a grant the person then gives: run again with it.
      const taintNow = mode === "off" ? undefined : this.#taint.of(conversation);
      granted = await askToGrant(registered, whole, { id: callId, arguments: gate.arguments, asking: this.#asking, approve: options.approve, signal, ...(taintNow ? { tainted: taintNow } : {}) });
      if (granted !== undefined) whole = await this.#run(registered, { ...gate.arguments }, ctx, granted);
      result = whole;
      // A plugin given `network` reads the outside world and can send data out, as if granted at start.
      const networked = granted !== undefined && "permission" in granted.grant && granted.grant.permission === "network";
      if (networked && granted?.scope !== "once") this.#taint.networked(this.#toolsOf(registered));
      untrusted = this.#taint.ran(conversation, tool, networked);
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
        ...(gate?.tainted === undefined ? {} : { tainted: gate.tainted }),
        ...(untrusted ? { untrusted } : {}),
        ...(hooks.length === 0 ? {} : { hooks }),
        ...(granted === undefined ? {} : { granted: { ...granted.grant, scope: granted.scope } }),
        durationMs: Math.round(performance.now() - arrived.at),
        isError: result?.isError ?? true,
        resultBytes: result === undefined ? 0 : Buffer.byteLength(result.content),
        ...(result?.redactions === undefined ? {} : { redactions: result.redactions }),
      });
    }
  }

  /** Keeps `secrets` from the model too from now on: values the app learnt during the session (an MCP server's refreshed OAuth token). */
  keepSecrets(secrets: readonly Secret[]): void {
    this.#redactor.add(secrets);
    // The schemas made so far were redacted without them.
    this.#sent.clear();
  }

  /** The tools of `registered`'s plugin (or source). */
  #toolsOf(registered: RegisteredTool): string[] {
    return this.registry.names().filter((name) => {
      const other = this.registry.get(name);
      return other !== undefined && other.owner === registered.owner && other.source === registered.source;
    });
  }

  /**
   * What the model gets of a result: its secrets replaced (redaction.ts) unless `redact` is off,
   * then the whole when it fits, else head and tail with the file that holds it (results.ts) —
   * the file holds the result as it was: it is the person's, in their workspace.
   */
  async #forTheModel(whole: ToolResult, results: ResultsFile | undefined, redact: boolean): Promise<CallResult> {
    const redacted: CallResult = redact ? this.redacted(whole) : whole;
    if (redacted.redactions === undefined) return results === undefined ? whole : capResult(whole, this.workspace.root, results);
    const capped = results === undefined ? redacted : await capResult(redacted, this.workspace.root, results, whole.content);
    return { ...capped, redactions: redacted.redactions };
  }

  /**
   * `result` with the app's secrets replaced, as every result `execute` returns: for a call
   * the app answers itself (the agent's `tool_search`), whose answer quotes descriptions and
   * the model's own words.
   */
  redacted(result: ToolResult): CallResult {
    const redactor = this.#redactor;
    const { text: content, count } = redactor.redact(result.content);
    const structured = result.structuredContent === undefined ? undefined : redactor.redactValue(result.structuredContent);
    const redactions = count + (structured?.count ?? 0);
    if (redactions === 0) return result;
    return { content, isError: result.isError, ...(structured === undefined ? {} : { structuredContent: structured.value }), redactions };
  }

  /** Runs the call: by its source (with the grant a person gave it after a refusal), or here for a bare definition. */
  async #run(registered: RegisteredTool, args: Record<string, unknown>, ctx: ToolContext, granted?: GivenGrant): Promise<ToolResult> {
    let result: ToolResult;
    try {
      const { source, tool } = registered;
      if (source === undefined) result = await runHandler(tool, args, ctx);
      else if (granted !== undefined && source.callGranted !== undefined) result = await source.callGranted(tool.name, args, ctx, granted.grant, granted.scope);
      else result = await source.call(tool.name, args, ctx);
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
