/** The error a mount that failed to start throws, and the helpers its messages share. */

/** A server that could not be started or listed; `stderr` holds its last lines. */
export class McpMountError extends Error {
  override readonly name = "McpMountError";
  constructor(
    readonly server: string,
    readonly reason: string,
    readonly stderr: readonly string[],
  ) {
    super(`MCP server ${server} failed to start or list its tools: ${reason}${stderrLines(stderr)}`);
  }
}

/** A server's last stderr lines as a block to append to a message, or nothing. */
export function stderrLines(lines: readonly string[]): string {
  return lines.length === 0 ? "" : `\nLast lines of its stderr:\n${lines.map((line) => `  ${line}`).join("\n")}`;
}

export function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
