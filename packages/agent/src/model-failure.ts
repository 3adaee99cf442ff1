/**
 * Turns a failed model request into one line a person can act on: what happened, at which
 * endpoint, and what to check. Both apps report model failures through it (the CLI on
 * stderr with exit code 3, the web app as a 502). Anything that is not a model failure is
 * left alone (undefined), so programming errors still surface as themselves.
 */
import { ModelResponseError } from "./model-response-error.ts";
import { refusalMessage, ToolSchemaRefusal } from "./tool-schema-refusal.ts";
import OpenAI from "openai";

/** Where the request went, for the message. */
export interface Endpoint {
  readonly baseURL: string;
  readonly model: string;
  /** Whether an API key was configured; `false` turns a 401 into "no API key is set". Unknown when absent. */
  readonly apiKeySet?: boolean;
}

/** A model failure, described. */
export interface ModelFailure {
  /** One line: what happened, at which endpoint, what to check. */
  readonly message: string;
  /** The HTTP status the endpoint answered; absent when it could not be reached or sent garbage. */
  readonly status?: number;
}

const KEY_HINT = "check MODEL_API_KEY (or OPENAI_API_KEY)";
const NO_KEY_HINT = "set MODEL_API_KEY (or OPENAI_API_KEY) in the environment or in the .env file beside the config";
const URL_HINT = "check BASE_URL or --base-url, and that the server is running";
const SHAPE_HINT = "check that BASE_URL or --base-url points at an OpenAI-compatible chat-completions endpoint";

/**
 * The description of a model endpoint failure, or undefined when `error` is not one.
 * `duringRequest` says the error came out of a model request (parsing included), where a
 * `SyntaxError` means the endpoint sent malformed data rather than a bug of ours.
 *
 * @example describeModelFailure(error, { baseURL: client.baseURL, model: "gpt-4.1" })?.message
 */
export function describeModelFailure(error: unknown, endpoint: Endpoint, duringRequest = true): ModelFailure | undefined {
  const at = endpoint.baseURL;
  if (error instanceof ToolSchemaRefusal) return { ...oneLine(refusalMessage(error, at)), status: 400 };
  if (error instanceof ModelResponseError) {
    if (error.endpointError !== undefined) return oneLine(`Model endpoint ${at} answered an error instead of a completion: ${error.endpointError}`);
    return oneLine(`${error.message} (from ${at}); ${SHAPE_HINT}`);
  }
  if (error instanceof OpenAI.APIConnectionTimeoutError) return oneLine(`Model endpoint ${at} did not answer in time (retried twice); ${URL_HINT}`);
  if (error instanceof OpenAI.APIConnectionError) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
    return oneLine(`Cannot reach the model endpoint ${at}${cause} (retried twice); ${URL_HINT}`);
  }
  if (error instanceof OpenAI.APIError && error.status !== undefined) return httpFailure(error, endpoint);
  if (error instanceof OpenAI.OpenAIError) return oneLine(`Model request to ${at} failed: ${error.message}`);
  if (duringRequest && error instanceof SyntaxError) {
    return oneLine(`Malformed model response: ${error.message} (from ${at}); ${SHAPE_HINT}`);
  }
  return undefined;
}

function httpFailure(error: InstanceType<typeof OpenAI.APIError>, { baseURL, model, apiKeySet }: Endpoint): ModelFailure {
  const status = error.status ?? 0;
  const detail = serverMessage(error);
  const head = `Model endpoint ${baseURL} answered ${status}${detail ? ` (${detail})` : ""}`;
  const line = (text: string) => ({ ...oneLine(text), status });
  // The SDK retries 429 and 5xx twice, unless the endpoint said not to (`x-should-retry: false`).
  const retried = error.headers?.get("x-should-retry") === "false" ? "" : " after 2 retries";
  if (status === 401 && apiKeySet === false) return line(`${head}: the endpoint needs an API key and none is set; ${NO_KEY_HINT}`);
  if (status === 401) return line(`${head}: the API key was refused; ${KEY_HINT}`);
  if (status === 403) return line(`${head}: access denied; ${KEY_HINT} and that it may use model ${model}`);
  if (status === 404) {
    const corrected = correctedBaseURL(baseURL);
    if (corrected !== undefined) {
      return line(`${head}: did you mean ${corrected}? (BASE_URL or --base-url; most endpoints end in /v1) Else check the model name (${model}; MODEL or --model)`);
    }
    return line(`${head}: check the model name (${model}; MODEL or --model) and that BASE_URL ends in /v1`);
  }
  if (status === 429) return line(`${head}${retried}: rate limited or out of quota; wait, or check your plan`);
  if (status >= 500) return line(`${head}${retried}: the server failed; try again later or check the server's logs`);
  return line(`${head}: the request was refused; check the model name (${model}) and that the endpoint supports tool calls`);
}

/**
 * The base URL meant, when `baseURL` is a common slip: the full `/chat/completions` address,
 * or a host with no version segment (`/v1`, `/v1beta/openai`, …). Undefined when it looks right.
 */
function correctedBaseURL(baseURL: string): string | undefined {
  const trimmed = baseURL.replace(/\/+$/, "");
  if (/\/chat\/completions$/.test(trimmed)) return trimmed.replace(/\/chat\/completions$/, "");
  const path = URL.canParse(trimmed) ? new URL(trimmed).pathname : trimmed;
  if (/\/v\d+[a-z0-9]*(\/|$)/i.test(path)) return undefined;
  return `${trimmed}/v1`;
}

/** The server's own error message, shortened. */
function serverMessage(error: InstanceType<typeof OpenAI.APIError>): string {
  const body = error.error as { message?: unknown } | undefined;
  const message = typeof body?.message === "string" ? body.message : "";
  return message.length > 160 ? `${message.slice(0, 160)}…` : message;
}

function oneLine(text: string): ModelFailure {
  return { message: text.replace(/\s*\n\s*/g, " ") };
}
