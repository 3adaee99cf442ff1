/**
 * An MCP tool result as the model reads it: text blocks joined, every other block
 * summarised in one line of text, `isError` results as `Error: …`. The text is what the
 * server wrote for the model ("Forecast ready. …", a file's contents); structured content
 * is data for programs, sent as JSON only when the result has no text to read, so a text block
 * that restates it is sent once.
 */
import type { CallToolResult, ContentBlock } from "@modelcontextprotocol/client";
import { errorResult, type ToolResult, textResult } from "@plugboard/core";
import { ERROR_PREFIX } from "@plugboard/core/internal";

/**
 * @example toolResult({ content: [{ type: "text", text: "hi" }] }) // { content: "hi", isError: false }
 */
export function toolResult(result: CallToolResult): ToolResult {
  const { content, structuredContent } = result;
  const written = content.some((block) => block.type === "text" && block.text.trim() !== "");
  const parts =
    written || structuredContent === undefined
      ? content.map(describe)
      : [JSON.stringify(structuredContent), ...content.filter((block) => block.type !== "text").map(describe)];
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
