/**
 * Undo for a deleted conversation, as chat apps offer it: the conversation is forgotten at
 * once, and an Undo above the message box brings it back until the next action (another
 * delete, a message, opening or starting a conversation). The focus moves to Undo, so a
 * keyboard can take the delete back with Enter.
 */
import type { Conversation } from "./conversation.ts";
import { byId } from "./dom.ts";

const bar = byId("undo-bar", HTMLDivElement);
const said = byId("undo-text", HTMLParagraphElement);
const undo = byId("undo", HTMLButtonElement);
let restore: (() => void) | undefined;

undo.addEventListener("click", () => {
  const restoring = restore;
  dropUndo();
  restoring?.();
});

/** Offers Undo for `conversation`, just deleted; `onUndo` brings it back. */
export function offerUndo(conversation: Conversation, onUndo: (conversation: Conversation) => void): void {
  restore = () => onUndo(conversation);
  said.textContent = `Deleted “${conversation.title}”.`;
  undo.setAttribute("aria-label", `Undo deleting “${conversation.title}”`);
  bar.hidden = false;
  undo.focus();
}

/** The next action: the conversation deleted last stays deleted. */
export function dropUndo(): void {
  restore = undefined;
  bar.hidden = true;
}
