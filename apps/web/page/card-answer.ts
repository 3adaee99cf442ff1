/**
 * The answer side of a card that asks the person (a grant, a server's question): while an
 * answer is sent the card's buttons are disabled; once taken, the card says what was chosen;
 * refused or failed, the buttons come back and the card shows the problem. A turn that ends
 * first says so on the card instead: whichever comes first, the answer or the end, stays.
 */
import { el } from "./dom.ts";

/** The card's problem line (to place in it), and its two ways to settle. */
export interface CardAnswer<A> {
  /** Hidden until an answer is refused or fails; read out when shown. */
  readonly problem: HTMLParagraphElement;
  /** Sends `value`; once taken, the card says `said`. */
  answer(value: A, said: string): void;
  /** The turn ended before an answer: the card says `said`. */
  stop(said: string): void;
}

/** Answers for `card` through `send`, disabling `buttons` meanwhile; a problem is shown after `prefix`. */
export function cardAnswer<A>(card: HTMLElement, buttons: readonly HTMLButtonElement[], send: (value: A) => Promise<void>, prefix = ""): CardAnswer<A> {
  const problem = el("p", "elicitation-problems");
  problem.setAttribute("role", "alert");
  problem.hidden = true;
  let settled = false;
  const settle = (said: string) => {
    if (settled) return;
    settled = true;
    card.replaceChildren(el("p", "elicitation-sent", said));
  };
  const answer = (value: A, said: string) => {
    for (const each of buttons) each.disabled = true;
    send(value).then(
      () => settle(said),
      (error: unknown) => {
        if (settled) return;
        for (const each of buttons) each.disabled = false;
        problem.hidden = false;
        problem.textContent = `${prefix}${error instanceof Error ? error.message : String(error)}`;
      },
    );
  };
  return { problem, answer, stop: settle };
}
