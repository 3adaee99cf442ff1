/** A runtime over a temp workspace holding the five real tools, as the CLI builds them. */
import { Workspace } from "@plugboard/core";
import { ToolRuntime } from "@plugboard/runtime";
import { realRegistry } from "../dispatch/real-tools.ts";

/** Opens `folder` as the workspace and builds the runtime of the five tools over it. */
export async function toolRuntime(folder: string): Promise<ToolRuntime> {
  const workspace = await Workspace.open(folder);
  return new ToolRuntime(realRegistry(workspace), { workspace });
}

/** Runs one tool call and throws on an error result, returning the text. */
export async function callTool(runtime: ToolRuntime, name: string, args: Record<string, unknown>): Promise<string> {
  const result = await runtime.execute(name, JSON.stringify(args));
  if (result.isError) throw new Error(`${name} failed: ${result.content.slice(0, 300)}`);
  return result.content;
}
