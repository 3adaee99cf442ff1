/**
 * `plugboard tools`: every enabled tool as the model receives it, and over `tools.searchOver`
 * a line saying that the model is sent `tool_search` and the pinned tools instead; `--json`
 * prints exactly the `tools` array of a conversation's first request (those, over it). What the plugins and servers wrote
 * (names, descriptions, parameters) is shown with its control characters written out.
 */
import { visible } from "@plugboard/core/internal";
// Not the package's index, which brings the model client and the openai SDK: `tools` sends no request.
import { toolOffer } from "@plugboard/agent/tool-search";
import { TOOL_SEARCH } from "@plugboard/runtime";
import type { ChatCompletionFunctionTool } from "openai/resources/chat/completions";
import type { ParsedArgs } from "../args.ts";
import type { Io } from "../io.ts";
import { loadApp } from "../load-app.ts";

/** Prints the tools (the `tools` array itself with `--json`); returns the exit code. */
export async function toolsCommand(parsed: ParsedArgs, io: Io): Promise<number> {
  const app = await loadApp(parsed, io, { announceWorkspace: false });
  if (parsed.flags.json) {
    // What a new conversation's first request carries: the agent loop's own offer.
    await io.print(`${JSON.stringify((await toolOffer(app.runtime, [])).tools(), null, 2)}\n`);
    return 0;
  }
  const tools = app.runtime.schemas();
  if (tools.length === 0) {
    await io.print("No tools are enabled: add plugins to the config's plugins list.\n");
    return 0;
  }
  await io.print(`${visible(tools.map(describeTool).join("\n\n"))}\n`);
  const { searchOver, pinned } = app.runtime.toolSearch;
  if (tools.length > searchOver) {
    const kept = pinned.length === 0 ? "" : ` and the pinned tools (${visible(pinned.join(", "))})`;
    await io.print(`\n${tools.length} tools are enabled, more than tools.searchOver (${searchOver}): the model is sent ${TOOL_SEARCH}${kept}, and finds the others by searching.\n`);
  }
  return 0;
}

/** `name(required, optional?)` and the description below it. */
export function describeTool(tool: ChatCompletionFunctionTool): string {
  const { name, description = "", parameters = {} } = tool.function;
  const properties = Object.keys((parameters.properties as Record<string, unknown> | undefined) ?? {});
  const required = new Set(Array.isArray(parameters.required) ? parameters.required : []);
  const signature = properties.map((key) => (required.has(key) ? key : `${key}?`)).join(", ");
  return `${name}(${signature})\n  ${description}`;
}
