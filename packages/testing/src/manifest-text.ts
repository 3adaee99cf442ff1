/**
 * A manifest's text with its `"tools"` replaced and every other byte kept: the top-level members
 * of the JSON object are found by a scan that skips strings and nested values, and only the
 * span of the `"tools"` value changes (or a member is added after `"entry"`), written in the
 * file's own indentation and line ending.
 */

/** Where a top-level member's value lies in the text. */
interface Member {
  readonly key: string;
  readonly start: number;
  readonly end: number;
}

/**
 * `text` (a JSON object) with `value` as its `"tools"`: in place of the old value, or added
 * after `"entry"` (else last) when missing.
 *
 * @example withTools('{\n  "entry": "./src/index.ts"\n}\n', [{ name: "echo", description: "Echo." }])
 */
export function withTools(text: string, value: unknown): string {
  const unit = /^([ \t]+)"/m.exec(text)?.[1] ?? "  ";
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const indent = unit.includes("\t") ? "\t" : unit;
  const written = JSON.stringify(value, null, indent).replaceAll("\n", `${eol}${indent}`);
  const members = topLevelMembers(text);
  const tools = members.find((member) => member.key === "tools");
  if (tools) return `${text.slice(0, tools.start)}${written}${text.slice(tools.end)}`;
  const after = members.find((member) => member.key === "entry") ?? members.at(-1);
  if (after) return `${text.slice(0, after.end)},${eol}${indent}"tools": ${written}${text.slice(after.end)}`;
  const open = text.indexOf("{") + 1;
  return `${text.slice(0, open)}${eol}${indent}"tools": ${written}${eol}${text.slice(open).trimStart()}`;
}

/** The members of the object `text` holds (valid JSON), in order: each key and the span of its value. */
function topLevelMembers(text: string): Member[] {
  const members: Member[] = [];
  let at = skipSpace(text, 0);
  if (text[at] !== "{") return members;
  for (at = skipSpace(text, at + 1); text[at] === '"'; at = skipSpace(text, at)) {
    const keyEnd = stringEnd(text, at);
    const key = JSON.parse(text.slice(at, keyEnd)) as string;
    // Past the colon.
    const start = skipSpace(text, skipSpace(text, keyEnd) + 1);
    const end = valueEnd(text, start);
    members.push({ key, start, end });
    at = skipSpace(text, end);
    if (text[at] === ",") at++;
  }
  return members;
}

/** Just past the value that starts at `at`: a string, an object or array (whatever it nests), or a literal. */
function valueEnd(text: string, at: number): number {
  const first = text[at];
  if (first === '"') return stringEnd(text, at);
  if (first !== "{" && first !== "[") {
    let end = at;
    while (end < text.length && !/[\s,}\]]/.test(text[end] ?? "")) end++;
    return end;
  }
  let depth = 0;
  for (let index = at; index < text.length; index++) {
    const char = text[index];
    if (char === '"') index = stringEnd(text, index) - 1;
    else if (char === "{" || char === "[") depth++;
    else if ((char === "}" || char === "]") && --depth === 0) return index + 1;
  }
  return text.length;
}

/** Just past the closing quote of the string that opens at `at`. */
function stringEnd(text: string, at: number): number {
  for (let index = at + 1; index < text.length; index++) {
    if (text[index] === "\\") index++;
    else if (text[index] === '"') return index + 1;
  }
  return text.length;
}

function skipSpace(text: string, at: number): number {
  let index = at;
  while (index < text.length && /\s/.test(text[index] ?? "")) index++;
  return index;
}
