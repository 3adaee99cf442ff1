/**
 * Which path answers what: chat completions from the script, the model list, and a JSON
 * 404 for anything else. An `apiKey` option guards them all, as the real API does.
 */
import { answerChatCompletion, type ScriptSource } from "./chat-completions.ts";
import { errorBody } from "./error-bodies.ts";
import { isObject, parseJson } from "./record.ts";
import { type ProviderRules, refusalOf } from "./provider-rules.ts";
import { jsonResponse } from "./responses.ts";
import type { RecordedMessage, RecordedRequest } from "./types.ts";

/** What routing needs besides the request. */
export interface RouteContext {
  readonly source: ScriptSource;
  readonly models: readonly string[];
  readonly apiKey: string | undefined;
  readonly requireReasoning: boolean;
  readonly rules: ProviderRules | undefined;
  readonly headers: Readonly<Record<string, string>>;
}

/** DeepSeek's answer (HTTP 400) when thinking mode's reasoning does not come back. */
export const REASONING_REQUIRED = "The `reasoning_content` in the thinking mode must be passed back to the API.";

/** Answers one recorded request. */
export function route(request: Request, record: RecordedRequest, context: RouteContext): Response | Promise<Response> {
  const { method, path } = record;
  const { headers } = context;
  if (context.apiKey !== undefined && record.headers.authorization !== `Bearer ${context.apiKey}`) {
    return jsonResponse(401, errorBody("Incorrect API key provided.", "invalid_request_error", "invalid_api_key"), headers);
  }
  if (method === "POST" && path === "/v1/chat/completions") {
    if (record.text.trim() === "" || !isObject(parseJson(record.text))) {
      const message = "We could not parse the JSON body of your request. The body must be a JSON object.";
      return jsonResponse(400, errorBody(message, "invalid_request_error"), headers);
    }
    if (context.requireReasoning && record.body.messages?.some(lacksReasoning)) {
      return jsonResponse(400, errorBody(REASONING_REQUIRED, "invalid_request_error", "invalid_request_error"), headers);
    }
    const refusal = context.rules === undefined ? undefined : refusalOf(record.body, context.rules);
    if (refusal !== undefined) return jsonResponse(refusal.status, refusal.body, headers);
    return answerChatCompletion(request, record, context.source, headers);
  }
  if (method === "GET" && path === "/v1/models") {
    return jsonResponse(200, { object: "list", data: context.models.map(modelObject) }, headers);
  }
  const modelId = method === "GET" && path.startsWith("/v1/models/") ? decodeURIComponent(path.slice(11)) : undefined;
  if (modelId !== undefined && context.models.includes(modelId)) return jsonResponse(200, modelObject(modelId), headers);
  if (modelId !== undefined) {
    const message = `The model '${modelId}' does not exist`;
    return jsonResponse(404, errorBody(message, "invalid_request_error", "model_not_found"), headers);
  }
  return jsonResponse(404, errorBody(`Invalid URL (${method} ${path})`, "invalid_request_error"), headers);
}

/** An assistant tool-call message sent back without the reasoning that came with it. */
function lacksReasoning(message: RecordedMessage): boolean {
  if (message.role !== "assistant" || (message.tool_calls ?? []).length === 0) return false;
  return typeof message.reasoning_content !== "string" || message.reasoning_content === "";
}

function modelObject(id: string) {
  return { id, object: "model", created: 0, owned_by: "plugboard-testing" };
}
