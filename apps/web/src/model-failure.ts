/**
 * Turns a failure of the model endpoint into the 502 answer a person can act on. Anything
 * else a turn throws is a programming error and is not disguised as the endpoint's fault.
 */
import { ModelResponseError } from "@plugboard/core";
import OpenAI from "openai";

/** The body of a 502 answer (and of an SSE `error` event for the same failure). */
export interface ModelFailure {
  readonly error: string;
  /** The HTTP status the endpoint answered; absent when it could not be reached. */
  readonly endpointStatus?: number;
}

/**
 * Describes `error` when it is the endpoint's doing (an SDK `APIError`, a connection
 * failure, a malformed response), or returns `undefined`.
 *
 * @example describeModelFailure(error, client.baseURL) // { error: "The model endpoint … answered HTTP 401: …", endpointStatus: 401 }
 */
export function describeModelFailure(error: unknown, baseURL: string): ModelFailure | undefined {
  if (error instanceof OpenAI.APIConnectionTimeoutError) {
    return { error: `The model endpoint ${baseURL} did not answer in time` };
  }
  if (error instanceof OpenAI.APIConnectionError) {
    return { error: `Could not reach the model endpoint ${baseURL}: ${error.message}` };
  }
  if (error instanceof OpenAI.APIError) {
    const status = typeof error.status === "number" ? error.status : undefined;
    const detail = error.message.replace(/^\d{3} /, "");
    const answered = status === undefined ? "failed" : `answered HTTP ${status}`;
    return { error: `The model endpoint ${baseURL} ${answered}: ${detail}`, ...(status === undefined ? {} : { endpointStatus: status }) };
  }
  if (error instanceof ModelResponseError) return { error: `The model endpoint ${baseURL} sent a malformed answer: ${error.message}` };
  return undefined;
}
