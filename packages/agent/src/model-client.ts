/**
 * The one place that turns model settings into an `openai` client: a real endpoint when a
 * key or a base URL is configured, the in-process demo model otherwise. Kept in its own
 * module, imported only when an app asks for a model, so commands without one never load
 * the SDK.
 */
import { DEMO_BASE_URL, demoFetch } from "./demo/demo-fetch.ts";
import OpenAI from "openai";
import { DEFAULT_BASE_URL, type ModelSettings } from "./model-settings.ts";

/** A client, whether it talks to the offline demo model, and where its requests go. */
export interface ModelClient {
  readonly client: OpenAI;
  readonly demo: boolean;
  /** The base URL the client sends to and the model name sent with each request. */
  readonly endpoint: { readonly baseURL: string; readonly model: string };
  /** Whether an API key was configured (for the message when the endpoint wants one). */
  readonly apiKeySet: boolean;
}

/**
 * With no API key and no base URL: a client whose `fetch` is the offline, deterministic demo
 * model. Otherwise a normal client that retries 429, 5xx and network failures twice with
 * the SDK's own backoff.
 *
 * @example const { client, demo } = createModelClient(config.model);
 */
export function createModelClient(model: Omit<ModelSettings, "dialect">): ModelClient {
  const demo = model.apiKey === undefined && model.baseURL === undefined;
  const client = demo
    ? new OpenAI({ apiKey: "demo", baseURL: DEMO_BASE_URL, fetch: demoFetch, maxRetries: 0 })
    : // Explicit values, so the SDK never falls back to OPENAI_* variables on its own. Local
      // servers often need no key, but the SDK refuses to start without one.
      new OpenAI({
        apiKey: model.apiKey ?? "no-api-key",
        baseURL: model.baseURL ?? DEFAULT_BASE_URL,
        maxRetries: 2,
        fetch: unwrappingErrors,
        // Failures surface as errors the app reports itself; the SDK's own warnings on stderr
        // would only repeat them. OPENAI_LOG still turns them on for debugging.
        ...(process.env.OPENAI_LOG ? {} : { logLevel: "off" as const }),
      });
  return { client, demo, endpoint: { baseURL: client.baseURL, model: model.name }, apiKeySet: model.apiKey !== undefined };
}

/**
 * `fetch`, with an error body sent as a one-element array (Gemini's OpenAI-compatible
 * endpoint: `[{"error": {…}}]`) unwrapped to the object inside, which the SDK reads as the
 * error (it reads `body.error`, and of an array nothing). Answers that succeed pass untouched.
 */
async function unwrappingErrors(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const response = await fetch(input, init);
  if (response.ok || !response.headers.get("content-type")?.includes("json")) return response;
  const text = await response.text();
  const body = parsed(text);
  const inner: unknown = Array.isArray(body) && body.length === 1 ? body[0] : undefined;
  // The text is already decoded: its length and encoding are no longer the response's.
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  headers.delete("content-encoding");
  return new Response(inner === undefined ? text : JSON.stringify(inner), { status: response.status, statusText: response.statusText, headers });
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
