/**
 * Suite 11 — tool search: what the model is sent with 500 mounted tools (a fixture MCP server
 * over stdio, mounted beside the five first-party plugins by a real config), with the search
 * on and with every tool sent, and what the search costs in model requests. A scripted model
 * stands in for the model: it searches with the first words of the wanted tool's description,
 * calls the tool when the search lists it (else searches again by its name), then answers.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type App, buildApp, loadConfig } from "@plugboard/bootstrap";
import type { RegisteredTool } from "@plugboard/core";
import { runAgentLoop } from "@plugboard/agent";
import { TOOL_SEARCH, ToolRuntime, type ToolSearchSettings } from "@plugboard/runtime";
import { type RecordedRequest, type ScriptedModel, type StaticReply, startScriptedModel } from "@plugboard/testing";
import OpenAI from "openai";
import type { FigureLog } from "../harness/figures.ts";
import { dialects } from "./dialects.ts";
import type { RunMode } from "../harness/mode.ts";
import { REPO_ROOT } from "../harness/paths.ts";
import { withTempDir } from "../harness/temp.ts";

/** The group's name in every report. */
export const TOOL_SEARCH_GROUP = "Tool search, 500 mounted tools";

const SERVER = join(REPO_ROOT, "apps/cli/test/fixtures/many-tools-server/server.ts");
const FIRST_PARTY = [
  ["bash", ["process.spawn", "fs.read", "fs.write"]],
  ["read-file", ["fs.read"]],
  ["write-file", ["fs.write"]],
  ["edit-file", ["fs.read", "fs.write"]],
  ["glob", ["fs.read"]],
] as const;
const PINNED = ["bash", "read_file", "write_file", "edit_file", "glob"];
const SYSTEM = "You are a coding agent working in the folder /home/me/project. Use the tools to inspect and change files there; act rather than explain, and answer briefly.";
const STOP_WORDS = new Set(["a", "an", "and", "the", "to", "of", "for", "in", "on", "by", "it", "so", "is", "but"]);

/** Measures the first request's bytes three ways and the requests a found tool costs. */
export async function toolSearch(mode: RunMode, log: FigureLog): Promise<void> {
  await withTempDir("tool-search", async (dir) => {
    const app = await mountedApp(dir);
    await using model = await startScriptedModel();
    const client = new OpenAI({ baseURL: model.baseURL, apiKey: "bench", maxRetries: 0 });
    try {
      const runtimes = {
        all: runtimeWith(app, { searchOver: app.registry.size, pinned: [] }),
        pinned: app.runtime,
        bare: runtimeWith(app, { searchOver: 64, pinned: [] }),
      };
      mode.progress(`tool-search: the first request with ${app.registry.size} tools, three ways`);
      const bytes = (name: string, value: number, note: string) => log.add({ group: TOOL_SEARCH_GROUP, name, value, unit: "bytes", note });
      const firstRequest = async (runtime: ToolRuntime) => {
        model.enqueue({ content: "ok" });
        const before = model.requests.length;
        await runAgentLoop({ messages: conversation(), runtime, client, model: "m", maxSteps: 1 });
        return byteLength(model.requests[before]);
      };
      const all = bytes(`first request, every tool sent (${app.registry.size} tools)`, await firstRequest(runtimes.all), `"tools.searchOver": ${app.registry.size}`);
      const pinned = bytes("first request, tool_search and the five first-party tools pinned", await firstRequest(runtimes.pinned), `"tools": { "pinned": [the five] }`);
      const bare = bytes("first request, tool_search alone", await firstRequest(runtimes.bare), "nothing pinned");
      log.ratio(TOOL_SEARCH_GROUP, "first request: search, five pinned / every tool", pinned, all, { op: "<=", limit: 0.1 });
      log.ratio(TOOL_SEARCH_GROUP, "first request: tool_search alone / every tool", bare, all);

      const mounted = app.registry.names().filter((name) => !PINNED.includes(name));
      const wanted = mode.quick ? mounted.filter((_, index) => index % 5 === 0) : mounted;
      mode.progress(`tool-search: ${wanted.length} one-tool turns with the search for each of two kinds of query, 10 without`);
      const direct = await turns(model, client, runtimes.all, wanted.filter((_, index) => index % Math.ceil(wanted.length / 10) === 0), directModel);
      const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
      const count = (name: string, value: number, unit: string, note?: string) => log.add({ group: TOOL_SEARCH_GROUP, name, value, unit, ...(note ? { note } : {}) });
      const directRequests = count("model requests of a one-tool turn, every tool sent", mean(direct.map((turn) => turn.requests)), "requests", "call the tool, then answer");
      count("bytes sent in a one-tool turn, every tool sent", mean(direct.map((turn) => turn.bytes)), "bytes", "every request of the turn, summed");
      for (const [kind, query] of QUERIES) {
        const searched = await turns(model, client, runtimes.pinned, wanted, searchingModel(query));
        const requests = mean(searched.map((turn) => turn.requests));
        count(`${kind}: model requests of a one-tool turn`, requests, "requests", `mean over ${searched.length} turns, one per mounted tool; the five first-party tools pinned`);
        count(`${kind}: extra model requests per found tool`, requests - directRequests, "requests", "the first time a tool is needed in a conversation: a found tool stays");
        count(`${kind}: found by the first search (in its five results)`, (100 * searched.filter((turn) => turn.searches === 1).length) / searched.length, "%", "else the model searches again by the tool's name");
        count(`${kind}: listed first by the first search`, (100 * searched.filter((turn) => turn.firstListed).length) / searched.length, "%");
        count(`${kind}: bytes sent in a one-tool turn`, mean(searched.map((turn) => turn.bytes)), "bytes", "every request of the turn, summed, searches included");
      }
      await dialects(app, model, client, mode, log);
    } finally {
      await app.close();
    }
  });
}

/** The app of a config mounting the server (500 tools) beside the five first-party plugins, five pinned. */
async function mountedApp(dir: string): Promise<App> {
  const plugins = [
    ...FIRST_PARTY.map(([folder, permissions]) => ({ path: join(REPO_ROOT, "plugins", folder), permissions })),
    { mcp: { command: process.execPath, args: [SERVER, "500"] }, name: "many" },
  ];
  const path = join(dir, "plugboard.config.json");
  await writeFile(path, JSON.stringify({ workspace: ".", sandbox: "off", tools: { pinned: PINNED }, plugins }));
  return buildApp(await loadConfig(path, { env: {}, cwd: dir }));
}

function runtimeWith(app: App, toolSearch: ToolSearchSettings): ToolRuntime {
  return new ToolRuntime(app.registry, { workspace: app.workspace, toolSearch });
}

function conversation() {
  return [
    { role: "system" as const, content: SYSTEM },
    { role: "user" as const, content: "Do what the task needs." },
  ];
}

interface Turn {
  readonly requests: number;
  readonly bytes: number;
  readonly searches: number;
  readonly firstListed: boolean;
}

/** A scripted model's answer to a request of a turn that needs `tool`. */
type Player = (tool: RegisteredTool, request: RecordedRequest) => StaticReply;

/** What the scripted model's replies read: the turn's tool and how the model plays. */
const current: { tool: RegisteredTool | undefined; play: Player } = { tool: undefined, play: directModel };

/** One turn per tool of `names`, each a fresh conversation; the model's replies come from `play`. */
async function turns(model: ScriptedModel, client: OpenAI, runtime: ToolRuntime, names: readonly string[], play: Player): Promise<Turn[]> {
  const done: Turn[] = [];
  current.play = play;
  for (const name of names) {
    const tool = runtime.registry.get(name);
    if (tool === undefined) throw new Error(`${name} is not mounted`);
    current.tool = tool;
    const before = model.requests.length;
    // Replies a turn does not use answer the next turn's first requests: each reads `current`.
    while (model.pending < 4) model.enqueue((request) => (current.tool ? current.play(current.tool, request) : { content: "no tool" }));
    const result = await runAgentLoop({ messages: conversation(), runtime, client, model: "m", maxSteps: 4 });
    if (result.text !== `done with ${name}`) throw new Error(`the turn for ${name} ended ${result.status}: ${result.text}`);
    const requests = model.requests.slice(before);
    const searches = requests.filter((request) => lastCall(request) === TOOL_SEARCH).length;
    const firstSearch = requests.find((request) => lastCall(request) === TOOL_SEARCH);
    const firstListed = firstSearch !== undefined && lastResult(firstSearch).split("\n")[1]?.startsWith(`- ${name}: `) === true;
    done.push({ requests: requests.length, bytes: requests.reduce((sum, request) => sum + byteLength(request), 0), searches, firstListed });
  }
  return done;
}

/**
 * Searches with `query` of the tool's description; calls the tool once a search lists it,
 * else searches again by its name (which a search result or the task may have named); then answers.
 */
function searchingModel(query: (description: string) => string): Player {
  return (tool, request) => {
    const last = lastCall(request);
    if (last === tool.tool.name) return { content: `done with ${tool.tool.name}` };
    if (last === TOOL_SEARCH && lastResult(request).includes(`\n- ${tool.tool.name}: `)) return callOf(tool);
    return { toolCalls: [{ name: TOOL_SEARCH, arguments: { query: last === undefined ? query(tool.tool.description) : tool.tool.name } }] };
  };
}

/** Every tool is in its list: calls the tool, then answers. */
function directModel(tool: RegisteredTool, request: RecordedRequest): StaticReply {
  return lastCall(request) === tool.tool.name ? { content: `done with ${tool.tool.name}` } : callOf(tool);
}

function callOf(tool: RegisteredTool): StaticReply {
  const parameters = tool.schema.function.parameters as { properties?: Record<string, { type?: string }>; required?: string[] };
  const args = Object.fromEntries((parameters.required ?? []).map((name) => [name, parameters.properties?.[name]?.type === "integer" ? 1 : "x"]));
  return { toolCalls: [{ name: tool.tool.name, arguments: args }] };
}

/** The two kinds of query the scripted model searches with, from the wanted tool's description. */
const QUERIES: readonly (readonly [string, (description: string) => string])[] = [
  // What the tool does, in the description's words: "Fetch one record its id Discord".
  ["query: the description's lead clause", (description) => meaningful(description.split(/[:.]/)[0] ?? "").join(" ")],
  // Five words that may leave out what tells tools apart: "Fetch one record its id" (which service?).
  ["query: the description's first five words", (description) => meaningful(description).slice(0, 5).join(" ")],
];

function meaningful(text: string): string[] {
  return text.split(/[^\p{L}\p{N}']+/u).filter((word) => word !== "" && !STOP_WORDS.has(word.toLowerCase()));
}

/** The name of the last tool the conversation called, if any. */
function lastCall(request: RecordedRequest): string | undefined {
  const calls = (request.body.messages ?? []).flatMap((message) => message.tool_calls ?? []);
  return calls.at(-1)?.function?.name;
}

function lastResult(request: RecordedRequest): string {
  return String((request.body.messages ?? []).filter((message) => message.role === "tool").at(-1)?.content ?? "");
}

function byteLength(request: RecordedRequest | undefined): number {
  return Buffer.byteLength(request?.text ?? "");
}
