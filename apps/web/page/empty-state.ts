/**
 * What the page says before the first question: the model in use (in the header, for every
 * conversation) and example prompts to click, from `GET /api/info` — requests the demo model
 * understands for the enabled tools, so a click works with it too — and the tools withheld
 * from the model, with why (in every conversation).
 */
import type { PageInfo } from "./api.ts";
import { button, byId, el } from "./dom.ts";

const modelInfo = byId("model-info", HTMLParagraphElement);
const empty = byId("empty", HTMLParagraphElement);
const examples = byId("examples", HTMLDivElement);
const exampleList = byId("example-list", HTMLUListElement);
const withheld = byId("withheld", HTMLDivElement);
const withheldList = byId("withheld-list", HTMLUListElement);

/** Fills in the model and the examples (a click asks one with `ask`). */
export function showInfo(info: PageInfo, ask: (text: string) => void): void {
  modelInfo.textContent = info.demo ? "Model: the offline demo model (it understands a few fixed requests)" : `Model: ${info.model}`;
  modelInfo.hidden = false;
  exampleList.replaceChildren(
    ...info.examples.map((text) => {
      const item = el("li");
      const choose = button(text, "example", `Ask: ${text}`);
      choose.addEventListener("click", () => ask(text));
      item.append(choose);
      return item;
    }),
  );
  // Shown in every conversation: the model is not offered these until the person accepts them.
  withheldList.replaceChildren(...info.withheld.map((line) => el("li", "", line)));
  withheld.hidden = info.withheld.length === 0;
  showEmptyState(!empty.hidden);
}

/** An empty conversation says how to start, with the examples when there are some. */
export function showEmptyState(isEmpty: boolean): void {
  empty.hidden = !isEmpty;
  examples.hidden = !isEmpty || exampleList.children.length === 0;
}
