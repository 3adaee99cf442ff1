/**
 * The access token of a server started with one (`--token`, `PLUGBOARD_WEB_TOKEN`). The page
 * asks `GET /api/info` at load: when the server answers 401 the token field shows, says why
 * and takes the focus, before the first message; a token the server refuses is said to be
 * wrong, one it takes is said to be taken. Kept in the tab's session storage.
 */
import { fetchInfo, type PageInfo } from "./api.ts";
import { byId } from "./dom.ts";

const row = byId("token-row", HTMLDivElement);
const input = byId("token", HTMLInputElement);
const status = byId("token-status", HTMLParagraphElement);
const STORED = "plugboard-token";

/** What the page does with the server's answers. */
export interface TokenFieldHandlers {
  /** The server's info, each time it takes the token. */
  readonly onInfo: (info: PageInfo) => void;
  /** Enter in the field, and the server took the token: on to the message box. */
  readonly onTaken: () => void;
}

/** The token field and what the server last said of its token. */
export class TokenField {
  /** The server refused the token as it stands (none, or a wrong one): nothing is sent until it takes one. */
  refused = false;
  /** The token the server's last answer was about. */
  #checked: string | undefined;
  readonly #handlers: TokenFieldHandlers;

  constructor(handlers: TokenFieldHandlers) {
    this.#handlers = handlers;
    input.value = sessionStorage.getItem(STORED) ?? "";
    if (input.value) row.hidden = false;
    input.addEventListener("input", () => sessionStorage.setItem(STORED, input.value));
    // Leaving the field tries the token, and leaves the focus where the person took it.
    input.addEventListener("change", () => void this.check(false));
    input.addEventListener("keydown", (event) => {
      if (event.key !== "Enter") return;
      // Enter here tries the token; it never sends the message.
      event.preventDefault();
      void this.check(false).then((taken) => taken && this.#handlers.onTaken());
    });
  }

  get value(): string {
    return input.value;
  }

  /** Asks the server whether it takes the token and says so by the field (`focus`: a refusal takes the focus). True when taken. */
  async check(focus: boolean): Promise<boolean> {
    const token = input.value;
    if (token === this.#checked) return !this.refused;
    const answer = await fetchInfo(token);
    // A newer token was typed meanwhile: its own check says what counts.
    if (token !== input.value) return false;
    this.#checked = token;
    if (answer === "token") {
      this.refusedByServer(focus);
      return false;
    }
    if (this.refused) this.#say("Token accepted.", false);
    this.refused = false;
    if (answer !== undefined) this.#handlers.onInfo(answer);
    return true;
  }

  /** The server answered 401: the field shows and says what is wrong (`focus`: and takes the focus). */
  refusedByServer(focus = true): void {
    this.refused = true;
    this.#checked = input.value;
    row.hidden = false;
    if (input.value) this.#say("The server refused this token: check it (the one the server was started with, --token or PLUGBOARD_WEB_TOKEN).", true);
    else this.#say("This server requires an access token: enter it before your first message.", true);
    if (focus) this.focus();
  }

  focus(): void {
    input.focus();
  }

  #say(text: string, wrong: boolean): void {
    status.textContent = text;
    status.classList.toggle("error", wrong);
    input.setAttribute("aria-invalid", String(wrong && input.value !== ""));
  }
}
