/**
 * An MCP tool result as the model reads it: text blocks joined, every other block
 * summarised in one line of text, `isError` results as `Error: …`. Structured content is
 * the result itself, as JSON text: it takes the place of the text blocks, which restate it
 * for clients that cannot read it (the spec asks servers to add them).
 */
import type { CallToolResult, ContentBlock } from "@modelcontextprotocol/client";
import { errorResult, type ToolResult, textResult } from "@plugboard/core";
import { ERROR_PREFIX } from "@plugboard/core/internal";

/**
 * @example toolResult({ content: [{ type: "text", text: "hi" }] }) // { content: "hi", isError: false }
 */
export function toolResult(result: CallToolResult): ToolResult {
  const { structuredContent } = result;
  const parts =
    structuredContent === undefined
      ? result.content.map(describe)
      : [JSON.stringify(structuredContent), ...result.content.filter((block) => block.type !== "text").map(describe)];
  const text = parts.join("\n");
  if (result.isError === true) {
    const message = text === "" ? "the tool reported an error without a message" : text;
    return errorResult(message.startsWith(ERROR_PREFIX) ? message.slice(ERROR_PREFIX.length) : message);
  }
  return textResult(text === "" ? "(no content)" : text);
}

function describe(block: ContentBlock): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "image":
    case "audio":
      return `[${block.type}: ${block.mimeType}, ${decodedBytes(block.data)} bytes]`;
    case "resource_link": {
      const type = block.mimeType ? ` (${block.mimeType})` : "";
      const about = block.description ? `: ${block.description}` : "";
      return `[resource link: ${block.name} ${block.uri}${type}${about}]`;
    }
    case "resource": {
      const { resource } = block;
      const type = resource.mimeType ? `, ${resource.mimeType}` : "";
      if ("text" in resource) return `[resource: ${resource.uri}${type}]\n${resource.text}`;
      return `[resource: ${resource.uri}${type}, ${decodedBytes(resource.blob)} bytes]`;
    }
    default:
      return `[${(block as { type: string }).type} content]`;
  }
}

/** The size of base64 data once decoded, without decoding it. */
function decodedBytes(base64: string): number {
  const padding = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0;
  return Math.floor((base64.length * 3) / 4) - padding;
}
