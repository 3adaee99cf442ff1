/** The nearest real name to one mistyped: config and policy errors and the CLI's unknown commands say "did you mean …?" with it. */

/** The name of `names` closest to `name` in edits (a swap of two letters is one), when close enough to be the one meant. */
export function nearest(name: string, names: readonly string[]): string | undefined {
  let best: string | undefined;
  let fewest = Math.max(2, Math.floor(name.length / 3)) + 1;
  for (const candidate of names) {
    const edits = distance(name.toLowerCase(), candidate.toLowerCase());
    if (edits < fewest) [best, fewest] = [candidate, edits];
  }
  return best;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours. */
function distance(a: string, b: string): number {
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let edits = Math.min((previous[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) edits = Math.min(edits, (before[j - 2] ?? 0) + 1);
      row.push(edits);
    }
    [before, previous] = [previous, row];
  }
  return previous[b.length] ?? 0;
}
