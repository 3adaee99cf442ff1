/**
 * What the model client is made from: the model's name, its endpoint and key. A module of its
 * own, free of the `openai` SDK, so that the config (which reads these settings) and commands
 * that only print them never load the SDK.
 */
import type { Dialect } from "@plugboard/core";

/** The endpoint an app sends its model requests to when the config names none. */
export const DEFAULT_BASE_URL = "https://api.openai.com/v1";

/** The model settings of a config: no key and no base URL means the offline demo model. */
export interface ModelSettings {
  name: string;
  baseURL: string | undefined;
  apiKey: string | undefined;
  /** The schema dialect its tools are sent in (`model.dialect`; by default from the base URL's host). */
  dialect: Dialect;
}

/** The hosts of Google's Gemini endpoints (its own API and Vertex AI), which take the `gemini` dialect. */
const GOOGLE_HOSTS = ["generativelanguage.googleapis.com", "aiplatform.googleapis.com"];

/**
 * The dialect of an endpoint the config names none for: `gemini` at Google's hosts (a
 * regional Vertex AI host, `us-central1-aiplatform.googleapis.com`, included), else `openai`.
 *
 * @example defaultDialect("https://generativelanguage.googleapis.com/v1beta/openai/") // "gemini"
 */
export function defaultDialect(baseURL: string | undefined): Dialect {
  if (baseURL === undefined || !URL.canParse(baseURL)) return "openai";
  const host = new URL(baseURL).hostname;
  return GOOGLE_HOSTS.some((google) => host === google || host.endsWith(`-${google}`) || host.endsWith(`.${google}`)) ? "gemini" : "openai";
}
