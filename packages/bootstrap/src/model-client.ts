/**
 * One place that turns model settings into an `openai` client: a real endpoint when a key
 * or a base URL is configured, the in-process demo model otherwise.
 */
import { DEMO_BASE_URL, demoFetch } from "@plugboard/demo-model";
import OpenAI from "openai";
import type { ModelSettings } from "./config.ts";

/** A client and whether it talks to the offline demo model. */
export interface ModelClient {
  readonly client: OpenAI;
  readonly demo: boolean;
}

/** The endpoint used when only an API key is configured. */
export const DEFAULT_BASE_URL = "https://api.openai.com/v1";

/**
 * With no API key and no base URL: a client whose `fetch` answers chat completions from the
 * offline, deterministic demo model. Otherwise a normal client that retries 429, 5xx and
 * network failures twice with the SDK's own backoff.
 *
 * @example
 * const { client, demo } = createModelClient(config.model);
 */
export function createModelClient(model: Pick<ModelSettings, "baseURL" | "apiKey">): ModelClient {
  if (model.apiKey === undefined && model.baseURL === undefined) {
    return { client: new OpenAI({ apiKey: "demo", baseURL: DEMO_BASE_URL, fetch: demoFetch, maxRetries: 0 }), demo: true };
  }
  // Explicit values, so the SDK never falls back to OPENAI_* variables on its own. Local
  // servers often need no key, but the SDK refuses to start without one.
  const client = new OpenAI({
    apiKey: model.apiKey ?? "no-api-key",
    baseURL: model.baseURL ?? DEFAULT_BASE_URL,
    maxRetries: 2,
    // Failures surface as errors the app reports itself; the SDK's own warnings on stderr
    // would only repeat them. OPENAI_LOG still turns them on for debugging.
    ...(process.env.OPENAI_LOG ? {} : { logLevel: "off" as const }),
  });
  return { client, demo: false };
}
