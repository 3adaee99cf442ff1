/**
 * Streams recorded from providers whose answers differ from OpenAI's, kept in this package's
 * `fixtures` folder as the SSE text they sent, for replaying with `{ replay }`.
 */
import { readFile } from "node:fs/promises";
import type { ReplayReply } from "./types.ts";

/**
 * - `mistral-tool-calls`: two tool calls, each whole in one chunk, with an `id` and neither
 *   `index` nor `type`.
 * - `deepseek-reasoning-tool-call`: `reasoning_content` deltas, then one tool call by `index`,
 *   extra usage fields (`prompt_cache_hit_tokens`, `reasoning_tokens`).
 * - `empty-id-continuation`: one tool call without `index` whose later chunks carry `"id": ""`.
 */
export const RECORDED_STREAMS = ["mistral-tool-calls", "deepseek-reasoning-tool-call", "empty-id-continuation"] as const;

/** The name of a recorded stream. */
export type RecordedStream = (typeof RECORDED_STREAMS)[number];

/**
 * A reply that replays the recorded stream `name` exactly.
 *
 * @example await using model = await startScriptedModel([await recordedStream("mistral-tool-calls"), { content: "Done." }]);
 */
export async function recordedStream(name: RecordedStream): Promise<ReplayReply> {
  return { replay: await readFile(new URL(`../fixtures/${name}.sse`, import.meta.url), "utf8") };
}
