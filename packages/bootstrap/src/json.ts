/**
 * JSON parsing that says where a syntax error is. `JSON.parse` in Bun names no position,
 * so on failure a small scanner walks the text again to find the line and column.
 */

/** The outcome of `parseJson`: the value, or where and why the text is not JSON. */
export type JsonResult =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly line: number; readonly column: number; readonly problem: string };

/**
 * Parses JSON text (a leading byte order mark is allowed).
 *
 * @example parseJson('{"a": x}') // { ok: false, line: 1, column: 7, problem: 'unexpected "x"' }
 */
export function parseJson(text: string): JsonResult {
  const source = text.startsWith("\uFEFF") ? text.slice(1) : text;
  try {
    return { ok: true, value: JSON.parse(source) };
  } catch (error) {
    const found = new Scanner(source).firstError();
    const offset = found?.offset ?? 0;
    const problem = found?.problem ?? (error instanceof Error ? error.message : String(error));
    const before = source.slice(0, offset).split("\n");
    return { ok: false, line: before.length, column: (before.at(-1)?.length ?? 0) + 1, problem };
  }
}

class SyntaxProblem {
  constructor(
    readonly offset: number,
    readonly problem: string,
  ) {}
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const LITERAL = /true|false|null/y;

/** A strict JSON recogniser; it only locates the first error. */
class Scanner {
  #at = 0;
  constructor(readonly text: string) {}

  firstError(): SyntaxProblem | undefined {
    try {
      this.value();
      this.space();
      if (this.#at < this.text.length) this.fail(`unexpected ${this.here()} after the end of the JSON value`);
      return undefined;
    } catch (error) {
      if (error instanceof SyntaxProblem) return error;
      throw error;
    }
  }

  private value(): void {
    this.space();
    const char = this.text[this.#at];
    if (char === "{") this.object();
    else if (char === "[") this.array();
    else if (char === '"') this.string();
    else if (!this.match(NUMBER) && !this.match(LITERAL)) this.fail(char === undefined ? "unexpected end of file, expected a value" : `unexpected ${this.here()}, expected a value`);
  }

  private object(): void {
    this.#at++;
    this.space();
    if (this.eat("}")) return;
    for (;;) {
      this.space();
      if (this.text[this.#at] !== '"') {
        const hint = this.text[this.#at] === "}" ? " (JSON allows no comma before })" : "";
        this.fail(`expected a property name in double quotes, found ${this.here()}${hint}`);
      }
      this.string();
      this.space();
      if (!this.eat(":")) this.fail(`expected ":" after the property name, found ${this.here()}`);
      this.value();
      this.space();
      if (this.eat("}")) return;
      if (!this.eat(",")) this.fail(`expected "," or "}", found ${this.here()}`);
    }
  }

  private array(): void {
    this.#at++;
    this.space();
    if (this.eat("]")) return;
    for (;;) {
      this.space();
      if (this.text[this.#at] === "]") this.fail("unexpected ] (JSON allows no comma before ])");
      this.value();
      this.space();
      if (this.eat("]")) return;
      if (!this.eat(",")) this.fail(`expected "," or "]", found ${this.here()}`);
    }
  }

  private string(): void {
    this.#at++;
    for (;;) {
      const char = this.text[this.#at];
      if (char === undefined) this.fail("unterminated string");
      if (char === '"') {
        this.#at++;
        return;
      }
      if (char === "\n" || char < " ") this.fail("unescaped line break or control character in a string");
      if (char === "\\") {
        const escaped = this.text[this.#at + 1] ?? "";
        const valid = escaped === "u" ? /^[0-9a-fA-F]{4}$/.test(this.text.slice(this.#at + 2, this.#at + 6)) : '"\\/bfnrt'.includes(escaped);
        if (!valid || escaped === "") this.fail("invalid escape sequence in a string");
        this.#at += escaped === "u" ? 6 : 2;
        continue;
      }
      this.#at++;
    }
  }

  private space(): void {
    while (/[ \t\r\n]/.test(this.text[this.#at] ?? "")) this.#at++;
  }

  private eat(char: string): boolean {
    if (this.text[this.#at] !== char) return false;
    this.#at++;
    return true;
  }

  private match(pattern: RegExp): boolean {
    pattern.lastIndex = this.#at;
    if (!pattern.test(this.text)) return false;
    this.#at = pattern.lastIndex;
    return true;
  }

  private here(): string {
    const char = this.text[this.#at];
    return char === undefined ? "end of file" : JSON.stringify(char);
  }

  private fail(problem: string): never {
    throw new SyntaxProblem(this.#at, problem);
  }
}
