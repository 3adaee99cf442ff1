/**
 * Model text as Markdown: parsed by marked, HTML from the model shown as text, the result
 * sanitised by DOMPurify, then links made safe and code blocks given a copy button.
 * A `MarkdownView` re-renders only the blocks that changed, so streaming costs one block per
 * frame, not the whole answer (let alone the whole history) per token.
 */
import DOMPurify from "dompurify";
import { Marked, type Token, type TokensList } from "marked";
import { button, el } from "./dom.ts";
import { highlight } from "./highlight.ts";

const marked = new Marked({
  gfm: true,
  // A line break in the model's text stays one (as chat apps show it): tool output a model
  // repeats line by line keeps its lines.
  breaks: true,
  renderer: {
    // The model's raw HTML is text on the page, never markup.
    html: ({ text }) => escapeHtml(text),
    code: ({ text, lang }) => {
      const language = (lang ?? "").split(/\s/)[0] ?? "";
      const body = highlight(text, language) ?? escapeHtml(text);
      const label = language ? ` data-language="${escapeHtml(language)}"` : "";
      return `<pre${label}><code class="hljs">${body}</code></pre>\n`;
    },
  },
});

/** No images or media (they would load from anywhere), no forms, no inline styles; links to http(s), mail and anchors only. */
const PURIFY = {
  FORBID_TAGS: ["style", "img", "svg", "math", "form", "input", "button", "textarea", "select", "iframe", "video", "audio"],
  FORBID_ATTR: ["style"],
  ALLOWED_URI_REGEXP: /^(?:https?:|mailto:|#)/i,
  RETURN_DOM_FRAGMENT: true as const,
};

/** A rendered Markdown text that grows as it streams. */
export class MarkdownView {
  readonly element = el("div", "markdown");
  #text = "";
  #blocks: { raw: string; node: HTMLElement }[] = [];
  #frame: number | undefined;

  constructor(text = "") {
    this.#text = text;
    this.render();
  }

  get text(): string {
    return this.#text;
  }

  /** Adds streamed text; the view catches up on the next animation frame. */
  append(delta: string): void {
    this.#text += delta;
    this.#frame ??= requestAnimationFrame(() => this.render());
  }

  /** Renders what changed since the last render. */
  render(): void {
    if (this.#frame !== undefined) cancelAnimationFrame(this.#frame);
    this.#frame = undefined;
    const tokens = marked.lexer(this.#text);
    const blocks = tokens.filter((token) => token.type !== "space");
    blocks.forEach((token, index) => {
      const current = this.#blocks[index];
      if (current?.raw === token.raw) return;
      const node = el("div", "block");
      node.append(renderBlock(token, tokens));
      if (current) current.node.replaceWith(node);
      else this.element.append(node);
      this.#blocks[index] = { raw: token.raw, node };
    });
    for (const stale of this.#blocks.splice(blocks.length)) stale.node.remove();
  }
}

/** One top-level block, rendered and sanitised. */
function renderBlock(token: Token, all: TokensList): DocumentFragment {
  const html = marked.parser(Object.assign([token], { links: all.links }));
  const fragment = DOMPurify.sanitize(html, PURIFY);
  for (const link of fragment.querySelectorAll("a")) {
    link.target = "_blank";
    link.rel = "noopener noreferrer";
  }
  for (const table of fragment.querySelectorAll("table")) {
    const scroller = el("div", "table-scroll");
    table.replaceWith(scroller);
    scroller.append(table);
  }
  for (const pre of fragment.querySelectorAll("pre")) {
    const block = el("div", "code-block");
    const bar = el("div", "code-bar");
    bar.append(el("span", "code-language", pre.dataset.language ?? "code"), button("Copy", "copy", "Copy code"));
    pre.replaceWith(block);
    block.append(bar, pre);
  }
  return fragment;
}

/** Copies the code of the block a copy button belongs to; wired once, by delegation. */
export async function copyCode(copy: HTMLButtonElement): Promise<void> {
  const code = copy.closest(".code-block")?.querySelector("pre")?.textContent ?? "";
  try {
    await navigator.clipboard.writeText(code);
    copy.textContent = "Copied";
  } catch {
    copy.textContent = "Copy failed";
  }
  setTimeout(() => {
    copy.textContent = "Copy";
  }, 2000);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
