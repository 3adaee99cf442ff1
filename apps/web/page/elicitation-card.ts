/**
 * A mounted server's request for input, as a card in the answer: its message, one input per
 * field of its form (text, number, a checkbox, a select, checkboxes for several choices),
 * Send and Decline. An answer the server refuses keeps the card, with the problems shown; a
 * turn stopped before an answer says so on the card.
 */
import type { ElicitationAnswerBody, ElicitationField, ElicitationRequestEvent } from "./api.ts";
import { cardAnswer } from "./card-answer.ts";
import { button, el } from "./dom.ts";

/** Sends the answer; rejects with the server's message when it does not fit. */
export type ElicitationHandler = (answer: ElicitationAnswerBody) => Promise<void>;

type Read = () => string | number | boolean | string[] | undefined;

/** Builds the card; returns it, the element to focus, and what marks it when the turn ends first. */
export function elicitationCard(
  request: ElicitationRequestEvent,
  onAnswer: ElicitationHandler,
): { card: HTMLElement; focus: HTMLElement; stop: () => void } {
  const card = el("form", "elicitation");
  card.setAttribute("aria-label", `${request.server} asks for input`);
  card.noValidate = true;
  const readers = new Map<string, Read>();
  const inputs: HTMLElement[] = [];
  for (const field of request.fields) {
    const { row, read, input } = fieldRow(request.id, field);
    readers.set(field.name, read);
    inputs.push(input);
    card.append(row);
  }
  const send = button("Send", "approve", `Send the answer to ${request.server}`);
  send.type = "submit";
  const decline = button("Decline", "deny", `Decline ${request.server}'s request`);
  const buttons = el("div", "approval-buttons");
  buttons.append(send, decline);
  const { problem, answer: sendAnswer, stop } = cardAnswer(card, [send, decline], onAnswer);
  card.prepend(el("p", "approval-question", `MCP server ${request.server} asks: ${request.message}`));
  card.append(problem, buttons);
  const answer = (body: ElicitationAnswerBody) => sendAnswer(body, body.action === "accept" ? "Answer sent." : "Declined.");
  card.addEventListener("submit", (event) => {
    event.preventDefault();
    const content: Record<string, string | number | boolean | string[]> = {};
    for (const [name, read] of readers) {
      const value = read();
      if (value !== undefined) content[name] = value;
    }
    answer({ action: "accept", content });
  });
  decline.addEventListener("click", () => answer({ action: "decline" }));
  return { card, focus: inputs[0] ?? send, stop: () => stop(`Stopped before an answer: nothing was sent to ${request.server}.`) };
}

function fieldRow(requestId: string, field: ElicitationField): { row: HTMLElement; read: Read; input: HTMLElement } {
  const id = `${requestId}-${field.name}`;
  const row = el("div", "elicitation-field");
  const label = el("label", "", `${field.title}${field.required ? " (required)" : ""}`);
  label.htmlFor = id;
  row.append(label);
  if (field.description) row.append(el("span", "elicitation-description", field.description));
  if (field.type === "choice") {
    const select = el("select");
    select.id = id;
    if (!field.required || field.default === undefined) select.append(option("", "—"));
    for (const each of field.options ?? []) select.append(option(each.value, each.label));
    if (typeof field.default === "string") select.value = field.default;
    row.append(select);
    return { row, input: select, read: () => (select.value === "" ? undefined : select.value) };
  }
  if (field.type === "choices") {
    const group = el("fieldset");
    group.id = id;
    const boxes = (field.options ?? []).map((each) => {
      const box = el("input");
      box.type = "checkbox";
      box.value = each.value;
      box.checked = Array.isArray(field.default) && field.default.includes(each.value);
      const wrap = el("label", "", ` ${each.label}`);
      wrap.prepend(box);
      group.append(wrap);
      return box;
    });
    row.append(group);
    return { row, input: boxes[0] ?? group, read: () => boxes.filter((box) => box.checked).map((box) => box.value) };
  }
  const input = el("input");
  input.id = id;
  if (field.type === "boolean") {
    input.type = "checkbox";
    input.checked = field.default === true;
    row.append(input);
    return { row, input, read: () => input.checked };
  }
  const numeric = field.type === "number" || field.type === "integer";
  input.type = numeric ? "number" : field.format === "email" ? "email" : field.format === "date" ? "date" : "text";
  if (field.type === "number") input.step = "any";
  if (field.default !== undefined) input.value = String(field.default);
  row.append(input);
  return {
    row,
    input,
    read: () => {
      if (input.value.trim() === "") return undefined;
      // A number that does not parse is sent as text: the server says what it must be.
      return numeric && Number.isFinite(Number(input.value)) ? Number(input.value) : input.value;
    },
  };
}

function option(value: string, label: string): HTMLOptionElement {
  const node = el("option", "", label);
  node.value = value;
  return node;
}
