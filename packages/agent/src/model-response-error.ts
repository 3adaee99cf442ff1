/**
 * A model response that cannot be used as a chat completion: the model turn throws it, and the
 * model-failure classifier turns it into the one line a person reads.
 */
/** The model endpoint answered something that is not a usable chat completion. */
export class ModelResponseError extends Error {
  override readonly name = "ModelResponseError";
  /**
   * The endpoint's own error message, when it answered an error object instead of a
   * completion with status 200 (as OpenRouter does for a failed upstream provider).
   */
  readonly endpointError: string | undefined;
  constructor(message: string, endpointError?: string) {
    super(endpointError === undefined ? `Malformed model response: ${message}` : `The model endpoint answered an error instead of a completion: ${endpointError}`);
    this.endpointError = endpointError;
  }
}
