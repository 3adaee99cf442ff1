/**
 * The runtime that answers `tool_search` (tool-search.ts loads it when a conversation's tools
 * are searched): one tool, whose call lists the best matches among the app's tools and has
 * them join the conversation's offer.
 */
import { Type } from "@sinclair/typebox";
import { defineTool, textResult, ToolRegistry } from "@plugboard/core";
import { ToolRuntime, TOOL_SEARCH } from "@plugboard/runtime";
import { rankTools } from "./tool-match.ts";
import type { ChatCompletionFunctionTool } from "openai/resources/chat/completions";

/** The most tools one search lists. */
export const SEARCH_RESULTS = 5;

/** A listed description is cut to this many characters; the whole one comes with the tool. */
const DESCRIPTION_CHARS = 240;

/**
 * A runtime holding only `tool_search`, so its call is parsed, validated and answered the
 * way every call is, but never reaches the app's policy, plugins or audit log.
 */
export function searchRuntime(runtime: ToolRuntime, join: (names: readonly string[]) => void, schemaOf: (name: string) => Readonly<ChatCompletionFunctionTool>): ToolRuntime {
  const { registry } = runtime;
  const tool = defineTool({
    name: TOOL_SEARCH,
    description:
      `Find the tool you need among the ${registry.size} enabled: only some of them are listed here. ` +
      "Search with a few words (what you want done, or a tool's or parameter's name); " +
      `up to ${SEARCH_RESULTS} matching tools are listed with their descriptions, and you can call them from your next step.`,
    parameters: Type.Object({ query: Type.String({ minLength: 1, description: "words to look for in the tools' names, descriptions and parameters" }) }),
    handler: async ({ query }) => {
      const ranked = rankTools(query, registry.names().map((name) => ({ name, schema: schemaOf(name) })));
      if (ranked.length === 0) return textResult(`No tool matches "${query}". Try other words: what the tool does, or part of its name.`);
      const shown = ranked.slice(0, SEARCH_RESULTS).map(({ tool }) => tool);
      join(shown.map(({ name }) => name));
      const lines = shown.map(({ name, schema }) => `- ${name}: ${cut(schema.function.description ?? "")}`);
      const more = ranked.length - shown.length;
      return textResult(
        [
          `${ranked.length} ${ranked.length === 1 ? "tool matches" : "tools match"} "${query}"${more > 0 ? `; the best ${shown.length}` : ""}, callable from your next step:`,
          ...lines,
          ...(more > 0 ? [`${more} more matched; search with more specific words to narrow them down.`] : []),
        ].join("\n"),
      );
    },
  });
  return new ToolRuntime(new ToolRegistry([{ tool, owner: "Plugboard" }], { dialect: registry.dialect }), { workspace: runtime.workspace, session: runtime.session });
}

function cut(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length <= DESCRIPTION_CHARS ? line : `${line.slice(0, DESCRIPTION_CHARS - 1).trimEnd()}…`;
}
