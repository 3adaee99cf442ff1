/** The tool every MCP figure calls: a one-line echo, so only the protocol's cost is measured. */
import { tmpdir } from "node:os";
import { defineTool, textResult, Workspace, ToolRegistry } from "@plugboard/core";
import { ToolRuntime } from "@plugboard/runtime";
import { Type } from "@sinclair/typebox";

const echo = defineTool({
  name: "echo",
  description: "Repeat the text.",
  parameters: Type.Object({ text: Type.String() }),
  handler: async ({ text }) => textResult(text),
});

/** A runtime with only `echo`. */
export async function echoRuntime(): Promise<ToolRuntime> {
  return new ToolRuntime(new ToolRegistry([echo]), { workspace: await Workspace.open(tmpdir()) });
}
