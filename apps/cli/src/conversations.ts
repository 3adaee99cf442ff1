/**
 * Kept conversations: one JSON-lines file per conversation under
 * `$XDG_STATE_HOME/plugboard/sessions/` (else `~/.local/state/…`), the folder 0700 and the
 * files 0600. The first line says whose it is (id, when, config, workspace, model); then one
 * line per message as it enters the conversation (the system message is not kept: a resumed
 * conversation gets the config's own), and the taint once the conversation is tainted. A turn
 * the endpoint failed is taken back by rewriting the file; everything else is appended, so a
 * crash loses at most the line being written.
 */
import { appendFileSync, chmodSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PlugboardError } from "@plugboard/bootstrap";
import { visible } from "@plugboard/core/internal";
import type { Taint } from "@plugboard/runtime";
import { stateFolder } from "@plugboard/sandbox/granted-paths";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";

/** What a conversation belongs to: it is listed and continued only under the same config and workspace. */
export interface ConversationOwner {
  readonly config: string;
  readonly workspace: string;
}

/** The first line of a kept conversation's file. */
export interface ConversationHeader extends ConversationOwner {
  readonly plugboard: "conversation";
  readonly version: 1;
  readonly id: string;
  /** ISO time of its first message. */
  readonly created: string;
  /** The folder `plugboard` ran in. */
  readonly cwd: string;
  readonly model: string;
}

/** A kept conversation as read back. */
export interface KeptConversation {
  readonly header: ConversationHeader;
  readonly file: string;
  /** Its messages after the system message. */
  readonly messages: ChatCompletionMessageParam[];
  readonly taint?: Taint;
  /** When it last changed. */
  readonly modified: Date;
  /** The file holds more than `messages` (a line cut off mid-write, a step without its results): written anew at the next change. */
  readonly trimmed: boolean;
}

/** `$XDG_STATE_HOME/plugboard/sessions`, else `~/.local/state/plugboard/sessions`; undefined without either. */
export function sessionsFolder(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const state = stateFolder(env);
  return state === undefined ? undefined : join(state, "sessions");
}

/** A new conversation's id: the time in base 36 and four random characters, so ids sort by age and rarely look like a list number. */
export function newConversationId(now = Date.now()): string {
  return `${now.toString(36)}${crypto.randomUUID().replaceAll("-", "").slice(0, 4)}`;
}

/** Writes one conversation's file as its messages and taint change; the file is created with its first message. */
export class ConversationFile {
  readonly #header: ConversationHeader;
  readonly #file: string;
  /** Messages (after the system message) already in the file. */
  #saved: number;
  #taint: string | undefined;
  #created: boolean;
  /** Set once writing failed: the session goes on, unkept, after saying so once. */
  #failed = false;

  constructor(folder: string, header: ConversationHeader, kept?: { readonly messages: number; readonly taint?: Taint; readonly trimmed?: boolean }) {
    this.#header = header;
    this.#file = join(folder, `${header.id}.jsonl`);
    // A file holding more than what was read from it is written anew (sync): appending would keep the rest.
    this.#saved = kept?.trimmed ? Number.POSITIVE_INFINITY : (kept?.messages ?? 0);
    this.#taint = kept?.taint?.by;
    this.#created = kept !== undefined;
  }

  get id(): string {
    return this.#header.id;
  }

  /** Whether the file holds the conversation: it has a message, and writing never failed. */
  get written(): boolean {
    return this.#created && !this.#failed;
  }

  /** `sync`, saying through `warn` (once) when the file cannot be written: the conversation goes on unkept. */
  keep(messages: readonly ChatCompletionMessageParam[], taint: Taint | undefined, warn: (message: string) => void): void {
    if (this.#failed) return;
    try {
      this.sync(messages, taint);
    } catch (error) {
      if (!(error instanceof Error) || !("code" in error)) throw error;
      this.#failed = true;
      warn(`this conversation is not kept: ${this.#file} cannot be written (${String(error.code)})`);
    }
  }

  /** Brings the file up to `messages` (system message first) and `taint`. Throws the file system's error. */
  sync(messages: readonly ChatCompletionMessageParam[], taint: Taint | undefined): void {
    const kept = messages.slice(1);
    if (kept.length === 0 && !this.#created) return;
    if (!this.#created) {
      const folder = join(this.#file, "..");
      mkdirSync(folder, { recursive: true, mode: 0o700 });
      chmodSync(folder, 0o700);
      writeFileSync(this.#file, line(this.#header), { mode: 0o600, flag: "wx" });
      this.#created = true;
    }
    if (kept.length < this.#saved) {
      // A turn taken back (the endpoint failed), or what a crash left read past: the file is written again without it.
      const text = [this.#header, ...kept.map((message) => ({ message })), ...(taint ? [{ taint }] : [])].map(line).join("");
      writeFileSync(`${this.#file}.new`, text, { mode: 0o600 });
      renameSync(`${this.#file}.new`, this.#file);
      this.#saved = kept.length;
      this.#taint = taint?.by;
      return;
    }
    const added = kept.slice(this.#saved).map((message) => line({ message }));
    if (taint !== undefined && taint.by !== this.#taint) added.push(line({ taint }));
    if (added.length > 0) appendFileSync(this.#file, added.join(""), { mode: 0o600 });
    this.#saved = kept.length;
    this.#taint = taint?.by;
  }
}

function line(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}

/** The conversation kept in `file`; a file that is not one is a `PlugboardError` naming it. */
export function readConversation(file: string): KeptConversation {
  let text: string;
  let modified: Date;
  try {
    text = readFileSync(file, "utf8");
    modified = statSync(file).mtime;
  } catch (error) {
    throw unreadable(file, (error as NodeJS.ErrnoException).code ?? String(error));
  }
  const lines = text.split("\n");
  // The last line of a file cut off mid-write (a crash) is left out; a bad line elsewhere is not.
  const cut = !text.endsWith("\n");
  if (cut) lines.pop();
  const records = lines.filter((entry) => entry !== "").map((entry, index) => parseLine(file, entry, index + 1));
  const [header, ...rest] = records;
  if (!isHeader(header)) throw unreadable(file, "its first line is not a Plugboard conversation's");
  const messages: ChatCompletionMessageParam[] = [];
  let taint: Taint | undefined;
  rest.forEach((record, index) => {
    if (isMessage(record.message)) messages.push(record.message);
    else if (isTaint(record.taint)) taint ??= { by: record.taint.by };
    else throw unreadable(file, `line ${index + 2} is neither a message nor a taint`);
  });
  const complete = completeSteps(messages);
  return { header, file, messages: complete, ...(taint ? { taint } : {}), modified, trimmed: cut || complete.length < messages.length };
}

/** The conversations kept for `owner`, the most recently changed first; files that are not conversations are counted, not read. */
export function listConversations(folder: string | undefined, owner: ConversationOwner): { conversations: KeptConversation[]; unreadable: number } {
  if (folder === undefined) return { conversations: [], unreadable: 0 };
  let names: string[];
  try {
    names = readdirSync(folder).filter((name) => name.endsWith(".jsonl"));
  } catch {
    return { conversations: [], unreadable: 0 };
  }
  const conversations: KeptConversation[] = [];
  let unreadable = 0;
  for (const name of names) {
    try {
      const kept = readConversation(join(folder, name));
      if (kept.header.config === owner.config && kept.header.workspace === owner.workspace) conversations.push(kept);
    } catch (error) {
      if (!(error instanceof PlugboardError)) throw error;
      unreadable++;
    }
  }
  conversations.sort((a, b) => b.modified.getTime() - a.modified.getTime() || b.header.id.localeCompare(a.header.id));
  return { conversations, unreadable };
}

/**
 * The conversation `choice` names among `listed` (a number from the list, 1 the most recent,
 * else an id or the start of one), or a `PlugboardError` saying what to type.
 */
export function chooseConversation(listed: readonly KeptConversation[], folder: string, choice: string): KeptConversation {
  if (/^\d{1,3}$/.test(choice)) {
    const numbered = listed[Number(choice) - 1];
    if (numbered) return numbered;
  }
  const matches = listed.filter((kept) => kept.header.id.startsWith(choice));
  if (matches.length === 1 && matches[0]) return matches[0];
  if (matches.length > 1) throw new PlugboardError("USAGE", `'${choice}' is the start of ${matches.length} conversations' ids; type more of it`);
  // Kept for another config or workspace: say which, rather than that it does not exist.
  const file = join(folder, `${choice}.jsonl`);
  if (/^[a-z0-9]+$/.test(choice) && existsQuietly(file)) {
    const { header } = readConversation(file);
    throw new PlugboardError(
      "USAGE",
      `conversation ${choice} belongs to the config ${header.config} and the workspace ${header.workspace}; resume it with: plugboard resume ${choice} --config ${header.config} --workspace ${header.workspace}`,
    );
  }
  throw new PlugboardError("USAGE", `no kept conversation '${choice}' for this config and workspace; plugboard resume lists them`);
}

/** One line per conversation: number, id, when, and its first request. */
export function describeConversations(listed: readonly KeptConversation[]): string[] {
  return listed.map((kept, index) => {
    const first = kept.messages.find((message) => message.role === "user");
    const text = first === undefined ? "" : textOf(first.content).replace(/\s+/g, " ");
    const preview = text.length > 60 ? `${text.slice(0, 59)}…` : text;
    const when = kept.modified.toISOString().slice(0, 16).replace("T", " ");
    // Read from a file: its control characters are written out, not obeyed by the terminal.
    return visible(`${String(index + 1).padStart(3)}  ${kept.header.id}  ${when}  ${kept.taint ? "(tainted) " : ""}${preview}`);
  });
}

/** The text of a message's content (the parts' text, for content given as parts). */
export function textOf(content: ChatCompletionMessageParam["content"]): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part) => ("text" in part && typeof part.text === "string" ? part.text : "")).join("");
}

/** Leaves out a last step cut off by a crash: an assistant message whose tool calls did not all get their results. */
function completeSteps(messages: ChatCompletionMessageParam[]): ChatCompletionMessageParam[] {
  const last = messages.findLastIndex((message) => message.role === "assistant");
  const assistant = messages[last];
  if (assistant?.role !== "assistant" || !assistant.tool_calls?.length) return messages;
  const answered = new Set(messages.slice(last + 1).map((message) => (message.role === "tool" ? message.tool_call_id : "")));
  return assistant.tool_calls.every((call) => answered.has(call.id)) ? messages : messages.slice(0, last);
}

function parseLine(file: string, text: string, number: number): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {}
  throw unreadable(file, `line ${number} is not a JSON object`);
}

function isHeader(value: Record<string, unknown> | undefined): value is Record<string, unknown> & ConversationHeader {
  return (
    value?.plugboard === "conversation" &&
    value.version === 1 &&
    ["id", "created", "config", "workspace", "cwd", "model"].every((key) => typeof value[key] === "string")
  );
}

function isMessage(value: unknown): value is ChatCompletionMessageParam {
  if (typeof value !== "object" || value === null) return false;
  const role = Reflect.get(value, "role");
  return role === "user" || role === "assistant" || role === "tool";
}

function isTaint(value: unknown): value is Taint {
  return typeof value === "object" && value !== null && typeof Reflect.get(value, "by") === "string";
}

function existsQuietly(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

function unreadable(file: string, why: string): PlugboardError {
  return new PlugboardError("USAGE", `${file} is not a conversation Plugboard kept (${why}); move it out of that folder, or remove it`);
}
