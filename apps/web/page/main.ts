/** The chat page: wires the conversation, the composer, the kept conversations and the theme. */
import { ApiError, answerApproval, answerElicitation, answerGrant, type ChatEvent, streamChat } from "./api.ts";
import { AnswerView, questionItem } from "./answer-view.ts";
import { type AssistantEntry, type Conversation, historyOf, newConversation, outcomeOf, titleOf } from "./conversation.ts";
import { focusListed, renderConversationList } from "./conversation-list.ts";
import { byId } from "./dom.ts";
import { elicitationCard } from "./elicitation-card.ts";
import { grantCard } from "./grant-card.ts";
import { showEmptyState, showInfo } from "./empty-state.ts";
import { copyCode } from "./markdown.ts";
import { currentConversationId, deleteConversation, loadConversation, rememberCurrent, saveConversation } from "./store.ts";
import { setUpTheme } from "./theme.ts";
import { TokenField } from "./token-field.ts";
import { mainArgument } from "./tool-line.ts";
import { showTurnActions } from "./turn-actions.ts";
import { dropUndo, offerUndo } from "./undo-delete.ts";

const log = byId("log", HTMLOListElement);
const announcer = byId("announcer", HTMLDivElement);
const form = byId("composer", HTMLFormElement);
const prompt = byId("prompt", HTMLTextAreaElement);
const sendButton = byId("send", HTMLButtonElement);
const stopButton = byId("stop", HTMLButtonElement);
const sidebar = byId("sidebar", HTMLElement);
const chatsToggle = byId("chats-toggle", HTMLButtonElement);

let conversation: Conversation = newConversation();
let running: { controller: AbortController; done: Promise<void> } | undefined;

const token = new TokenField({ onInfo: (info) => showInfo(info, ask), onTaken: () => prompt.focus() });

function announce(text: string): void {
  announcer.textContent = text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

function scrollToEnd(): void {
  window.scrollTo({ top: document.body.scrollHeight });
}

function setBusy(busy: boolean): void {
  sendButton.disabled = busy;
  stopButton.disabled = !busy;
  form.setAttribute("aria-busy", String(busy));
}

let unsaved = false;

/** Keeps the open conversation; a browser that refuses storage (quota, private mode) is told about once. */
async function save(): Promise<void> {
  if (conversation.entries.length === 0) return;
  conversation.updatedAt = Date.now();
  try {
    await saveConversation(conversation);
    rememberCurrent(conversation.id);
    await renderList();
  } catch (error) {
    if (unsaved) return;
    unsaved = true;
    announce(`This browser did not keep the conversation: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function renderConversation(): void {
  log.replaceChildren(
    ...conversation.entries.map((entry) => (entry.role === "user" ? questionItem(entry) : new AnswerView(entry).item)),
  );
  showEmptyState(conversation.entries.length === 0);
  renderActions();
}

function renderActions(): void {
  const last = conversation.entries.at(-1);
  showTurnActions(last?.role === "assistant" && !running ? last : undefined, { edit: editLast, retry: retryLast });
}

/** Takes the last question and its answer out of the conversation (and the kept copy); returns the question. */
function takeBackLast(): string | undefined {
  const question = conversation.entries.at(-2);
  if (running || question?.role !== "user") return undefined;
  conversation.entries.splice(-2);
  renderConversation();
  // An emptied conversation is not kept (save keeps only conversations with entries).
  if (conversation.entries.length === 0) void deleteConversation(conversation.id).then(renderList);
  else void save();
  return question.content;
}

function editLast(): void {
  const question = takeBackLast();
  if (question === undefined) return;
  prompt.value = question;
  prompt.focus();
  announce("Your last question is back in the message box: change it and send it again.");
}

function retryLast(): void {
  // Asked again only once the server takes the token: the turn stays until then.
  if (token.refused) {
    void tokenTaken().then((taken) => taken && retryLast());
    return;
  }
  const question = takeBackLast();
  if (question !== undefined) ask(question);
}

function renderList(): Promise<void> {
  return renderConversationList(conversation.id, { open: (id) => void switchTo(id), remove: (id) => void remove_(id) });
}

async function stopRunning(): Promise<void> {
  if (!running) return;
  running.controller.abort();
  await running.done;
}

async function switchTo(id: string | undefined): Promise<void> {
  dropUndo();
  await stopRunning();
  const kept = id === undefined ? undefined : await loadConversation(id);
  conversation = kept ?? newConversation();
  // A turn cut off by a reload was stopped.
  for (const entry of conversation.entries) if (entry.role === "assistant" && entry.status === "streaming") entry.status = "stopped";
  if (kept) rememberCurrent(kept.id);
  renderConversation();
  await renderList();
  setSidebar(false);
  // As a chat app opens one: at its latest answer, which on a phone is far below the fold.
  scrollToEnd();
  focusComposer();
}

/** The message box, or the token field while the server refuses the token. */
function focusComposer(): void {
  if (token.refused) token.focus();
  else prompt.focus();
}

async function remove_(id: string): Promise<void> {
  const open = id === conversation.id;
  if (open) await stopRunning();
  const deleted = open ? conversation : await loadConversation(id);
  await deleteConversation(id);
  if (open) await switchTo(undefined);
  else await renderList();
  if (deleted === undefined) return;
  offerUndo(deleted, (kept) => void restore(kept, open));
  announce(`Deleted “${deleted.title}”. Undo brings it back.`);
}

/** Undo: keeps the deleted conversation again, reopened if it was open, else its row in the list has the focus. */
async function restore(kept: Conversation, open: boolean): Promise<void> {
  await saveConversation(kept);
  if (open) await switchTo(kept.id);
  else {
    await renderList();
    if (!focusListed(kept.id)) prompt.focus();
  }
  announce(`Restored “${kept.title}”.`);
}

function send(): void {
  const text = prompt.value.trim();
  if (!text || running) return;
  if (token.refused) {
    void tokenTaken().then((taken) => taken && send());
    return;
  }
  prompt.value = "";
  ask(text);
}

function ask(text: string): void {
  if (running) return;
  if (token.refused) {
    void tokenTaken().then((taken) => taken && ask(text));
    return;
  }
  dropUndo();
  const question = { role: "user" as const, content: text };
  const history = [...historyOf(conversation), question];
  if (conversation.entries.length === 0) conversation.title = titleOf(text);
  const entry: AssistantEntry = { role: "assistant", parts: [], reply: "", status: "streaming" };
  conversation.entries.push(question, entry);
  const view = new AnswerView(entry);
  log.append(questionItem(question), view.item);
  showEmptyState(conversation.entries.length === 0);
  renderActions();
  scrollToEnd();
  const controller = new AbortController();
  setBusy(true);
  const done = runTurn(history, view, controller).finally(() => {
    running = undefined;
    setBusy(false);
    renderActions();
    void save();
    focusComposer();
    scrollToEnd();
  });
  running = { controller, done };
  void save();
}

/** Whether the server takes the token (a new one typed is tried first); else the field says why and takes the focus, and the question waits. */
async function tokenTaken(): Promise<boolean> {
  if (await token.check(true)) return true;
  token.refusedByServer();
  announce("Enter the access token first: this server refuses messages without it.");
  return false;
}

async function runTurn(history: { role: "user" | "assistant"; content: string }[], view: AnswerView, controller: AbortController): Promise<void> {
  const started = new Map<string, number>();
  let finished = false;
  const onEvent = (event: ChatEvent): void => {
    if (event.type === "text") view.text(event.text);
    if (event.type === "tool_call") {
      started.set(event.id, performance.now());
      view.toolCall({ id: event.id, name: event.name, arguments: event.arguments });
    }
    if (event.type === "approval") {
      const line = view.tool(event.id) ?? view.toolCall({ id: event.id, name: event.tool, arguments: JSON.stringify(event.arguments) });
      if (event.change) line.showChange(event.change);
      const why = event.tainted && `Asked because untrusted content from ${event.tainted.by} entered the conversation, and ${event.tool} can send data out.`;
      const approve = line.askApproval(event.like, async (decision, reason, always) => {
        await answerApproval(event.id, decision, reason, token.value, always);
        started.set(event.id, performance.now());
        // To Stop, unless a card that came while the answer was on its way took the focus.
        const active = document.activeElement;
        if (active === null || active === document.body || line.element.contains(active)) stopButton.focus();
      }, why);
      approve.focus();
      announce(`Approval needed: ${event.tool} ${mainArgument(event.tool, event.arguments)}. Approve or Deny.`);
    }
    if (event.type === "grant") {
      // The refused call's line is on the page already (its call ran): the card goes under it.
      const { card, focus, stop } = grantCard(event, (scope) => answerGrant(event.id, scope, token.value));
      view.card(card, stop, view.tool(event.id)?.element);
      focus.focus();
      announce(`The sandbox refused ${event.tool}. Grant ${event.grant} to ${event.owner} once, for this session, or keep it refused.`);
    }
    if (event.type === "elicitation") {
      const { card, focus, stop } = elicitationCard(event, (answer) => answerElicitation(event.id, answer, token.value));
      view.card(card, stop);
      focus.focus();
      announce(`MCP server ${event.server} asks: ${event.message}. Fill in the form, then Send or Decline.`);
    }
    if (event.type === "tool_result") {
      const line = view.tool(event.id);
      line?.finish(event.content, outcomeOf(event.content, event.isError), performance.now() - (started.get(event.id) ?? performance.now()), event.redactions);
      void save();
    }
    if (event.type === "done") {
      finished = true;
      if (event.taint) conversation.taint = event.taint;
      view.finish(event.status, event.reply, event.cutOff === true);
      announce(`Assistant: ${view.renderedText() || "(no text)"}`);
    }
    if (event.type === "error") throw new Error(event.error);
    scrollToEnd();
  };
  try {
    await streamChat(history, token.value, controller.signal, onEvent, conversation.taint);
    if (!finished) throw new Error("The answer ended before it was complete.");
  } catch (error) {
    if (finished) return;
    if (controller.signal.aborted) {
      view.finish("stopped", "");
      view.item.classList.add("stopped");
      view.note("Stopped. This question is not part of the conversation any more.", false);
      announce("Stopped.");
      return;
    }
    view.finish("error", "");
    view.note(`Error: ${error instanceof Error ? error.message : String(error)}`, true);
    if (error instanceof ApiError && error.status === 401) token.refusedByServer();
  }
}

function setSidebar(open: boolean): void {
  sidebar.classList.toggle("open", open);
  chatsToggle.setAttribute("aria-expanded", String(open));
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  send();
});
prompt.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    send();
  }
});
stopButton.addEventListener("click", () => running?.controller.abort());
document.addEventListener("keydown", (event) => {
  if (event.key !== "Escape") return;
  if (running) {
    event.preventDefault();
    running.controller.abort();
    return;
  }
  if (sidebar.classList.contains("open")) {
    setSidebar(false);
    chatsToggle.focus();
  }
});
log.addEventListener("click", (event) => {
  const copy = event.target instanceof Element ? event.target.closest("button.copy") : null;
  if (copy instanceof HTMLButtonElement) void copyCode(copy);
});
byId("new-chat", HTMLButtonElement).addEventListener("click", () => void switchTo(undefined));
chatsToggle.addEventListener("click", () => setSidebar(!sidebar.classList.contains("open")));
setUpTheme(byId("theme", HTMLButtonElement));
// The kept conversation first, then the server's info, which says whether a token is needed (it then takes the focus).
void switchTo(currentConversationId() ?? undefined).then(() => token.check(true));
