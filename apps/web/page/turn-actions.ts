/**
 * The buttons under the last answer, as chat apps offer them: Edit the last question (its text
 * goes back into the message box) and, on its answer, Retry after an error or a stop, or
 * Regenerate after an answer. Both take the turn out of the conversation first. They live in
 * one bar below the conversation, so earlier answers' nodes are never touched.
 */
import type { AssistantEntry } from "./conversation.ts";
import { button, byId } from "./dom.ts";

const bar = byId("turn-actions", HTMLDivElement);

/** What the buttons do. */
export interface TurnActionHandlers {
  readonly edit: () => void;
  readonly retry: () => void;
}

/** Shows the buttons for `answer`, the conversation's last entry; none while it streams or when there is none. */
export function showTurnActions(answer: AssistantEntry | undefined, handlers: TurnActionHandlers): void {
  if (answer === undefined || answer.status === "streaming") {
    bar.replaceChildren();
    bar.hidden = true;
    return;
  }
  const failed = answer.status === "error" || answer.status === "stopped" || answer.status === "empty";
  const edit = button("Edit question", "edit", "Edit your last question");
  const retry = button(failed ? "Retry" : "Regenerate", "retry", failed ? "Retry the last question" : "Regenerate the last answer");
  edit.addEventListener("click", handlers.edit);
  retry.addEventListener("click", handlers.retry);
  bar.replaceChildren(retry, edit);
  bar.hidden = false;
}
