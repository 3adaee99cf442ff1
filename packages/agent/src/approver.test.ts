import { afterAll, expect, test } from "bun:test";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineTool, textResult, ToolRegistry, Workspace } from "@plugboard/core";
import { type Approver, ToolRuntime } from "@plugboard/runtime";
import { startScriptedModel } from "@plugboard/scripted-model";
import { Type } from "@sinclair/typebox";
import OpenAI from "openai";
import { runAgentLoop } from "./agent-loop.ts";

const write = defineTool({
  name: "write_file",
  description: "Write.",
  parameters: Type.Object({ path: Type.String(), content: Type.String() }),
  handler: async ({ path }) => textResult(`Wrote ${path}`),
});

let root: string;
afterAll(() => rm(root, { recursive: true, force: true }));

test("the agent loop passes its approver to every call, and the model reads the refusal", async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "plugboard-approver-")));
  const runtime = new ToolRuntime(new ToolRegistry([write]), { workspace: await Workspace.open(root), policy: { default: "allow", rules: [{ tool: "write_file", args: { path: "ask/*" }, action: "ask" }] } });
  await using model = await startScriptedModel([
    { toolCalls: [{ id: "call_1", name: "write_file", arguments: { path: "ask/one", content: "x" } }] },
    { content: "done" },
  ]);
  const client = new OpenAI({ baseURL: model.baseURL, apiKey: "test", maxRetries: 0 });
  const asked: string[] = [];
  const approve: Approver = async (request) => {
    asked.push(request.id);
    return { decision: "deny", reason: "use notes/" };
  };
  const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [{ role: "user", content: "go" }];
  const result = await runAgentLoop({ messages, runtime, client, model: "m", maxSteps: 3, approve });
  expect(result.status).toBe("answered");
  expect(asked).toEqual(["call_1"]);
  expect(model.requests[1]?.body.messages?.at(-1)).toMatchObject({ role: "tool", tool_call_id: "call_1", content: "Error: Denied by the user: use notes/" });
});
