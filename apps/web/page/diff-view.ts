/** An edit_file call as a line diff of its old and new text (jsdiff). */
import { diffLines } from "diff";
import { el } from "./dom.ts";

/** A `<pre>` with one line per changed or kept line, marked `-`, `+` or ` `. */
export function diffView(oldText: string, newText: string): HTMLElement {
  const pre = el("pre", "diff");
  pre.setAttribute("aria-label", "Changes");
  for (const change of diffLines(oldText, newText)) {
    const mark = change.added ? "+" : change.removed ? "-" : " ";
    const kind = change.added ? "added" : change.removed ? "removed" : "kept";
    for (const line of change.value.replace(/\n$/, "").split("\n")) {
      const row = el("span", `diff-line ${kind}`, `${mark} ${line}\n`);
      if (kind !== "kept") row.setAttribute("aria-label", `${kind}: ${line}`);
      pre.append(row);
    }
  }
  return pre;
}
