/** Polling with a deadline, for tests that wait on something another process does. */

/** How long `waitFor` polls, and how often. */
export interface WaitForOptions {
  /** @default 5000 */
  readonly timeoutMs?: number;
  /** @default 10 */
  readonly everyMs?: number;
}

/** What a check returns while what it waits for has not happened. */
type NotYet = false | null | undefined;

/** What `check` returned once it held: `true`, or the value found. */
export type Found<T> = Exclude<Awaited<T>, NotYet>;

/**
 * Resolves once `check` returns something other than false, null or undefined, with what it
 * returned; throws `Error: timed out after N ms waiting until WHAT` when it never does, so a
 * failing test says what never happened instead of hanging.
 *
 * @example await waitFor("the command wrote its pid", async () => (await readFile(pidFile, "utf8")) !== "");
 * @example const terminal = await waitFor("script opened a terminal", () => terminalOf(holder.pid));
 */
export async function waitFor<T>(what: string, check: () => T, options: WaitForOptions = {}): Promise<Found<T>> {
  const { timeoutMs = 5000 } = options;
  const found = await pollFor(check, options);
  if (found === undefined) throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}`);
  return found;
}

/** `waitFor` that gives up quietly: what `check` returned once it held, or undefined after the deadline. */
export async function pollFor<T>(check: () => T, { timeoutMs = 5000, everyMs = 10 }: WaitForOptions = {}): Promise<Found<T> | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (holds(value)) return value;
    if (Date.now() >= deadline) return undefined;
    await Bun.sleep(everyMs);
  }
}

function holds<T>(value: T): value is Exclude<T, NotYet> {
  return value !== false && value !== null && value !== undefined;
}
