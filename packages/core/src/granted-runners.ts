/**
 * What a source with grants a person gave for the session keeps of the processes that run its
 * calls (a plugin's host, an MCP server): a host or server started with a grant replaces the
 * one before it. Grants given at once for one plugin or server are taken one after another, each
 * starting from what the one before it gave (neither is lost, and no replaced process is left
 * running unseen), and a replaced one is ended once the calls it was running have answered.
 */

/** The session's runner of each plugin or server (by a key, its name), and how to end one. */
export class GrantedRunners<R extends object> {
  readonly #end: (runner: R) => Promise<void>;
  /** The last grant in progress for each key: the next waits for it. */
  readonly #granting = new Map<string, Promise<unknown>>();
  /** The calls each runner is running. */
  readonly #calls = new WeakMap<R, Set<Promise<unknown>>>();
  /** Runners replaced, waiting for their calls to answer before they end. */
  readonly #retiring = new Set<R>();

  constructor(end: (runner: R) => Promise<void>) {
    this.#end = end;
  }

  /** Runs `grant` for `key` after the grants for it already given have run (their failure is theirs). */
  inTurn<T>(key: string, grant: () => Promise<T>): Promise<T> {
    const turn = (this.#granting.get(key) ?? Promise.resolve()).then(grant);
    const settled = turn.catch(() => undefined);
    this.#granting.set(key, settled);
    void settled.then(() => {
      if (this.#granting.get(key) === settled) this.#granting.delete(key);
    });
    return turn;
  }

  /** `call`, counted as running on `runner` until it settles. */
  running<T>(runner: R, call: Promise<T>): Promise<T> {
    let calls = this.#calls.get(runner);
    if (calls === undefined) {
      calls = new Set();
      this.#calls.set(runner, calls);
    }
    const counted = calls;
    counted.add(call);
    const done = () => void counted.delete(call);
    call.then(done, done);
    return call;
  }

  /** Ends `runner` once the calls it is running now have settled; resolves when it has ended. */
  async retire(runner: R): Promise<void> {
    this.#retiring.add(runner);
    await Promise.allSettled([...(this.#calls.get(runner) ?? [])]);
    // Ended meanwhile by `endRetiring`: not twice.
    if (!this.#retiring.delete(runner)) return;
    await this.#end(runner);
  }

  /** Ends at once the runners still waiting for their calls (the source closes). */
  async endRetiring(): Promise<void> {
    const left = [...this.#retiring];
    this.#retiring.clear();
    await Promise.all(left.map((runner) => this.#end(runner)));
  }
}
