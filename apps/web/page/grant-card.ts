/**
 * A call the sandbox refused, as a card in the answer: which plugin, the grant that would have
 * allowed it (as its config entry would say it), and Once / This session / Save to config /
 * Keep refused. Once answered, the card says what was chosen; stopped before, that it was not.
 */
import type { GrantRequestEvent, GrantScope } from "./api.ts";
import { cardAnswer } from "./card-answer.ts";
import { button, el } from "./dom.ts";

/** Sends the answer. */
export type GrantHandler = (scope: GrantScope) => Promise<void>;

const SAID: Record<NonNullable<GrantScope> | "refused", string> = {
  once: "Granted for this call: it runs again.",
  session: "Granted until the server stops: it runs again.",
  saved: "Granted and saved to the config: it runs again.",
  refused: "Kept refused.",
};

/** Builds the card; returns it, the element to focus, and what marks it when the turn ends first. */
export function grantCard(request: GrantRequestEvent, onAnswer: GrantHandler): { card: HTMLElement; focus: HTMLElement; stop: () => void } {
  const card = el("div", "approval grant");
  card.setAttribute("role", "group");
  card.setAttribute("aria-label", `Grant ${request.owner} what it lacked?`);
  const once = button("Once", "approve", `Grant once and run ${request.tool} again`);
  const session = button("This session", "approve", `Grant until the server stops and run ${request.tool} again`);
  const save = request.save === undefined ? undefined : button("Save to config", "approve", `Grant, save to ${request.save} and run ${request.tool} again`);
  const refuse = button("Keep refused", "deny", `Keep ${request.tool} refused`);
  const all = [once, session, ...(save ? [save] : []), refuse];
  const { problem, answer: send, stop } = cardAnswer(card, all, onAnswer, "could not send the answer: ");
  const answer = (scope: GrantScope) => send(scope, SAID[scope ?? "refused"]);
  once.addEventListener("click", () => answer("once"));
  session.addEventListener("click", () => answer("session"));
  save?.addEventListener("click", () => answer("saved"));
  refuse.addEventListener("click", () => answer(undefined));
  const buttons = el("div", "approval-buttons");
  buttons.append(...all);
  card.append(
    el("p", "approval-question", `The sandbox refused ${request.tool}. Run it again with this grant to ${request.owner}?`),
    el("code", "grant-text", request.grant),
    buttons,
    problem,
  );
  return { card, focus: once, stop: () => stop(`Stopped before an answer: ${request.tool} stays refused.`) };
}
