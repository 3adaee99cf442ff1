/** Polling with a deadline, for tests that wait on something another process does. */

/** How long `waitFor` polls, and how often. */
export interface WaitForOptions {
  /** @default 5000 */
  readonly timeoutMs?: number;
  /** @default 10 */
  readonly everyMs?: number;
}

/**
 * Resolves once `check` returns true; throws `Error: timed out after N ms waiting until WHAT`
 * when it never does, so a failing test says what never happened instead of hanging.
 *
 * @example await waitFor("the command wrote its pid", async () => (await readFile(pidFile, "utf8")) !== "");
 */
export async function waitFor(what: string, check: () => boolean | Promise<boolean>, options: WaitForOptions = {}): Promise<void> {
  const { timeoutMs = 5000, everyMs = 10 } = options;
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() >= deadline) throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}`);
    await Bun.sleep(everyMs);
  }
}
