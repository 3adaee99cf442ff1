/**
 * Reading `POST /api/chat`: the body (already size-capped by the route) is decoded, parsed and
 * validated strictly. The client sends only user and assistant messages; the server adds its own
 * system message, and tool messages exist only inside one turn. With them, the conversation's
 * taint, as the last turn's answer gave it: the conversation lives in the page.
 */
import { formatSchemaErrors } from "@plugboard/core/internal";
import * as v from "valibot";
import { HTTPException } from "hono/http-exception";

/** The largest request body accepted by default: 1 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

const ROLE_PROBLEM =
  'expected "user" or "assistant" (the server adds the system message, and tool messages stay inside one turn)';

const ChatMessageSchema = v.strictObject({
  role: v.picklist(["user", "assistant"], ROLE_PROBLEM),
  content: v.string("expected a string"),
});

/** The body of `POST /api/chat`. */
export const ChatRequestSchema = v.strictObject({
  messages: v.pipe(
    v.array(ChatMessageSchema, "expected an array of messages"),
    v.minLength(1, "expected at least one message"),
  ),
  /** The conversation's taint, as the last turn's answer gave it (the runtime's `Taint`): the page keeps it with the conversation. */
  taint: v.optional(v.strictObject({ by: v.pipe(v.string("expected a tool name"), v.minLength(1, "expected a tool name"), v.maxLength(200, "expected a tool name")) })),
});

/** A validated chat request. */
export type ChatRequest = v.InferOutput<typeof ChatRequestSchema>;

/** One message of a chat request. */
export type ChatMessage = ChatRequest["messages"][number];

/**
 * Decodes, parses and validates a chat request body. Throws `HTTPException` 400 for invalid
 * UTF-8, bad JSON or a wrong shape, naming every problem with its path.
 */
export function parseChatRequest(body: ArrayBuffer): ChatRequest {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(body);
  } catch {
    throw badRequest("The request body is not valid UTF-8");
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw badRequest(`The request body is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    throw badRequest('Invalid chat request: body: expected a JSON object such as {"messages": [...]}');
  }
  const parsed = v.safeParse(ChatRequestSchema, json);
  if (parsed.success) return parsed.output;
  const problems = formatSchemaErrors(
    parsed.issues.map((issue) => ({ path: issue.path?.map((item) => item.key) ?? [], message: problemOf(issue) })),
    { root: "body" },
  );
  throw badRequest(`Invalid chat request: ${problems.join("; ")}`);
}

function badRequest(message: string): HTTPException {
  return new HTTPException(400, { message });
}

function problemOf(issue: v.BaseIssue<unknown>): string {
  if (issue.type !== "strict_object") return issue.message;
  if (issue.expected === "never") return "unknown key";
  if (issue.received === "undefined") return "required";
  return "expected a JSON object";
}
