/**
 * The model's answer as a terminal shows it: Markdown rendered (headings, lists, tables, code
 * with highlighting, bold and italic, links) by `marked` with `marked-terminal`, block by
 * block as the answer streams in. Control characters the model wrote are written out
 * (`\x1b`) before anything is rendered, so the only escape sequences that reach the terminal
 * are the renderer's own styling — in text, code blocks and links alike.
 */
import { visible } from "@plugboard/core/internal";
import { Marked, type Token, type Tokens } from "marked";
import { markedTerminal } from "marked-terminal";

/** Renders Markdown for a terminal `columns` wide; without `colour`, the layout without its styling. */
export function markdownRenderer(options: { readonly columns: number; readonly colour: boolean }): (markdown: string) => string {
  // A fence that names no language is shown plain, as GitHub shows it: guessing compiles every language.
  const marked = new Marked(markedTerminal({ width: options.columns, emoji: false, tab: 2 }, { languageSubset: [] }));
  // A link shows where it goes: never a terminal hyperlink whose target the model chose and the person cannot see.
  marked.use({
    renderer: {
      link(this: { parser: { parseInline(tokens: Token[]): string } }, token: Tokens.Link) {
        const text = this.parser.parseInline(token.tokens);
        return text === token.href ? token.href : `${text} (${token.href})`;
      },
    },
  });
  return (markdown) => {
    const rendered = marked.parse(visible(markdown), { async: false });
    return options.colour ? rendered : Bun.stripANSI(rendered);
  };
}

/**
 * An answer arriving in pieces, rendered a block at a time: `push` returns what is complete
 * so far (rendered), `end` the rest. A block is complete once the block after it has begun
 * and holds a whole line — until then more text could still change it (a paragraph becomes
 * a table or a heading, a list gains an item, a fence closes) — so nothing is shown half
 * rendered, and each block shows as soon as it is known.
 */
export function markdownStream(render: (markdown: string) => string): { push(text: string): string; end(): string } {
  const marked = new Marked();
  let pending = "";
  return {
    push(text) {
      pending += text;
      const tokens = marked.lexer(pending);
      let last = tokens.length - 1;
      while (last >= 0 && tokens[last]?.type === "space") last--;
      const next = tokens[last];
      if (last < 1 || next === undefined || !next.raw.includes("\n")) return "";
      const done = tokens
        .slice(0, last)
        .map((token) => token.raw)
        .join("");
      if (!pending.startsWith(done)) return "";
      pending = pending.slice(done.length);
      return render(done);
    },
    end() {
      const rest = pending;
      pending = "";
      // The answer's last block ends its line; no blank line after it.
      return rest.trim() === "" ? "" : render(rest).replace(/\n+$/, "\n");
    },
  };
}
