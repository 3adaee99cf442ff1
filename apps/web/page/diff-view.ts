/** A file change as rows marked `-`, `+`, ` ` or `…` (the runtime's `change-rows`: the same diff the CLI shows). */
import { type ChangeRow, changeRows, rowMark } from "@plugboard/runtime/change-rows";
import { el } from "./dom.ts";

/** An edit_file call's old and new text as a line diff. */
export function diffView(oldText: string, newText: string): HTMLElement {
  return changeView(changeRows(oldText, newText));
}

/** A `<pre>` with one line per row; rows are set as text, never read as HTML. */
export function changeView(rows: readonly ChangeRow[]): HTMLElement {
  const pre = el("pre", "diff");
  pre.setAttribute("aria-label", "Changes");
  for (const row of rows) {
    const line = el("span", `diff-line ${row.kind}`, `${rowMark(row)} ${row.text}\n`);
    if (row.kind === "added" || row.kind === "removed") line.setAttribute("aria-label", `${row.kind}: ${row.text}`);
    pre.append(line);
  }
  return pre;
}
