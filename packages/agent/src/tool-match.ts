/**
 * Ranking tools against a search: the words of a query matched against each tool's name,
 * parameter names and description. A word in the name counts most, then in a parameter's
 * name, then in the description; a word few tools have counts more than one most have
 * (inverse document frequency), so "forecast" outranks "get". Words match whole, or by a
 * shared beginning of four letters or more ("reading" finds "read", "issues" finds "issue").
 * A query made only of tool names finds exactly those tools.
 */
import type { ChatCompletionFunctionTool } from "openai/resources/chat/completions";

/** A tool as the search sees it. */
export interface Searchable {
  readonly name: string;
  readonly schema: ChatCompletionFunctionTool;
}

/** A matching tool and how well it matched. */
export interface Ranked<T extends Searchable> {
  readonly tool: T;
  readonly score: number;
}

/** Words that say nothing about which tool is meant. */
const STOP_WORDS = new Set(["a", "an", "and", "the", "to", "of", "for", "in", "on", "by", "with", "from", "or", "is", "it", "tool", "tools"]);

const FIELD_WEIGHTS = { name: 3, parameters: 2, description: 1 } as const;

/** A shared beginning this long or longer counts as a match, at this weight. */
const PREFIX = { length: 4, weight: 0.7 } as const;

/**
 * The tools matching `query`, best first; among equals, in their given order. A tool
 * matches when at least one word of the query does.
 *
 * @example rankTools("weather forecast", tools).slice(0, 5)
 */
export function rankTools<T extends Searchable>(query: string, tools: readonly T[]): Ranked<T>[] {
  const named = byName(query, tools);
  if (named.length > 0) return named.map((tool) => ({ tool, score: Number.POSITIVE_INFINITY }));
  const terms = queryTerms(query);
  if (terms.length === 0) return [];
  const fields = tools.map(fieldsOf);
  const matches = fields.map((tool) => terms.map((term) => bestMatch(term, tool)));
  const idf = terms.map((_, index) => {
    const having = matches.filter((tool) => (tool[index] ?? 0) > 0).length;
    return Math.log(1 + tools.length / (1 + having));
  });
  const ranked: Ranked<T>[] = [];
  for (const [index, tool] of tools.entries()) {
    let score = 0;
    for (const [term, match] of (matches[index] ?? []).entries()) score += match * (idf[term] ?? 0);
    if (score === 0) continue;
    ranked.push({ tool, score });
  }
  return ranked.sort((a, b) => b.score - a.score);
}

/** The tools a query names, when it is nothing but tool names (`sky_report`, `a_b, c_d`): those, in its order. */
function byName<T extends Searchable>(query: string, tools: readonly T[]): T[] {
  const names = query.split(/[\s,]+/).filter((name) => name !== "");
  const found = names.map((name) => tools.find((tool) => tool.name === name));
  return found.every((tool) => tool !== undefined) ? [...new Set(found)] : [];
}

/** The query's words, without repeats or stop words (all of them when only stop words remain). */
function queryTerms(query: string): string[] {
  const all = [...new Set(words(query))];
  const meaningful = all.filter((word) => !STOP_WORDS.has(word));
  return meaningful.length > 0 ? meaningful : all;
}

interface Fields {
  readonly name: ReadonlySet<string>;
  readonly parameters: ReadonlySet<string>;
  readonly description: ReadonlySet<string>;
}

/** Each schema's words, worked out on its first search. */
const indexed = new WeakMap<object, Fields>();

function fieldsOf({ schema }: Searchable): Fields {
  const known = indexed.get(schema);
  if (known !== undefined) return known;
  const { name, description = "", parameters = {} } = schema.function;
  const properties = typeof parameters.properties === "object" && parameters.properties !== null ? Object.keys(parameters.properties) : [];
  const fields = { name: new Set(words(name)), parameters: new Set(properties.flatMap(words)), description: new Set(words(description)) };
  indexed.set(schema, fields);
  return fields;
}

/** How well `term` matches the tool: the weight of the best field it appears in, 0 for none. */
function bestMatch(term: string, fields: Fields): number {
  let best = 0;
  for (const field of ["name", "parameters", "description"] as const) {
    const match = matchIn(term, fields[field]) * FIELD_WEIGHTS[field];
    if (match > best) best = match;
  }
  return best;
}

function matchIn(term: string, words: ReadonlySet<string>): number {
  if (words.has(term)) return 1;
  if (term.length < PREFIX.length) return 0;
  for (const word of words) {
    if (word.length >= PREFIX.length && (word.startsWith(term) || term.startsWith(word))) return PREFIX.weight;
  }
  return 0;
}

/** Lower-case words of `text`, split at anything but letters and digits and at camelCase humps. */
function words(text: string): string[] {
  return text
    .replace(/(\p{Ll})(\p{Lu})/gu, "$1 $2")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== "");
}
