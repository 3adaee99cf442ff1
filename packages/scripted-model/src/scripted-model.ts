/**
 * A local OpenAI-compatible chat-completions server that answers from a script and records
 * every request, so tests drive the real `openai` SDK over real HTTP.
 */
import type { ScriptSource } from "./chat-completions.ts";
import type { ProviderRules } from "./provider-rules.ts";
import { recordOf } from "./record.ts";
import { checkReply } from "./replies.ts";
import { route } from "./routes.ts";
import type { RecordedRequest, ScriptedReply } from "./types.ts";

/** Options of `startScriptedModel`. */
export interface ScriptedModelOptions {
  /** Model ids `GET /v1/models` lists; the first is echoed when a request names none. @default ["scripted-model"] */
  readonly models?: readonly string[];
  /** When set, requests must send `Authorization: Bearer <apiKey>`; others get a 401 and use no reply. @default undefined */
  readonly apiKey?: string;
  /**
   * Like DeepSeek's thinking mode: a request with an assistant tool-call message that has no
   * `reasoning_content` gets a 400 (`The \`reasoning_content\` in the thinking mode must be
   * passed back to the API.`) and uses no reply. @default false
   */
  readonly requireReasoning?: boolean;
  /**
   * Answer as a stricter provider does (`provider-rules.ts`): `gemini` refuses request fields
   * and schema keywords Gemini does not know with its 400; `openai-strict` refuses a
   * `strict: true` tool whose schema breaks strict mode's rules. A refused request uses no reply.
   */
  readonly rules?: ProviderRules;
}

/** A running scripted model. */
export interface ScriptedModel extends AsyncDisposable {
  /** The base URL to give the client, such as `http://127.0.0.1:41234/v1`. */
  readonly baseURL: string;
  /** Every request received, in order, however it was answered. */
  readonly requests: readonly RecordedRequest[];
  /** Replies not used yet. */
  readonly pending: number;
  /** Appends replies to the script; throws a `TypeError` for a malformed one. */
  enqueue(...replies: ScriptedReply[]): void;
  /**
   * Resolves once at least `count` requests have been received; rejects after `timeoutMs`
   * (default 10 000) with a message saying how many arrived.
   */
  waitForRequests(count: number, timeoutMs?: number): Promise<readonly RecordedRequest[]>;
  /** Stops the server, releasing held (`hang`) requests. Safe to call twice. */
  close(): Promise<void>;
}

/**
 * Starts a scripted model on 127.0.0.1 and a free port. Each chat-completions request
 * takes the next reply; once the script is exhausted it answers a 500 that says so.
 *
 * @example
 * await using model = await startScriptedModel([{ content: "Hello" }]);
 * const client = new OpenAI({ baseURL: model.baseURL, apiKey: "test", maxRetries: 0 });
 */
export async function startScriptedModel(
  script: readonly ScriptedReply[] = [],
  options: ScriptedModelOptions = {},
): Promise<ScriptedModel> {
  const models = options.models ?? ["scripted-model"];
  const [defaultModel] = models;
  if (defaultModel === undefined) throw new TypeError("startScriptedModel: models must list at least one model id");
  for (const reply of script) checkReply(reply);

  const queue = [...script];
  const requests: RecordedRequest[] = [];
  const waiters = new Set<{ count: number; resolve: () => void; reject: (error: Error) => void }>();
  const held = new Set<() => void>();
  let calls = 0;
  let completions = 0;
  let closed = false;

  const source: ScriptSource = {
    defaultModel,
    takeReply: () => queue.shift(),
    nextCallId: () => `call_${++calls}`,
    nextCompletionId: () => `chatcmpl-scripted-${++completions}`,
    hang: (signal) =>
      new Promise<Response>((resolve) => {
        const release = () => {
          held.delete(release);
          resolve(new Response(null, { status: 499 }));
        };
        held.add(release);
        signal.addEventListener("abort", release, { once: true });
      }),
  };

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    // A held request must stay open as long as the client waits, not Bun's default 10 s.
    idleTimeout: 0,
    async fetch(request) {
      const record = await recordOf(request);
      requests.push(record);
      for (const waiter of waiters) {
        if (requests.length >= waiter.count) {
          waiters.delete(waiter);
          waiter.resolve();
        }
      }
      const headers = { "x-request-id": `req_scripted_${requests.length}` };
      return route(request, record, { source, models, apiKey: options.apiKey, requireReasoning: options.requireReasoning ?? false, rules: options.rules, headers });
    },
  });

  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    for (const release of [...held]) release();
    for (const waiter of waiters) waiter.reject(new Error(`The scripted model closed before ${waiter.count} requests arrived`));
    waiters.clear();
    await server.stop(true);
  };

  return {
    baseURL: `http://127.0.0.1:${server.port}/v1`,
    requests,
    get pending() {
      return queue.length;
    },
    enqueue(...replies) {
      for (const reply of replies) checkReply(reply);
      queue.push(...replies);
    },
    waitForRequests(count, timeoutMs = 10_000) {
      if (requests.length >= count) return Promise.resolve(requests);
      if (closed) return Promise.reject(new Error("The scripted model is closed"));
      return new Promise((resolve, reject) => {
        const waiter = {
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve(requests);
          },
          reject: (error: Error) => {
            clearTimeout(timer);
            reject(error);
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`The scripted model received ${requests.length} of ${count} requests within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
