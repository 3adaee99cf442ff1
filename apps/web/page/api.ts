/** The chat API as the page uses it: one streamed turn, and answers to approval requests. */
import type { FileChange } from "@plugboard/runtime/change-rows";
import { EventSourceParserStream } from "eventsource-parser/stream";

/** A message of the history the server takes: user and assistant text only. */
export interface HistoryMessage {
  readonly role: "user" | "assistant";
  readonly content: string;
}

/** A conversation's taint, as the server gives it after a turn and takes it with the next: the tool whose untrusted result entered it. */
export interface Taint {
  readonly by: string;
}

/** The events of a streamed turn, as `POST /api/chat` sends them. */
export type ChatEvent =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "tool_call"; readonly id: string; readonly name: string; readonly arguments: string }
  | { readonly type: "tool_result"; readonly id: string; readonly name: string; readonly content: string; readonly isError: boolean; readonly redactions?: number }
  | {
      readonly type: "approval";
      readonly id: string;
      readonly tool: string;
      readonly arguments: Record<string, unknown>;
      readonly like?: string;
      readonly change?: FileChange;
      /** Why a person must answer: untrusted content from tool `by` entered the conversation. */
      readonly tainted?: Taint;
    }
  | ({ readonly type: "grant" } & GrantRequestEvent)
  | ({ readonly type: "elicitation" } & ElicitationRequestEvent)
  | { readonly type: "done"; readonly reply: string; readonly status: "answered" | "empty" | "step_limit"; readonly cutOff?: true; readonly taint?: Taint }
  | { readonly type: "error"; readonly error: string };

/** One field of a server's form (as `@plugboard/mcp` reads it). */
export interface ElicitationField {
  readonly name: string;
  readonly title: string;
  readonly description?: string;
  readonly type: "string" | "number" | "integer" | "boolean" | "choice" | "choices";
  readonly required: boolean;
  readonly options?: readonly { readonly value: string; readonly label: string }[];
  readonly default?: string | number | boolean | string[];
  readonly format?: string;
}

/** A call the sandbox refused, offered again with the grant that would allow it. */
export interface GrantRequestEvent {
  readonly id: string;
  readonly tool: string;
  readonly arguments: Record<string, unknown>;
  /** The plugin refused. */
  readonly owner: string;
  /** The missing grant as its config entry would say it. */
  readonly grant: string;
  /** The config file a saved grant is written to; absent: not offered. */
  readonly save?: string;
}

/** How long a grant given on the page lasts; undefined: not given (the refusal stays). */
export type GrantScope = "once" | "session" | "saved" | undefined;

/** A mounted server's request for input, waiting for the page. */
export interface ElicitationRequestEvent {
  readonly id: string;
  readonly server: string;
  readonly message: string;
  readonly fields: readonly ElicitationField[];
}

/** The body of `POST /api/elicitations/ID`. */
export type ElicitationAnswerBody = { readonly action: "accept"; readonly content: Record<string, string | number | boolean | string[]> } | { readonly action: "decline" };

/** A refusal of the server before the turn started (`status` 401 means a token is needed). */
export class ApiError extends Error {
  override readonly name = "ApiError";
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Runs one turn, calling `onEvent` for each event until `done` or `error`. */
export async function streamChat(
  history: readonly HistoryMessage[],
  token: string,
  signal: AbortSignal,
  onEvent: (event: ChatEvent) => void,
  taint?: Taint,
): Promise<void> {
  const response = await fetch("/api/chat", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream", ...authorization(token) },
    body: JSON.stringify({ messages: history, ...(taint ? { taint } : {}) }),
    signal,
  });
  if (!response.ok || response.body === null) throw await apiError(response);
  const events = response.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
  for await (const message of events) {
    const data = JSON.parse(message.data) as Record<string, unknown>;
    onEvent({ ...data, type: message.event ?? "message" } as ChatEvent);
  }
}

/** What the server says of itself (`GET /api/info`): the model in use and example prompts. */
export interface PageInfo {
  readonly model: string;
  readonly demo: boolean;
  readonly examples: readonly string[];
  /** Each tool withheld from the model (changed, or its description flagged), with the reason and how to accept it. */
  readonly withheld: readonly string[];
}

/** What `GET /api/info` answered: the info, `"token"` when the server refused the token (none, or another), undefined when it could not be had (the server is gone). */
export async function fetchInfo(token: string): Promise<PageInfo | "token" | undefined> {
  const response = await fetch("/api/info", { headers: authorization(token) }).catch(() => undefined);
  if (response?.status === 401) return "token";
  return response?.ok ? ((await response.json()) as PageInfo) : undefined;
}

/** Answers an approval request. */
export async function answerApproval(id: string, decision: "allow" | "deny", reason: string, token: string, always = false): Promise<void> {
  const response = await fetch(`/api/approvals/${encodeURIComponent(id)}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...authorization(token) },
    body: JSON.stringify({ decision, ...(reason ? { reason } : {}), ...(always ? { always: "commands" } : {}) }),
  });
  if (!response.ok) throw await apiError(response);
}

/** Answers a grant card: run the refused call again with the grant (for `scope`), or leave the refusal. */
export async function answerGrant(id: string, scope: GrantScope, token: string): Promise<void> {
  const response = await fetch(`/api/approvals/${encodeURIComponent(id)}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...authorization(token) },
    body: JSON.stringify(scope === undefined ? { decision: "deny" } : { decision: "allow", grant: scope }),
  });
  if (!response.ok) throw await apiError(response);
}

/** Answers a server's request for input; rejects with the server's words when the answer does not fit the form. */
export async function answerElicitation(id: string, answer: ElicitationAnswerBody, token: string): Promise<void> {
  const response = await fetch(`/api/elicitations/${encodeURIComponent(id)}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...authorization(token) },
    body: JSON.stringify(answer),
  });
  if (!response.ok) throw await apiError(response);
}

function authorization(token: string): Record<string, string> {
  return token ? { authorization: `Bearer ${token}` } : {};
}

async function apiError(response: Response): Promise<ApiError> {
  const body = (await response.json().catch(() => ({}))) as { error?: string };
  return new ApiError(response.status, body.error ?? `The server answered HTTP ${response.status}`);
}
