import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ScriptedReply, startScriptedModel } from "@plugboard/scripted-model";
import { type ManyTool, manyTools } from "@plugboard/test-helpers";
import { type TSchema, Type } from "@sinclair/typebox";
import OpenAI from "openai";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { runAgentLoop } from "./agent-loop.ts";
import { type AuditRecord, type Hooks, type Policy, ToolRuntime, TOOL_SEARCH, type ToolSearchSettings } from "@plugboard/runtime";
import { type AnyToolDefinition, defineTool, textResult, ToolRegistry, Workspace } from "@plugboard/core";
import { SEARCH_RESULTS } from "./search-runtime.ts";

let root = "";
let workspace: Workspace;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "plugboard-tool-search-"));
  workspace = await Workspace.open(root);
});
afterAll(() => rm(root, { recursive: true, force: true }));

/** A generated tool as a TypeBox definition whose handler says what it was called with. */
function definition(tool: ManyTool): AnyToolDefinition {
  const properties: Record<string, TSchema> = {};
  for (const [name, property] of Object.entries(tool.inputSchema.properties)) {
    const schema = property.type === "integer" ? Type.Integer() : Type.String();
    properties[name] = tool.inputSchema.required.includes(name) ? schema : Type.Optional(schema);
  }
  return defineTool({
    name: tool.name,
    description: tool.description,
    parameters: Type.Object(properties),
    handler: async (args) => textResult(`${tool.name} ran with ${JSON.stringify(args)}`),
  });
}

const TOOLS = manyTools(300).map(definition);

interface Recorded {
  readonly audit: AuditRecord[];
  readonly runtime: ToolRuntime;
}

function runtimeOf(tools: readonly AnyToolDefinition[], toolSearch?: ToolSearchSettings, policy?: Policy, hooks?: Hooks): Recorded {
  const audit: AuditRecord[] = [];
  const runtime = new ToolRuntime(new ToolRegistry(tools), {
    workspace,
    audit: (record) => audit.push(record),
    ...(toolSearch ? { toolSearch } : {}),
    ...(policy ? { policy } : {}),
    ...(hooks ? { hooks } : {}),
  });
  return { audit, runtime };
}

/** One turn of `messages` against a scripted model; returns what the model was sent. */
async function turn(runtime: ToolRuntime, script: readonly ScriptedReply[], messages: ChatCompletionMessageParam[] = [{ role: "user", content: "go" }]) {
  await using model = await startScriptedModel(script);
  const client = new OpenAI({ baseURL: model.baseURL, apiKey: "test", maxRetries: 0 });
  const result = await runAgentLoop({ messages, runtime, client, model: "m", maxSteps: 10 });
  const sent = model.requests.map((request) => (request.body.tools ?? []).map((tool) => (tool as { function: { name: string } }).function.name));
  return { result, sent, messages, requests: model.requests };
}

const toolContent = (messages: readonly ChatCompletionMessageParam[], id: string) => messages.find((m) => m.role === "tool" && m.tool_call_id === id)?.content;

describe("over searchOver tools", () => {
  test("the first request carries tool_search and the pinned tools only; a search by description finds the tool, which joins the next request and runs", async () => {
    const { runtime, audit } = runtimeOf(TOOLS, { searchOver: 64, pinned: ["slack_add_comment", "github_get_record"] });
    const { sent, messages, requests, result } = await turn(runtime, [
      { toolCalls: [{ id: "s1", name: TOOL_SEARCH, arguments: { query: "weather tomorrow rain" } }] },
      { toolCalls: [{ id: "c1", name: "sky_report", arguments: { city: "Paris" } }] },
      { content: "Rain." },
    ]);
    expect(result.status).toBe("answered");
    // Pinned tools in registration order, after the search.
    expect(sent[0]).toEqual([TOOL_SEARCH, "github_get_record", "slack_add_comment"]);
    expect(toolContent(messages, "s1")).toStartWith('1 tool matches "weather tomorrow rain", callable from your next step:\n- sky_report: Tell tomorrow');
    expect(sent[1]).toEqual([TOOL_SEARCH, "github_get_record", "slack_add_comment", "sky_report"]);
    expect(toolContent(messages, "c1")).toBe('sky_report ran with {"city":"Paris"}');
    // The found tool's whole schema is sent, as without the search.
    const skyReport = (requests[1]?.body.tools ?? []).find((tool) => (tool as { function: { name: string } }).function.name === "sky_report");
    expect(skyReport).toEqual(runtime.registry.get("sky_report")?.schema);
    // The search is not a call of the app's tools: no audit line; the tool's call has one.
    expect(audit.map((record) => record.tool)).toEqual(["sky_report"]);
  });

  test("the first request's tools are a small part of every tool's", async () => {
    const { runtime } = runtimeOf(TOOLS);
    const all = runtimeOf(TOOLS, { searchOver: 300, pinned: [] }).runtime;
    const searched = await turn(runtime, [{ content: "hi" }]);
    const everyTool = await turn(all, [{ content: "hi" }]);
    expect(everyTool.sent[0]).toHaveLength(300);
    expect(searched.sent[0]).toEqual([TOOL_SEARCH]);
    expect(searched.requests[0]?.text.length ?? 0).toBeLessThan((everyTool.requests[0]?.text.length ?? 0) / 10);
  });

  test("a search lists at most SEARCH_RESULTS tools, best first, and says how many more matched", async () => {
    const { runtime } = runtimeOf(TOOLS);
    const { messages, sent } = await turn(runtime, [
      { toolCalls: [{ id: "s1", name: TOOL_SEARCH, arguments: { query: "archive a stripe payment" } }] },
      { content: "ok" },
    ]);
    const lines = String(toolContent(messages, "s1")).split("\n");
    expect(lines[0]).toMatch(/^\d+ tools match "archive a stripe payment"; the best 5, callable from your next step:$/);
    expect(lines[1]).toBe("- stripe_archive_record: Archive a record so it is hidden but kept in Stripe: payments, invoices and customers.");
    expect(lines).toHaveLength(SEARCH_RESULTS + 2);
    const total = Number(lines[0]?.split(" ")[0]);
    expect(lines.at(-1)).toBe(`${total - SEARCH_RESULTS} more matched; search with more specific words to narrow them down.`);
    expect(sent[1]).toHaveLength(1 + SEARCH_RESULTS);
  });

  test("a search that matches nothing says so; an empty query is invalid arguments", async () => {
    const { runtime } = runtimeOf(TOOLS);
    const { messages, sent } = await turn(runtime, [
      {
        toolCalls: [
          { id: "s1", name: TOOL_SEARCH, arguments: { query: "quasar telescope" } },
          { id: "s2", name: TOOL_SEARCH, arguments: { query: "" } },
          { id: "s3", name: TOOL_SEARCH, arguments: { query: "x", limit: 3 } },
        ],
      },
      { content: "ok" },
    ]);
    expect(toolContent(messages, "s1")).toBe('No tool matches "quasar telescope". Try other words: what the tool does, or part of its name.');
    expect(toolContent(messages, "s2")).toStartWith("Error: Invalid arguments for tool_search: query: ");
    expect(toolContent(messages, "s3")).toStartWith("Error: Invalid arguments for tool_search: limit: ");
    expect(sent[1]).toEqual([TOOL_SEARCH]);
  });

  test("an enabled tool called without a search runs and joins the list (names read as the runtime reads them); a name no tool has points to the search", async () => {
    const { runtime } = runtimeOf(TOOLS);
    const { messages, sent } = await turn(runtime, [
      {
        toolCalls: [
          { id: "c1", name: "redis_count_records", arguments: { filter: "a*" } },
          { id: "c2", name: "redis_flush_everything", arguments: {} },
          { id: "c3", name: "Sky-Report", arguments: { city: "Rome" } },
          { id: "s1", name: "Tool-Search", arguments: { query: "jira_add_label" } },
        ],
      },
      { content: "ok" },
    ]);
    expect(toolContent(messages, "c1")).toBe('redis_count_records ran with {"filter":"a*"}');
    expect(toolContent(messages, "c2")).toBe("Error: Unknown tool: redis_flush_everything (find the tools you need with tool_search)");
    // Names off only by case or -/_ are the tool's, as the runtime reads them.
    expect(toolContent(messages, "c3")).toBe('sky_report ran with {"city":"Rome"}');
    expect(toolContent(messages, "s1")).toStartWith('1 tool matches "jira_add_label"');
    expect(sent[1]).toEqual([TOOL_SEARCH, "jira_add_label", "sky_report", "redis_count_records"]);
  });

  test("found tools stay for the conversation (its messages array), and a new conversation starts from the pinned ones", async () => {
    const { runtime } = runtimeOf(TOOLS, { searchOver: 64, pinned: ["jira_add_label"] });
    const first = await turn(runtime, [{ toolCalls: [{ id: "s1", name: TOOL_SEARCH, arguments: { query: "sky_report" } }] }, { content: "found" }]);
    first.messages.push({ role: "user", content: "and now?" });
    const again = await turn(runtime, [{ content: "still here" }], first.messages);
    expect(again.sent[0]).toEqual([TOOL_SEARCH, "jira_add_label", "sky_report"]);
    const fresh = await turn(runtime, [{ content: "new" }]);
    expect(fresh.sent[0]).toEqual([TOOL_SEARCH, "jira_add_label"]);
  });

  test("the policy never sees tool_search: with every call denied, the search still answers and the found tool is denied", async () => {
    const { runtime, audit } = runtimeOf(TOOLS, undefined, { default: "deny", rules: [] });
    const { messages } = await turn(runtime, [
      { toolCalls: [{ id: "s1", name: TOOL_SEARCH, arguments: { query: "tomorrow's weather" } }] },
      { toolCalls: [{ id: "c1", name: "sky_report", arguments: { city: "Oslo" } }] },
      { content: "denied" },
    ]);
    expect(toolContent(messages, "s1")).toContain("- sky_report: ");
    expect(toolContent(messages, "c1")).toBe("Error: Denied by policy: default");
    expect(audit.map(({ tool, decision }) => `${tool} ${decision}`)).toEqual(["sky_report deny"]);
  });

  test("no hook runs for tool_search: a before hook denying every call denies the found tool only", async () => {
    const deny = { command: ["sh", "-c", `echo '{"decision":"deny","reason":"not today"}'`], label: "./deny.sh", timeoutMs: 10_000, cwd: root };
    const { runtime } = runtimeOf(TOOLS, undefined, undefined, { before: [deny], after: [] });
    const { messages } = await turn(runtime, [
      { toolCalls: [{ id: "s1", name: TOOL_SEARCH, arguments: { query: "tomorrow's weather" } }] },
      { toolCalls: [{ id: "c1", name: "sky_report", arguments: { city: "Oslo" } }] },
      { content: "denied" },
    ]);
    expect(toolContent(messages, "s1")).toContain("- sky_report: ");
    expect(toolContent(messages, "c1")).toBe("Error: Denied by before hook ./deny.sh: not today");
  });
});

describe("at or below searchOver tools", () => {
  test("every tool is sent, as without the search, and tool_search is an unknown tool", async () => {
    const tools = TOOLS.slice(0, 64);
    const { runtime } = runtimeOf(tools);
    const { sent, messages } = await turn(runtime, [{ toolCalls: [{ id: "s1", name: TOOL_SEARCH, arguments: { query: "x" } }] }, { content: "ok" }]);
    expect(sent[0]).toEqual(tools.map(({ name }) => name));
    expect(sent[1]).toEqual(sent[0] ?? []);
    expect(String(toolContent(messages, "s1"))).toStartWith("Error: Unknown tool: tool_search (available: github_list_records, ");
  });

  test("searchOver 0 searches whatever the number of tools", async () => {
    const { runtime } = runtimeOf(TOOLS.slice(0, 3), { searchOver: 0, pinned: [] });
    expect((await turn(runtime, [{ content: "ok" }])).sent[0]).toEqual([TOOL_SEARCH]);
  });
});

describe("settings a registry cannot use", () => {
  test("a pinned name no tool has, a fractional searchOver, and a tool of its own named tool_search are refused", () => {
    const registry = new ToolRegistry(TOOLS.slice(0, 3));
    expect(() => new ToolRuntime(registry, { workspace, toolSearch: { searchOver: 64, pinned: ["nope"] } })).toThrow(
      "toolSearch.pinned names tools that are not registered: nope",
    );
    expect(() => new ToolRuntime(registry, { workspace, toolSearch: { searchOver: 1.5, pinned: [] } })).toThrow("toolSearch.searchOver must be a whole number, got 1.5");
    const own = defineTool({ name: TOOL_SEARCH, description: "mine", parameters: Type.Object({}), handler: async () => textResult("mine") });
    expect(() => new ToolRuntime(new ToolRegistry([own, ...TOOLS.slice(0, 3)]), { workspace, toolSearch: { searchOver: 2, pinned: [] } })).toThrow(
      "a registered tool is named tool_search, which the tool search would hide",
    );
    // Below the threshold it is an ordinary tool.
    expect(() => new ToolRuntime(new ToolRegistry([own]), { workspace })).not.toThrow();
  });
});
