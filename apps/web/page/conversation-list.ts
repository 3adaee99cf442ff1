/** The kept conversations in the sidebar, the most recently updated first: each opens by its title and has its Delete. */
import { button, byId, el } from "./dom.ts";
import { listConversations } from "./store.ts";

const list = byId("conversations", HTMLUListElement);

/** What a row's buttons do. */
export interface ConversationListHandlers {
  readonly open: (id: string) => void;
  readonly remove: (id: string) => void;
}

/** Draws the list from what is kept; the conversation `current` is marked as the open one. */
export async function renderConversationList(current: string, handlers: ConversationListHandlers): Promise<void> {
  const kept = await listConversations();
  list.replaceChildren(
    ...kept.map((item) => {
      const row = el("li", "conversation");
      row.dataset.id = item.id;
      const open = button(item.title, "open");
      if (item.id === current) open.setAttribute("aria-current", "page");
      open.addEventListener("click", () => handlers.open(item.id));
      const remove = button("Delete", "delete", `Delete “${item.title}”`);
      remove.addEventListener("click", () => handlers.remove(item.id));
      row.append(open, remove);
      return row;
    }),
  );
}

/** Moves the focus to the row of conversation `id`; false when it cannot take it (not listed, or the list hidden behind "Chats"). */
export function focusListed(id: string): boolean {
  const row = [...list.children].find((item) => item instanceof HTMLElement && item.dataset.id === id);
  row?.querySelector<HTMLButtonElement>("button.open")?.focus();
  return row?.contains(document.activeElement) === true;
}
