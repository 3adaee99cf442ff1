/**
 * Reading `POST /api/chat`: the body is size-capped before it is parsed, then validated
 * strictly. The client sends only user and assistant messages; the server adds its own
 * system message, and tool messages exist only inside one turn.
 */
import { formatSchemaErrors } from "@plugboard/core/internal";
import * as v from "valibot";
import { HttpError } from "./http.ts";

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
});

/** A validated chat request. */
export type ChatRequest = v.InferOutput<typeof ChatRequestSchema>;

/** One message of a chat request. */
export type ChatMessage = ChatRequest["messages"][number];

/**
 * Reads, parses and validates a chat request. Throws `HttpError` 400 for a body over
 * `maxBytes` (checked while reading, before any parsing), invalid UTF-8, bad JSON or a
 * wrong shape, naming every problem with its path.
 */
export async function readChatRequest(request: Request, maxBytes: number): Promise<ChatRequest> {
  const text = await readLimited(request, maxBytes);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new HttpError(400, `The request body is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    throw new HttpError(400, 'Invalid chat request: body: expected a JSON object such as {"messages": [...]}');
  }
  const parsed = v.safeParse(ChatRequestSchema, json);
  if (parsed.success) return parsed.output;
  const problems = formatSchemaErrors(
    parsed.issues.map((issue) => ({ path: issue.path?.map((item) => item.key) ?? [], message: problemOf(issue) })),
    { root: "body" },
  );
  throw new HttpError(400, `Invalid chat request: ${problems.join("; ")}`);
}

async function readLimited(request: Request, maxBytes: number): Promise<string> {
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (declared > maxBytes) throw tooLarge(maxBytes);
  if (request.body === null) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw new HttpError(400, "The request body is not valid UTF-8");
  }
}

function tooLarge(maxBytes: number): HttpError {
  return new HttpError(400, `The request body is larger than ${maxBytes} bytes`);
}

function problemOf(issue: v.BaseIssue<unknown>): string {
  if (issue.type !== "strict_object") return issue.message;
  if (issue.expected === "never") return "unknown key";
  if (issue.received === "undefined") return "required";
  return "expected a JSON object";
}
