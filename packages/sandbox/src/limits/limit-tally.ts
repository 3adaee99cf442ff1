/**
 * How often a plugin's limits refused (its process count reached, a process of it killed for
 * memory), over every tree it has run in: a host or server that starts again has new
 * cgroups, and one ended by its limit has had its cgroups removed by the time its call is
 * answered. Read before and after a call by the refusal hints.
 */
import type { Controller } from "./cgroups.ts";
import type { TreeLimits } from "./tree-limits.ts";

/** What the refusal hints read of a plugin's limits. */
export interface LimitCounts {
  /** The refusals of every tree, ended or running. */
  refusals(): Readonly<Record<Controller, number>>;
  /** Whether a refused process is counted (a pids cgroup), rather than bounded by `RLIMIT_NPROC`, which counts nothing. */
  countsProcesses(): boolean;
}

export class LimitTally implements LimitCounts {
  readonly #ended: Record<Controller, number> = { pids: 0, memory: 0 };
  readonly #running = new Set<TreeLimits>();
  #uncounted = false;

  /** Counts `tree` from now on; the function returned, called once the tree has ended, keeps its counts and removes its cgroups. */
  track(tree: TreeLimits | undefined): () => Promise<void> {
    if (tree === undefined) return async () => {};
    if (tree.rules.nproc !== undefined) this.#uncounted = true;
    this.#running.add(tree);
    return async () => {
      if (!this.#running.delete(tree)) return;
      const counts = tree.refusals();
      this.#ended.pids += counts.pids;
      this.#ended.memory += counts.memory;
      await tree.remove();
    };
  }

  countsProcesses(): boolean {
    return !this.#uncounted;
  }

  refusals(): Readonly<Record<Controller, number>> {
    const counts = { ...this.#ended };
    for (const tree of this.#running) {
      const running = tree.refusals();
      counts.pids += running.pids;
      counts.memory += running.memory;
    }
    return counts;
  }
}
