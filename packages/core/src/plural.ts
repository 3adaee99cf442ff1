/**
 * The form of `word` that `count` of it takes: `plural(1, "request")` is `request`,
 * `plural(3, "request")` is `requests`; `plurals` for a word that does not just add an s.
 *
 * @example `${count} ${plural(count, "request")}`
 */
export function plural(count: number, word: string, plurals = `${word}s`): string {
  return count === 1 ? word : plurals;
}
