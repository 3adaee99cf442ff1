/**
 * Asks a model endpoint whether it would answer, without running a turn: `plugboard check`
 * uses it so that a wrong key, model or URL is found before the first request.
 */
import OpenAI from "openai";
import type { ModelClient } from "./model-client.ts";
import { describeModelFailure, type ModelFailure } from "./model-failure.ts";

/** What the endpoint said: how it was reached, or the failure with what to change. */
export type EndpointProbe = { readonly ok: true; readonly how: "listed" | "completed" } | { readonly ok: false; readonly failure: ModelFailure };

/**
 * Lists the endpoint's models and looks for the configured one; an endpoint without
 * `/models` (a 404 there) is asked for a one-token chat completion instead. Never called
 * for the demo model, which has nothing to reach.
 *
 * @example const probe = await probeEndpoint(createModelClient(config.model));
 */
export async function probeEndpoint({ client, endpoint, apiKeySet }: ModelClient): Promise<EndpointProbe> {
  const at = { ...endpoint, apiKeySet };
  const fail = (error: unknown): EndpointProbe => {
    const failure = describeModelFailure(error, at, true);
    if (failure === undefined) throw error;
    return { ok: false, failure };
  };
  let ids: string[];
  try {
    ids = (await client.models.list()).data.map((model) => model.id);
  } catch (error) {
    if (!(error instanceof OpenAI.NotFoundError)) return fail(error);
    // No model list here: one tiny completion shows whether the key, URL and model work.
    return await client.chat.completions
      .create({ model: endpoint.model, messages: [{ role: "user", content: "Say OK." }], max_tokens: 1 })
      .then((): EndpointProbe => ({ ok: true, how: "completed" }), fail);
  }
  if (ids.includes(endpoint.model)) return { ok: true, how: "listed" };
  const listed = ids.length === 0 ? "none" : `${ids.slice(0, 8).join(", ")}${ids.length > 8 ? `, … (${ids.length} in all)` : ""}`;
  return {
    ok: false,
    failure: { message: `Model endpoint ${endpoint.baseURL} does not list the model ${endpoint.model} (it lists: ${listed}); check MODEL or --model` },
  };
}
