/**
 * What the model reads of a tool's parameter schema, for the description scan
 * (description-scan.ts): every `description` and `title`, every property's name, and every
 * string of a `default`, `examples`, `enum` or `const`, at any depth, within bounds (depth,
 * schemas, characters) so that no schema, however large or deep, stalls the read. Pure.
 */
import { MAX_SCHEMA_NODES } from "@plugboard/core/internal";

/** How much of a parameter schema is read: nesting levels, objects and arrays visited (and strings in defaults, examples and allowed values), characters of the texts read. */
export const SCHEMA_BOUNDS = { depth: 32, nodes: MAX_SCHEMA_NODES, chars: 200_000 } as const;

/** The characters of one text the patterns read: a longer one is flagged for its length anyway. */
export const SCANNED_CHARS = 20_000;

/** A description or title in a parameter schema, and where: `parameter options.mode`, `parameter tags[] (title)`, `parameters`. */
export interface SchemaText {
  readonly where: string;
  readonly text: string;
}

/** The keywords whose values are text the model reads as written: every string in them is scanned as a description is. */
const VALUE_KEYWORDS = new Set(["default", "examples", "enum", "const"]);

/**
 * Every `description` and `title` in `schema`, and every string in a `default`, `examples`,
 * `enum` or `const`, depth first, named by the property path that leads to it (`[]` for an
 * array's items; other keywords add nothing) and the keyword (`parameter mode (default)`);
 * `whole` is false when a bound stopped the walk. Each object is read once: a schema built with shared (or circular)
 * parts is not walked again.
 */
export function schemaTexts(schema: unknown): { texts: SchemaText[]; whole: boolean } {
  const texts: SchemaText[] = [];
  const seen = new Set<object>();
  let chars = 0;
  /** Strings read in keywords' values. */
  let strings = 0;
  let whole = true;
  /** Marks `node` as read; false when it was already, or when a bound is past (the walk then stops). */
  const enter = (node: object, depth: number): boolean => {
    if (seen.has(node)) return false;
    if (depth > SCHEMA_BOUNDS.depth || seen.size + strings >= SCHEMA_BOUNDS.nodes) {
      whole = false;
      return false;
    }
    seen.add(node);
    return true;
  };
  /** Keeps `text` to scan as `where`, unless the characters' bound is past (the walk then stops). */
  const read = (text: string, where: string): void => {
    // What the patterns read of it: a longer text is flagged for its length.
    chars += Math.min(text.length, SCANNED_CHARS);
    if (chars > SCHEMA_BOUNDS.chars) whole = false;
    else texts.push({ where, text });
  };
  /** Every string in a keyword's value (an example object's too, at any depth), within the bounds. */
  const values = (value: unknown, where: string, depth: number): void => {
    if (!whole) return;
    if (typeof value === "string") {
      // Each string counts as a schema does toward the bound: ten thousand tiny values cost what ten thousand schemas do.
      if (seen.size + ++strings > SCHEMA_BOUNDS.nodes) whole = false;
      else read(value, where);
      return;
    }
    if (typeof value !== "object" || value === null || !enter(value, depth)) return;
    for (const item of Array.isArray(value) ? value : Object.values(value)) values(item, where, depth + 1);
  };
  const walk = (node: unknown, path: string, depth: number): void => {
    if (!whole || typeof node !== "object" || node === null || !enter(node, depth)) return;
    if (Array.isArray(node)) {
      for (const item of node) walk(item, path, depth + 1);
      return;
    }
    const where = path === "" ? "parameters" : `parameter ${path}`;
    for (const [key, value] of Object.entries(node)) {
      if (!whole) return;
      if ((key === "description" || key === "title") && typeof value === "string") {
        read(value, key === "title" ? `${where} (title)` : where);
        continue;
      }
      // Values the model is shown as they are: a default, examples, the allowed values.
      if (VALUE_KEYWORDS.has(key)) {
        values(value, `${where} (${key})`, depth + 1);
        continue;
      }
      if (key === "properties" && typeof value === "object" && value !== null && !Array.isArray(value)) {
        if (seen.has(value)) continue;
        seen.add(value);
        // Key by key, not all of them listed first: a walk stopped by a bound reads no further.
        for (const name in value) {
          if (!whole) return;
          const at = path === "" ? name : `${path}.${name}`;
          // The model reads a parameter's name too: instructions moved out of the descriptions into names are found there.
          read(wordsOf(name), `parameter ${at} (name)`);
          walk(Reflect.get(value, name), at, depth + 1);
        }
        continue;
      }
      walk(value, key === "items" || key === "prefixItems" ? `${path}[]` : path, depth + 1);
    }
  };
  walk(schema, "", 0);
  return { texts, whole };
}

/**
 * A parameter's name as words: `_` and `-` read as spaces and a lower-case letter followed by
 * an upper-case one as a word's end (`ignore_previous_instructions`, `doNotTellTheUser`), so
 * that the patterns read a name as they read a sentence; invisible characters stay.
 */
function wordsOf(name: string): string {
  return name.replace(/[_-]+/g, " ").replace(/(\p{Ll})(\p{Lu})/gu, "$1 $2");
}
