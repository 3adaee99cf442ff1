/** Small DOM helpers: every piece of text goes in through `textContent`, never as HTML. */

/** Creates an element with a class and text. */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, className = "", text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** The element with `id`; a missing one is a bug in index.html. */
export function byId<T extends HTMLElement>(id: string, type: new () => T): T {
  const node = document.getElementById(id);
  if (!(node instanceof type)) throw new Error(`index.html has no <${type.name}> #${id}`);
  return node;
}

/** A button with a visible label and, when the label alone is ambiguous, an accessible name. */
export function button(label: string, className: string, accessibleName?: string): HTMLButtonElement {
  const node = el("button", className, label);
  node.type = "button";
  if (accessibleName) node.setAttribute("aria-label", accessibleName);
  return node;
}
