/**
 * Conversations kept in this browser's IndexedDB (idb-keyval): nothing is stored on the
 * server. One record per conversation, and the id of the one last open.
 */
import { createStore, del, get, set, values } from "idb-keyval";
import type { Conversation } from "./conversation.ts";

const conversations = createStore("plugboard-chat", "conversations");
const CURRENT = "plugboard-current-conversation";

/** Every kept conversation, the most recently updated first. */
export async function listConversations(): Promise<Conversation[]> {
  const all = await values<Conversation>(conversations);
  return all.sort((a, b) => b.updatedAt - a.updatedAt);
}

/** Keeps `conversation` (a new record or a newer version). */
export function saveConversation(conversation: Conversation): Promise<void> {
  return set(conversation.id, conversation, conversations);
}

/** Forgets a conversation. */
export function deleteConversation(id: string): Promise<void> {
  return del(id, conversations);
}

/** The conversation with `id`, if kept. */
export function loadConversation(id: string): Promise<Conversation | undefined> {
  return get<Conversation>(id, conversations);
}

/** The id of the conversation last open in this browser. */
export function currentConversationId(): string | null {
  return localStorage.getItem(CURRENT);
}

/** Remembers which conversation is open. */
export function rememberCurrent(id: string): void {
  localStorage.setItem(CURRENT, id);
}
