/**
 * `POST /v1/chat/completions`: takes the next scripted reply and answers with it, as JSON
 * or as a stream, the way the real endpoint would.
 */
import { answerOf, completionChunks, completionObject, estimateTokens } from "./completion.ts";
import { defaultErrorBody, errorBody } from "./error-bodies.ts";
import { classifyReply } from "./replies.ts";
import { jsonResponse, textResponse } from "./responses.ts";
import { replayResponse, sseResponse } from "./sse.ts";
import type { RecordedRequest, ScriptedReply, StaticReply } from "./types.ts";

/** What answering needs from the server that owns the script. */
export interface ScriptSource {
  /** The next reply, or undefined when the script is exhausted. */
  takeReply(): ScriptedReply | undefined;
  nextCallId(): string;
  nextCompletionId(): string;
  /** The model id to echo when the request names none. */
  readonly defaultModel: string;
  /** A response that never comes before the client disconnects or the server closes. */
  hang(signal: AbortSignal): Promise<Response>;
}

/** Answers one chat-completions request that has already been recorded. */
export async function answerChatCompletion(
  request: Request,
  record: RecordedRequest,
  source: ScriptSource,
  headers: Readonly<Record<string, string>>,
): Promise<Response> {
  const entry = source.takeReply();
  if (entry === undefined) return scriptError(record, "the script is exhausted", "script_exhausted", headers);
  let reply: StaticReply;
  try {
    reply = typeof entry === "function" ? await entry(record) : entry;
    return respond(request, record, reply, source, headers);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return scriptError(record, `the reply function failed (${detail})`, "script_error", headers);
  }
}

function respond(
  request: Request,
  record: RecordedRequest,
  reply: StaticReply,
  source: ScriptSource,
  headers: Readonly<Record<string, string>>,
): Response | Promise<Response> {
  const stream = record.body.stream === true;
  const classified = classifyReply(reply);
  switch (classified.kind) {
    case "hang":
      return source.hang(request.signal);
    case "fault": {
      const { status, body, headers: extra } = classified.reply;
      const all = { ...headers, ...extra };
      if (typeof body === "string") return textResponse(status, body, all);
      return jsonResponse(status, body ?? defaultErrorBody(status), all);
    }
    case "replay":
      if (!stream) return scriptError(record, "a replay reply answers only a streamed request (stream: true)", "script_error", headers);
      return replayResponse(200, classified.reply.replay, headers);
    case "raw": {
      const { raw, status = 200 } = classified.reply;
      if (!stream) return jsonResponse(status, raw, headers);
      return sseResponse(status, typeof raw === "string" ? raw : Array.isArray(raw) ? raw : [raw], headers);
    }
    default: {
      const answer = answerOf(classified.reply, () => source.nextCallId());
      const options = record.body.stream_options;
      const meta = {
        id: source.nextCompletionId(),
        created: Math.floor(Date.now() / 1000),
        model: typeof record.body.model === "string" ? record.body.model : source.defaultModel,
        promptTokens: estimateTokens(record.text),
        includeUsage:
          typeof options === "object" && options !== null && "include_usage" in options && options.include_usage === true,
      };
      if (stream) return sseResponse(200, completionChunks(answer, meta), headers);
      return jsonResponse(200, completionObject(answer, meta), headers);
    }
  }
}

/** A 500 that names the test's mistake; `x-should-retry: false` keeps SDK retries from hiding it. */
function scriptError(
  record: RecordedRequest,
  problem: string,
  code: string,
  headers: Readonly<Record<string, string>>,
): Response {
  const message = `Scripted model: ${problem}; no reply for ${record.method} ${record.path}. Enqueue a valid reply for every request the code under test makes.`;
  return jsonResponse(500, errorBody(message, "server_error", code), { ...headers, "x-should-retry": "false" });
}
