/**
 * OpenAI-style error bodies (`{ error: { message, type, param, code } }`), so the SDK under
 * test builds the same `APIError` subclasses, with the same fields, as against the real API.
 */

/** The JSON body of an API error. */
export interface ErrorBody {
  readonly error: {
    readonly message: string;
    readonly type: string;
    readonly param: string | null;
    readonly code: string | null;
  };
}

/** An error body with the given fields. */
export function errorBody(message: string, type: string, code: string | null = null): ErrorBody {
  return { error: { message, type, param: null, code } };
}

const DEFAULTS: Readonly<Record<number, readonly [message: string, type: string, code: string | null]>> = {
  400: ["Invalid request.", "invalid_request_error", null],
  401: [
    "Incorrect API key provided. You can find your API key at your provider's dashboard.",
    "invalid_request_error",
    "invalid_api_key",
  ],
  403: ["You are not allowed to use this model.", "invalid_request_error", "model_not_allowed"],
  404: ["The model does not exist or you do not have access to it.", "invalid_request_error", "model_not_found"],
  429: ["Rate limit reached. Please try again later.", "requests", "rate_limit_exceeded"],
  500: ["The server had an error while processing your request.", "server_error", null],
  502: ["Bad gateway.", "server_error", null],
  503: ["The engine is currently overloaded, please try again later.", "server_error", null],
};

/** The body the real API would likely send with `status`. */
export function defaultErrorBody(status: number): ErrorBody {
  const known = DEFAULTS[status];
  if (known) return errorBody(...known);
  return status >= 500
    ? errorBody(`The server answered ${status}.`, "server_error")
    : errorBody(`The request was refused with ${status}.`, "invalid_request_error");
}
