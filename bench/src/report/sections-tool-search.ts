/** BENCHMARKS.md section 11 (tool search): what exactly is measured, and a reading of the figures. */
import { formatNumber as n } from "../harness/format.ts";
import { DIALECTS_GROUP } from "../tool-search/dialects.ts";
import { TOOL_SEARCH_GROUP } from "../tool-search/tool-search.ts";
import type { FigureIndex } from "./lookup.ts";
import type { Section } from "./section.ts";

const LEAD = "query: the description's lead clause";
const FIVE = "query: the description's first five words";

const toolSearchSection: Section = {
  title: "11. Tool search",
  groups: [TOOL_SEARCH_GROUP],
  measured: () =>
    [
      "A config mounts a fixture MCP server over stdio with 500 tools (25 services × 20 operations and one tool",
      "found only by its description, `apps/cli/test/fixtures/many-tools-server`) beside the five first-party plugins:",
      "505 tools, built by `buildApp` as every app does. Bytes are the UTF-8 length of the request body the scripted",
      "model received, for a conversation of the CLI's system message and one user message: with every tool sent",
      '(`"tools.searchOver": 505`), with the search on and the five first-party tools pinned, and with `tool_search`',
      "alone. Then one turn per mounted tool (a fresh conversation each), the scripted model playing a model that",
      "needs that tool: it searches with words of the tool's description, calls the tool when the search lists it",
      "(else searches again by the tool's name), then answers; against the same turn with every tool sent, where it",
      "calls the tool at once (10 turns). Two kinds of query: the description's lead clause (what the tool does, as",
      "a model would paraphrase it) and its first five words (which often leave out the service that tells tools",
      "apart). These figures count bytes and requests: they do not depend on the machine. `bun run --cwd bench",
      "tool-search` refreshes this section alone.",
    ].join(" "),
  reading: (index: FigureIndex) => {
    const value = (name: string) => index.value(TOOL_SEARCH_GROUP, name);
    const all = value("first request, every tool sent");
    const pinned = value("first request, tool_search and the five");
    const paragraphs = [
      `With 505 tools, the first request carries ${n(all)} bytes when every tool is sent and ${n(pinned)} bytes with the search and the five first-party tools pinned (${n((100 * pinned) / all)}%; \`tool_search\` alone: ${n(value("first request, tool_search alone"))} bytes). Every later request of the turn sends the tools again, so a one-tool turn sends ${n(value("bytes sent in a one-tool turn, every tool sent"))} bytes with every tool and ${n(value(`${LEAD}: bytes sent`))} with the search, its extra request included.`,
      `The price is model requests: a search is one more request, ${n(value(`${LEAD}: extra model requests`))} per found tool when the query says what the tool does (the tool was listed first by ${n(value(`${LEAD}: listed first`))}% of the first searches), ${n(value(`${FIVE}: extra model requests`))} with five words that may not name the service (${n(value(`${FIVE}: found by the first search`))}% found by the first search, the rest by a second one, by name). A found tool stays for the conversation, so it costs that request once per session in the CLI, once per turn in the web chat; a model that needs several tools searches once for each, or once for tools a single query describes. Against a model request's latency and price per input token, one request of about ${n(value(`${LEAD}: bytes sent`) / 3 / 1000)} KB buys back ${n(all / 1000)} KB on every request.`,
    ];
    if (index.missed(TOOL_SEARCH_GROUP, "first request: search, five pinned / every tool")) {
      paragraphs.push(`**Missed: the first request within 10% of sending every tool**: ${n((100 * pinned) / all)}%.`);
    }
    return paragraphs;
  },
};

const dialectsSection: Section = {
  title: "11b. Schema dialects with 500 mounted tools",
  groups: [DIALECTS_GROUP],
  measured: () =>
    [
      "The same 505 tools. At start: core's `rewriteSchema` over every tool's parameters (as written, additionalProperties",
      "closed) for `gemini` and for `openai-strict`, as the registry does once per tool when an app starts in that dialect",
      "(batched by mitata). Per request: one model request with every tool sent (no search) to the scripted model over",
      "loopback, from a registry in `gemini` and one in `openai`, sampled in turns so load hits both alike.",
    ].join(" "),
  reading: (index: FigureIndex) => {
    const value = (name: string) => index.value(DIALECTS_GROUP, name);
    const paragraphs = [
      `Rewriting the 505 schemas takes ${n(value("rewrite of 505 tools' schemas at start, gemini"))} ms for gemini and ${n(value("rewrite of 505 tools' schemas at start, openai-strict"))} ms for openai-strict, once, at start (target ≤ 5 ms). A request costs the same in either dialect (gemini / openai: ${n(value("a model request, gemini / openai"))}×): the tools it sends were rewritten when the registry was built, and nothing is rewritten per request.`,
    ];
    for (const dialect of ["gemini", "openai-strict"]) {
      if (index.missed(DIALECTS_GROUP, `rewrite of 505 tools' schemas at start, ${dialect}`)) paragraphs.push(`**Missed: the ${dialect} rewrite within 5 ms at start.**`);
    }
    return paragraphs;
  },
};

/** Sections 11 and 11b. */
export const TOOL_SEARCH_SECTIONS: readonly Section[] = [toolSearchSection, dialectsSection];
