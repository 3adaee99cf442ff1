/**
 * Tool search: with more tools enabled than `searchOver`, a model request carries the
 * `tool_search` tool and the pinned tools instead of every tool. A search lists the matching
 * tools' names and descriptions (`tool-match.ts` ranks them), and those tools join the
 * requests that follow. A tool the model calls without searching for it (it knew the name)
 * runs like any call, validated and decided by the policy, and joins them too; a name no
 * tool has is answered with a pointer to the search, not the list of every name.
 *
 * The tools a conversation found stay with its messages array: the CLI keeps one array for a
 * whole session, so a tool found once stays offered for the session; the web chat builds one
 * per turn. `tool_search` is answered here, by a runtime of its own: it is never sent to a
 * plugin, no policy rule or hook applies to it (it only reads descriptions) and it has no
 * audit line.
 */
import { Type } from "@sinclair/typebox";
import type { ChatCompletionFunctionTool } from "openai/resources/chat/completions";
import { defineTool, type ToolResult, errorResult, textResult, ToolRegistry } from "@plugboard/core";
import type { FunctionCall } from "./model-turn.ts";
import { type PreparedCall, toolNamed, ToolRuntime, TOOL_SEARCH } from "@plugboard/runtime";
import { rankTools } from "./tool-match.ts";

/** The most tools one search lists. */
export const SEARCH_RESULTS = 5;

/** A listed description is cut to this many characters; the whole one comes with the tool. */
const DESCRIPTION_CHARS = 240;

/** What the agent loop asks of the tools a conversation is offered. */
export interface ToolOffer {
  /** The next request's `tools`: the same array until a tool joins it. */
  tools(): ChatCompletionFunctionTool[];
  /**
   * The result of a call the loop answers itself (`tool_search`, or a tool that does not
   * exist while searching), or undefined for a call the runtime runs. `prepared` is the call
   * as the app's runtime prepared it (its arguments read once).
   */
  answer(call: FunctionCall, prepared: PreparedCall): Promise<ToolResult> | undefined;
}

/** The tools found so far, by conversation (its messages array). */
const found = new WeakMap<object, Set<string>>();

/**
 * The offer of one conversation: every tool, as before, while there are at most `searchOver`;
 * else `tool_search`, the pinned tools and those found or called so far in `conversation`.
 *
 * @example const offer = toolOffer(runtime, messages); // then offer.tools() at each request
 */
export function toolOffer(runtime: ToolRuntime, conversation: object): ToolOffer {
  const { registry, toolSearch } = runtime;
  if (registry.size <= toolSearch.searchOver) {
    const all = runtime.schemas();
    return { tools: () => all, answer: () => undefined };
  }
  let offered = found.get(conversation);
  if (offered === undefined) {
    offered = new Set(toolSearch.pinned);
    found.set(conversation, offered);
  }
  const joined = offered;
  const search = searchRuntime(runtime, (names) => {
    for (const name of names) joined.add(name);
  });
  let tools: ChatCompletionFunctionTool[] = [];
  let sent = -1;
  return {
    tools() {
      if (sent === joined.size) return tools;
      sent = joined.size;
      tools = [...search.schemas(), ...registry.names().filter((name) => joined.has(name)).map((name) => structuredClone(registryTool(runtime, name)))];
      return tools;
    },
    answer(call, prepared) {
      // Named as the runtime names tools: exactly, or off only by case or -/_ (repair.ts).
      if (toolNamed(call.name, [TOOL_SEARCH]) !== undefined) {
        // Its own runtime knows no secrets: the app's takes them out of the answer.
        return search.execute(search.prepare(TOOL_SEARCH, call.arguments, prepared.reading), { callId: call.id }).then((result) => runtime.redacted(result));
      }
      if (prepared.registered !== undefined) {
        joined.add(prepared.registered.tool.name);
        return undefined;
      }
      return Promise.resolve(errorResult(`Unknown tool: ${call.name} (find the tools you need with ${TOOL_SEARCH})`));
    },
  };
}

/** A tool's schema as the model is sent it: searched, listed and offered with the app's secrets taken out. */
function registryTool(runtime: ToolRuntime, name: string): Readonly<ChatCompletionFunctionTool> {
  const schema = runtime.schema(name);
  if (schema === undefined) throw new Error(`${name} is not registered`);
  return schema;
}

/**
 * A runtime holding only `tool_search`, so its call is parsed, validated and answered the
 * way every call is, but never reaches the app's policy, plugins or audit log.
 */
function searchRuntime(runtime: ToolRuntime, join: (names: readonly string[]) => void): ToolRuntime {
  const { registry } = runtime;
  const tool = defineTool({
    name: TOOL_SEARCH,
    description:
      `Find the tool you need among the ${registry.size} enabled: only some of them are listed here. ` +
      "Search with a few words (what you want done, or a tool's or parameter's name); " +
      `up to ${SEARCH_RESULTS} matching tools are listed with their descriptions, and you can call them from your next step.`,
    parameters: Type.Object({ query: Type.String({ minLength: 1, description: "words to look for in the tools' names, descriptions and parameters" }) }),
    handler: async ({ query }) => {
      const ranked = rankTools(query, registry.names().map((name) => ({ name, schema: registryTool(runtime, name) })));
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
