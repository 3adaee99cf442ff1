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
import type { ChatCompletionFunctionTool } from "openai/resources/chat/completions";
import { errorResult, type ToolResult } from "@plugboard/core";
import { lazily } from "@plugboard/core/internal";
import type { FunctionCall } from "./model-turn.ts";
import { type PreparedCall, toolNamed, type ToolRuntime, TOOL_SEARCH } from "@plugboard/runtime";

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
 * @example const offer = await toolOffer(runtime, messages); // then offer.tools() at each request
 */
export async function toolOffer(runtime: ToolRuntime, conversation: object): Promise<ToolOffer> {
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
  // Loaded only when tools are searched: it brings TypeBox, which a start that lists or runs
  // every tool (`plugboard tools` among them) would otherwise parse for nothing.
  const { searchRuntime } = await lazily("the tool search", () => import("./search-runtime.ts"));
  const search = searchRuntime(
    runtime,
    (names) => {
      for (const name of names) joined.add(name);
    },
    (name) => registryTool(runtime, name),
  );
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
