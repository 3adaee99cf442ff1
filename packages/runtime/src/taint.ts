/**
 * The session's taint (the "lethal trifecta": private data, untrusted content, a way out).
 * A result of a tool that could read the outside world is untrusted; once one entered a
 * session's conversation, calls of tools that can send data out are asked about — config
 * allows, remembered "always" answers and `approveAll` included — or refused, for the rest of
 * the conversation. A result enters the conversation when whoever holds it (the agent loop,
 * after each step) says so: calls the model made in the same step as the untrusted one were
 * made before it could read it, and a caller with no conversation (`plugboard call`, a
 * served MCP client, which keeps its own) taints nothing. The app says which tools are which (`TaintTools`); the runtime keeps, per
 * conversation (a session, unless the app names its conversations apart), the tool that
 * tainted it, a value an app can read and restore with the conversation.
 */

/** What a tainted session does with a call that can send data out (the config's `policy.taint`). */
export type TaintMode = "ask" | "deny" | "off";

/** The modes, in the order the docs list them; `ask` is the default. */
export const TAINT_MODES = ["ask", "deny", "off"] as const satisfies readonly TaintMode[];

/** The mode when the policy sets none. */
export const DEFAULT_TAINT: TaintMode = "ask";

/** Which tools the taint follows, by name, as the app that granted them knows them. */
export interface TaintTools {
  /** Tools whose results are untrusted: they could read the outside world. */
  readonly untrusted: readonly string[];
  /** Tools that can send data out. */
  readonly sendOut: readonly string[];
}

/** A session's taint: the tool whose untrusted result entered the conversation first. Plain JSON. */
export interface Taint {
  readonly by: string;
}

/** The taint of each conversation of one runtime, by name. */
export class SessionTaint {
  readonly #untrusted: Set<string>;
  readonly #sendOut: Set<string>;
  readonly #conversations = new Map<string, Taint>();
  /** Untrusted results that ran but have not entered their conversation yet. */
  readonly #pending = new Map<string, Taint>();

  constructor(tools: TaintTools | undefined) {
    this.#untrusted = new Set(tools?.untrusted);
    this.#sendOut = new Set(tools?.sendOut);
  }

  /** The taint a call of `tool` in `conversation` is judged under: present when it is tainted and the tool can send data out. */
  judging(conversation: string, tool: string): Taint | undefined {
    return this.#sendOut.has(tool) ? this.#conversations.get(conversation) : undefined;
  }

  /**
   * `tools` were granted `network` for the rest of the session (a refusal that became a
   * grant): from now on their results are untrusted and they can send data out.
   */
  networked(tools: readonly string[]): void {
    for (const tool of tools) {
      this.#untrusted.add(tool);
      this.#sendOut.add(tool);
    }
  }

  /**
   * Records that `tool` ran for `conversation`; whether its result is untrusted (it taints the
   * conversation once it enters it). `networked`: this call ran with `network` granted for it alone.
   */
  ran(conversation: string, tool: string, networked = false): boolean {
    if (!networked && !this.#untrusted.has(tool)) return false;
    if (!this.#pending.has(conversation)) this.#pending.set(conversation, { by: tool });
    return true;
  }

  /** The results that ran for `conversation` entered it: the first untrusted one taints it, if nothing did before. */
  entered(conversation: string): void {
    const pending = this.#pending.get(conversation);
    if (pending === undefined) return;
    this.#pending.delete(conversation);
    if (!this.#conversations.has(conversation)) this.#conversations.set(conversation, pending);
  }

  of(conversation: string): Taint | undefined {
    return this.#conversations.get(conversation);
  }

  /** Sets (a resumed conversation) or ends (a new one: `undefined`) `conversation`'s taint. */
  restore(conversation: string, taint: Taint | undefined): void {
    this.#pending.delete(conversation);
    if (taint === undefined) this.#conversations.delete(conversation);
    else this.#conversations.set(conversation, { by: taint.by });
  }
}
