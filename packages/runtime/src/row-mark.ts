/**
 * The rows of a file change (change-rows.ts works them out) as the app and the page show
 * them. Apart from change-rows.ts, so that what only shows rows (the CLI's approval prompt,
 * loaded at every start) does not load the diff library that makes them.
 */

/** One row: a line added, removed or kept, or what was left out (`12 unchanged lines`). */
export interface ChangeRow {
  readonly kind: "added" | "removed" | "kept" | "skipped";
  readonly text: string;
}

/** The change a call makes, as rows. */
export interface FileChange {
  /** An edit's text replaced, a whole file replaced, or a file created (its head). */
  readonly kind: "edit" | "replace" | "create";
  readonly rows: readonly ChangeRow[];
}

/** The mark a row is shown with: `+`, `-`, ` ` or `…`. */
export function rowMark(row: ChangeRow): string {
  return row.kind === "added" ? "+" : row.kind === "removed" ? "-" : row.kind === "kept" ? " " : "…";
}
