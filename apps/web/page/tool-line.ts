/**
 * One tool call as one line: the tool, its main argument, its outcome and duration, and
 * Plugboard's own notice when the result ends with one (a sandbox refusal, or a git repository
 * or editor folder the call left behind) and how many secrets were redacted before the model; opened,
 * its full arguments and result (a diff for edit_file; a long result collapsed behind
 * "Show all"). The same component is the approval card when a call waits for the person,
 * with the change a write would make. A call its turn ended without (Stop, a failure) says
 * `stopped`.
 */
import type { FileChange } from "@plugboard/runtime/change-rows";
import type { ToolCallRecord } from "./conversation.ts";
import { changeView, diffView } from "./diff-view.ts";
import { button, el } from "./dom.ts";

/** Results longer than this many lines (or characters) show their start and a "Show all". */
const COLLAPSED_LINES = 12;
const COLLAPSED_CHARS = 1500;

/** The person's answer to an approval card. */
export type ApprovalHandler = (decision: "allow" | "deny", reason: string, always: boolean) => Promise<void>;

const POLICY_DENIAL = "Error: Denied by policy: ";

/** A tool call's line. */
export class ToolLine {
  readonly element = el("details", "tool");
  readonly #summary = el("summary");
  readonly #outcome = el("span", "tool-outcome running", "running…");
  readonly #body = el("div", "tool-body");
  readonly #result = el("div", "tool-result");
  #approval: HTMLElement | undefined;

  constructor(readonly call: ToolCallRecord) {
    this.element.dataset.callId = call.id;
    const args = parseArguments(call.arguments);
    const main = mainArgument(call.name, args);
    this.#summary.append(el("span", "tool-name", call.name));
    if (main) this.#summary.append(el("code", "tool-arg", main));
    this.#summary.append(this.#outcome);
    let shown = args;
    if (call.name === "edit_file" && typeof args.old_text === "string" && typeof args.new_text === "string") {
      this.#body.append(el("h4", "", "Diff"), diffView(args.old_text, args.new_text));
      // The diff is the texts: the arguments below it say only the rest (the path, replace_all).
      const { old_text: _old, new_text: _new, ...rest } = args;
      shown = rest;
    }
    this.#body.append(el("h4", "", "Arguments"), el("pre", "tool-arguments", JSON.stringify(shown, null, 2)), this.#result);
    this.element.append(this.#summary, this.#body);
    if (call.result !== undefined) this.#showResult();
  }

  /** The turn ended before the call's result came: a card waiting for the person goes, and the line says so. */
  stop(): void {
    if (this.call.result !== undefined) return;
    this.call.outcome = "stopped";
    this.#approval?.remove();
    this.#approval = undefined;
    this.element.classList.remove("awaiting");
    this.element.classList.add("stopped");
    this.#outcome.className = "tool-outcome stopped";
    this.#outcome.textContent = "stopped";
  }

  /** The result arrived; `redactions` secrets were taken out of it before the model got it. */
  finish(result: string, outcome: "ok" | "error" | "denied", durationMs: number, redactions?: number): void {
    Object.assign(this.call, { result, outcome, durationMs, ...(redactions === undefined ? {} : { redactions }) });
    this.#approval?.remove();
    this.element.classList.remove("awaiting");
    this.#showResult();
  }

  /** The change the call would make, as the runtime worked it out for its approval (a write's diff, or a new file's head); an edit shows its own. */
  showChange(change: FileChange): void {
    if (this.#body.querySelector(".diff")) return;
    const title = change.kind === "create" ? "New file" : "Diff";
    this.#body.prepend(el("h4", "", title), changeView(change.rows));
  }

  /**
   * The call waits for the person: Approve / Deny (with an optional reason) on the line, and
   * for a bash command "Always for commands like PATTERN" (`like`) until the server stops;
   * `why` says why the card appears though the config allows the call (the conversation's taint).
   */
  askApproval(like: string | undefined, onAnswer: ApprovalHandler, why?: string): HTMLButtonElement {
    this.element.classList.add("awaiting");
    this.element.open = true;
    this.#outcome.className = "tool-outcome awaiting";
    this.#outcome.textContent = "waiting for approval";
    const card = el("div", "approval");
    card.setAttribute("role", "group");
    card.setAttribute("aria-label", `Approve ${this.call.name}?`);
    const reasonId = `reason-${this.call.id}`;
    const label = el("label", "", "Reason (optional, sent with a denial)");
    label.htmlFor = reasonId;
    const reason = el("input");
    reason.id = reasonId;
    reason.type = "text";
    const approve = button("Approve", "approve", `Approve ${this.call.name}`);
    const deny = button("Deny", "deny", `Deny ${this.call.name}`);
    const always = like === undefined ? undefined : button(`Always for commands like ${like}`, "always", `Always allow commands like ${like}`);
    const answer = (decision: "allow" | "deny", remember = false) => {
      approve.disabled = true;
      deny.disabled = true;
      if (always) always.disabled = true;
      this.#outcome.textContent = decision === "allow" ? "approved, running…" : "denied";
      onAnswer(decision, reason.value.trim(), remember).catch((error: unknown) => {
        // Stopped meanwhile: the card is gone, and nothing waits for an answer any more.
        if (this.call.outcome === "stopped") return;
        approve.disabled = false;
        deny.disabled = false;
        if (always) always.disabled = false;
        this.#outcome.textContent = `could not send the answer: ${String(error)}`;
      });
    };
    approve.addEventListener("click", () => answer("allow"));
    deny.addEventListener("click", () => answer("deny"));
    always?.addEventListener("click", () => answer("allow", true));
    reason.addEventListener("keydown", (event) => {
      if (event.key === "Enter") {
        event.preventDefault();
        answer("deny");
      }
    });
    const buttons = el("div", "approval-buttons");
    buttons.append(approve, deny);
    card.append(el("p", "approval-question", `The model wants to run ${this.call.name}. Allow it?`), buttons, label, reason);
    if (why) buttons.before(el("p", "approval-why", why));
    // After the reason, so Tab from Deny still reaches the reason first.
    if (always) card.append(el("p", "approval-always", "Until the server stops: "), always);
    this.element.after(card);
    this.#approval = card;
    return approve;
  }

  #showResult(): void {
    const { result = "", durationMs } = this.call;
    // Plugboard's own last line: a sandbox refusal explained, or what the call left behind that your tools would run.
    const notice = /\n(plugboard: [^\n]*)$/.exec(result)?.[1];
    const output = notice === undefined ? result : result.slice(0, -notice.length - 1);
    // bash ends its result with the exit line; an earlier line of output may look the same.
    const exit = this.call.name === "bash" ? /(?:^|\n)exit code: (-?\d+)$/.exec(output)?.[1] : undefined;
    // A command that ran but failed is a warning, not a green "ok".
    const outcome = this.call.outcome === "ok" && exit !== undefined && exit !== "0" ? "warning" : (this.call.outcome ?? "ok");
    this.element.classList.add(outcome);
    this.#outcome.className = `tool-outcome ${outcome}`;
    const facts = [outcome, ...(exit === undefined ? [] : [`exit ${exit}`]), ...(durationMs === undefined ? [] : [formatDuration(durationMs)])];
    this.#outcome.textContent = facts.join(" · ");
    // The policy's reason for a denial, on the line itself: the rule that refused it.
    if (outcome === "denied" && result.startsWith(POLICY_DENIAL) && !this.#summary.querySelector(".tool-reason")) {
      this.#summary.append(el("span", "tool-reason", `by the policy's rule ${result.slice(POLICY_DENIAL.length)}`));
    }
    // On the line itself, so it is read without opening the call.
    if (notice !== undefined && !this.#summary.querySelector(".tool-notice")) this.#summary.append(el("span", "tool-notice", notice.slice("plugboard: ".length)));
    const { redactions } = this.call;
    if (redactions !== undefined && !this.#summary.querySelector(".tool-redacted")) {
      this.#summary.append(el("span", "tool-redacted", `${redactions} ${redactions === 1 ? "secret" : "secrets"} redacted before the model`));
    }
    this.#result.replaceChildren(el("h4", "", "Result"), ...collapsible(result));
  }
}

/** The argument that says what a call does: the command, the path, the pattern. */
export function mainArgument(tool: string, args: Record<string, unknown>): string {
  const preferred = ["command", "path", "pattern", "url", "query"];
  const key = preferred.find((name) => typeof args[name] === "string") ?? Object.keys(args).find((name) => typeof args[name] === "string");
  if (key === undefined) return "";
  const value = String(args[key]);
  if (tool === "glob" && typeof args.path === "string" && key === "pattern") return `${value} in ${args.path}`;
  if (tool === "write_file" && typeof args.content === "string") return `${value} (${new TextEncoder().encode(args.content).byteLength} bytes)`;
  return value;
}

function collapsible(result: string): HTMLElement[] {
  const lines = result.split("\n");
  const long = lines.length > COLLAPSED_LINES || result.length > COLLAPSED_CHARS;
  if (!long) return [el("pre", "tool-output", result)];
  const head = lines.slice(0, COLLAPSED_LINES).join("\n").slice(0, COLLAPSED_CHARS);
  const pre = el("pre", "tool-output collapsed", `${head}\n…`);
  const more = button(`Show all (${lines.length} lines)`, "show-all");
  more.addEventListener("click", () => {
    pre.textContent = result;
    pre.classList.remove("collapsed");
    more.remove();
    pre.focus();
  });
  pre.tabIndex = -1;
  return [pre, more];
}

function parseArguments(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : { value };
  } catch {
    return { arguments: text };
  }
}

function formatDuration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}
