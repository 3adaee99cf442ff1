/**
 * What the model client is made from: the model's name, its endpoint and key. A module of its
 * own, free of the `openai` SDK, so that the config (which reads these settings) and commands
 * that only print them never load the SDK.
 */

/** The endpoint an app sends its model requests to when the config names none. */
export const DEFAULT_BASE_URL = "https://api.openai.com/v1";

/** The model settings of a config: no key and no base URL means the offline demo model. */
export interface ModelSettings {
  name: string;
  baseURL: string | undefined;
  apiKey: string | undefined;
}
