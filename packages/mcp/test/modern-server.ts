#!/usr/bin/env bun
/**
 * An MCP server on the current SDK (2.x), for the mount tests: it speaks the newest
 * protocol revision and the 2025 ones from one factory, over stdio or, with
 * `MODERN_HTTP_PORT_FILE=FILE`, over Streamable HTTP on 127.0.0.1 (the port written to
 * FILE). Its tools: `era` (which era the call came in), `stats` (structured output with an
 * output schema), `links` (resource links), `ask` (a form the person fills in).
 */
import { writeFileSync } from "node:fs";
import { type CallToolResult, createMcpHandler, type ElicitRequestFormParams, fromJsonSchema, inputRequired, inputResponse, McpServer, type McpRequestContext } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";

const object = (properties: Record<string, object> = {}, required: string[] = []) => fromJsonSchema<Record<string, unknown>>({ type: "object", properties, required });

const FORM: ElicitRequestFormParams["requestedSchema"] = {
  type: "object",
  properties: {
    name: { type: "string", title: "Name", minLength: 1 },
    age: { type: "integer", title: "Age", minimum: 0 },
    color: { type: "string", title: "Favourite colour", enum: ["red", "green", "blue"] },
    subscribe: { type: "boolean", title: "Subscribe", default: false },
  },
  required: ["name", "color"],
};

const text = (value: string): CallToolResult => ({ content: [{ type: "text", text: value }] });

function serverFor({ era }: McpRequestContext): McpServer {
  const server = new McpServer({ name: "modern", version: "2.4.0" }, { capabilities: { tools: {} } });
  server.registerTool("era", { description: "Which protocol era the call came in.", inputSchema: object() }, async () => text(era));
  server.registerTool(
    "stats",
    { description: "Counts, as structured output.", inputSchema: object(), outputSchema: object({ count: { type: "integer" }, names: { type: "array", items: { type: "string" } } }, ["count"]) },
    async () => {
      const structuredContent = { count: 2, names: ["a", "b"] };
      return { content: [{ type: "text", text: JSON.stringify(structuredContent) }], structuredContent };
    },
  );
  server.registerTool("links", { description: "Links to two resources.", inputSchema: object() }, async () => ({
    content: [
      { type: "text", text: "two files" },
      { type: "resource_link", uri: "file:///srv/report.pdf", name: "report.pdf", mimeType: "application/pdf", description: "The monthly report" },
      { type: "resource_link", uri: "https://example.com/data.csv", name: "data.csv" },
    ],
  }));
  server.registerTool("ask", { description: "Asks the person a few questions.", inputSchema: object() }, async (_args, ctx) => {
    const message = "Tell us about yourself";
    if (era === "legacy") {
      const answer = await ctx.mcpReq.elicitInput({ mode: "form", message, requestedSchema: FORM });
      return text(answer.action === "accept" ? `accept ${JSON.stringify(answer.content)}` : answer.action);
    }
    const view = inputResponse(ctx.mcpReq.inputResponses, "about");
    if (view.kind === "elicit") return text(view.action === "accept" ? `accept ${JSON.stringify(view.content)}` : view.action);
    return inputRequired({ inputRequests: { about: inputRequired.elicit({ message, requestedSchema: FORM }) } });
  });
  return server;
}

const portFile = process.env.MODERN_HTTP_PORT_FILE;
if (portFile) {
  const handler = createMcpHandler(serverFor);
  const http = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (request) => handler.fetch(request) });
  writeFileSync(portFile, String(http.port));
} else {
  serveStdio(serverFor);
}
