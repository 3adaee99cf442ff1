#!/usr/bin/env bun
/**
 * A small third-party-style MCP server over stdio, built on the SDK, for the mount tests:
 * tools with plain JSON Schemas, listed two per page, one of each kind of content, a tool
 * that crashes its process, one that waits for cancellation and one that leaves a child.
 *
 * `FIXTURE_FAIL_START=1` makes it print to stderr and exit before answering anything.
 * `FIXTURE_BAD_SCHEMA=1` adds a tool whose input schema points at a definition it lacks.
 * `FIXTURE_HUGE_SCHEMA=N` adds `huge`, whose input schema has N properties.
 * `FIXTURE_STRUCTURED=1` adds tools with an output schema: `stats` answers it (and its JSON
 * as text), `stats_told` answers it with a sentence for the model, `stats_only` answers it without text, `stats_wrong` answers what it does not
 * allow, `stats_none` answers no structured content; `FIXTURE_BAD_OUTPUT=1` adds a tool whose
 * output schema cannot compile. `FIXTURE_ASK=1` adds `ask`, which asks the person to fill in
 * a form (elicitation) and answers what they did.
 * `FIXTURE_MARKER=FILE`: `slow` writes `cancelled` there when the client cancels it.
 * `ticking` runs `ms` and sends a progress notification every `every` ms meanwhile, when the
 * call asked for progress (a token).
 * `FIXTURE_EXIT_ON_UNKNOWN=1` makes it exit on a request it does not know (as servers on the
 * Rust SDK do before `initialize`), and count its starts in `FIXTURE_STARTS=FILE`.
 */
import { appendFileSync, writeFileSync } from "node:fs";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, type CallToolResult, ListToolsRequestSchema, type Tool } from "@modelcontextprotocol/sdk/types.js";

if (process.env.FIXTURE_FAIL_START === "1") {
  console.error("starting fixture server");
  console.error("boom: missing API token");
  process.exit(1);
}

const object = (properties: Record<string, object> = {}, required: string[] = []): Tool["inputSchema"] => ({
  type: "object",
  properties,
  required,
});

const TOOLS: Tool[] = [
  {
    name: "echo",
    description: "Echo the message.",
    inputSchema: object({ message: { type: "string" } }, ["message"]),
    annotations: { readOnlyHint: true },
  },
  { name: "fail", description: "Fail without the prefix.", inputSchema: object() },
  { name: "fail_prefixed", description: "Fail with the prefix.", inputSchema: object() },
  { name: "mixed", description: "One block of each content type.", inputSchema: object() },
  { name: "slow", description: "Wait until cancelled.", inputSchema: object({ ms: { type: "integer", minimum: 1 } }, ["ms"]) },
  {
    name: "ticking",
    description: "Run ms milliseconds, telling progress every `every` ms.",
    inputSchema: object({ ms: { type: "integer", minimum: 1 }, every: { type: "integer", minimum: 1 } }, ["ms", "every"]),
  },
  { name: "crash", description: "Exit the server process mid-call.", inputSchema: object() },
  { name: "spawn_child", description: "Start a long-lived child process; returns its pid.", inputSchema: object() },
  { name: "pid", description: "The server's process id.", inputSchema: object() },
  { name: "dotted.name", description: "A name the model could not use as is.", inputSchema: object() },
];

if (process.env.FIXTURE_HUGE_SCHEMA !== undefined) {
  const count = Number(process.env.FIXTURE_HUGE_SCHEMA);
  TOOLS.push({ name: "huge", description: "Takes many fields.", inputSchema: object(Object.fromEntries(Array.from({ length: count }, (_, i) => [`f${i}`, { type: "string" }]))) });
}

if (process.env.FIXTURE_BAD_SCHEMA === "1") {
  TOOLS.push({ name: "broken", description: "Its schema cannot compile.", inputSchema: object({ a: { $ref: "#/$defs/missing" } }) });
}

if (process.env.FIXTURE_STRUCTURED === "1") {
  const outputSchema = { type: "object" as const, properties: { count: { type: "integer" }, names: { type: "array", items: { type: "string" } } }, required: ["count"] };
  for (const name of ["stats", "stats_told", "stats_only", "stats_wrong", "stats_none"]) {
    TOOLS.push({ name, description: `Counts, as structured output (${name}).`, inputSchema: object(), outputSchema });
  }
}
if (process.env.FIXTURE_BAD_OUTPUT === "1") {
  TOOLS.push({ name: "odd_output", description: "Its output schema cannot compile.", inputSchema: object(), outputSchema: { type: "object", properties: { a: { $ref: "#/$defs/missing" } } } });
}

if (process.env.FIXTURE_ASK === "1") TOOLS.push({ name: "ask", description: "Asks the person for their name and colour.", inputSchema: object() });

const STATS = { count: 2, names: ["a", "b"] };

const text = (value: string): CallToolResult => ({ content: [{ type: "text", text: value }] });

const mcp = new McpServer({ name: "fixture", version: "1.0.0" }, { capabilities: { tools: {} } });
mcp.server.setRequestHandler(ListToolsRequestSchema, ({ params }) => {
  const start = Number(params?.cursor ?? 0);
  const next = start + 2;
  return { tools: TOOLS.slice(start, next), ...(next < TOOLS.length ? { nextCursor: String(next) } : {}) };
});
mcp.server.setRequestHandler(CallToolRequestSchema, async ({ params }, extra): Promise<CallToolResult> => {
  const args = params.arguments ?? {};
  switch (params.name) {
    case "echo":
      return text(String(args.message));
    case "fail":
      return { content: [{ type: "text", text: "it broke" }], isError: true };
    case "fail_prefixed":
      return { content: [{ type: "text", text: "Error: already said" }], isError: true };
    case "mixed":
      return {
        content: [
          { type: "text", text: "caption" },
          { type: "image", data: "aGVsbG8=", mimeType: "image/png" },
          { type: "audio", data: "aGk=", mimeType: "audio/wav" },
          { type: "resource", resource: { uri: "file:///notes.txt", mimeType: "text/plain", text: "note text" } },
          { type: "resource", resource: { uri: "file:///blob.bin", blob: "AAAA" } },
          { type: "resource_link", uri: "file:///linked.md", name: "linked.md" },
        ],
      };
    case "slow":
      return await new Promise((resolve) => {
        const timer = setTimeout(() => resolve(text("finished")), Number(args.ms));
        extra.signal.addEventListener("abort", () => {
          clearTimeout(timer);
          if (process.env.FIXTURE_MARKER) writeFileSync(process.env.FIXTURE_MARKER, "cancelled");
          resolve(text("cancelled"));
        });
      });
    case "ticking": {
      const token = params._meta?.progressToken;
      const started = Date.now();
      let step = 0;
      const timer = setInterval(() => {
        step += 1;
        if (token !== undefined) void extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress: step, message: `step ${step}` } });
      }, Number(args.every));
      await Bun.sleep(Number(args.ms));
      clearInterval(timer);
      return text(`ran ${Date.now() - started} ms, ${step} steps`);
    }
    case "crash":
      console.error("fixture server crashing on purpose");
      process.exit(3);
      break;
    case "spawn_child":
      return text(String(Bun.spawn(["sleep", "300"], { stdio: ["ignore", "ignore", "ignore"] }).pid));
    case "pid":
      return text(String(process.pid));
    case "stats":
      return { content: [{ type: "text", text: JSON.stringify(STATS, null, 2) }], structuredContent: STATS };
    case "stats_told":
      return { content: [{ type: "text", text: "Two names: a and b." }], structuredContent: STATS };
    case "stats_only":
      return { content: [], structuredContent: STATS };
    case "stats_wrong":
      return { content: [{ type: "text", text: "three" }], structuredContent: { count: "three", names: [1] } };
    case "stats_none":
      return text("2 things");
    case "ask": {
      const answer = await mcp.server.elicitInput({
        message: "Who are you?",
        requestedSchema: {
          type: "object",
          properties: { name: { type: "string", title: "Name" }, color: { type: "string", enum: ["red", "green"] } },
          required: ["name"],
        },
      });
      return text(answer.action === "accept" ? `accept ${JSON.stringify(answer.content)}` : answer.action);
    }
  }
  return { content: [{ type: "text", text: `no such tool: ${params.name}` }], isError: true };
});
if (process.env.FIXTURE_EXIT_ON_UNKNOWN === "1") {
  if (process.env.FIXTURE_STARTS) appendFileSync(process.env.FIXTURE_STARTS, "start\n");
  mcp.server.fallbackRequestHandler = async () => process.exit(0);
}
await mcp.connect(new StdioServerTransport());
