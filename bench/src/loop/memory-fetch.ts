/**
 * The in-process transport: a `fetch` for the `openai` client that answers each request
 * with the next pre-serialized chat completion, from memory. The request body (serialized
 * by the SDK) is not read, so the transport costs the same whichever loop sends it.
 */
import type { ScriptStep } from "./script.ts";

/** A `fetch` that replays a script of completions; `rewind` starts the script again. */
export class MemoryFetch {
  readonly #bodies: readonly string[];
  #next = 0;

  constructor(script: readonly ScriptStep[]) {
    this.#bodies = script.map((step, index) => JSON.stringify(completion(step, index + 1)));
  }

  rewind(): void {
    this.#next = 0;
  }

  /** Pass as the client's `fetch` option. */
  readonly fetch = async (_input: string | URL | Request, _init?: RequestInit): Promise<Response> => {
    const body = this.#bodies[this.#next++];
    if (body === undefined) return new Response('{"error":{"message":"script exhausted"}}', { status: 500 });
    return new Response(body, { status: 200, headers: { "content-type": "application/json" } });
  };
}

/** The chat completion a real endpoint would send for `step`. */
function completion(step: ScriptStep, index: number): unknown {
  const message =
    step.kind === "answer"
      ? { role: "assistant", content: step.text, refusal: null }
      : {
          role: "assistant",
          content: null,
          refusal: null,
          tool_calls: [{ id: step.id, type: "function", function: { name: step.name, arguments: step.arguments } }],
        };
  return {
    id: `chatcmpl-${index}`,
    object: "chat.completion",
    created: 0,
    model: "bench-model",
    choices: [{ index: 0, message, logprobs: null, finish_reason: step.kind === "answer" ? "stop" : "tool_calls" }],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  };
}
