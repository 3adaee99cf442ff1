/**
 * `PLUGBOARD_TRACE=1`: the stages of a start and a call, each on stderr as it is reached, for
 * finding where the time goes (the bench's per-stage budget reads them). Each line is
 * `plugboard trace EPOCH_MS STAGE`, the time in milliseconds since the epoch with
 * microseconds, so that lines from several processes (the app, the confining step, the
 * plugin host) fall in one order. Unset, nothing is written and a mark costs one test.
 * Internal to Plugboard's own packages; not an API, and its stages may change in any release.
 */
import { writeSync } from "node:fs";

/** The variable that turns the trace on (`1`), passed on to confined processes when it is. */
export const TRACE_VARIABLE = "PLUGBOARD_TRACE";

/** How every trace line begins. */
export const TRACE_PREFIX = "plugboard trace ";

/** Whether this process traces: read once, at load. */
export const tracing = process.env[TRACE_VARIABLE] === "1";

/**
 * Writes `stage` with the time now, when tracing: at once (a process about to `execve` or
 * exit leaves nothing in a buffer).
 */
export function trace(stage: string): void {
  if (tracing) writeSync(2, `${TRACE_PREFIX}${(performance.timeOrigin + performance.now()).toFixed(3)} ${stage}\n`);
}
