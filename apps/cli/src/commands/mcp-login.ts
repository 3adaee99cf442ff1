/**
 * `plugboard mcp login NAME` / `plugboard mcp logout NAME`: OAuth for a mounted Streamable
 * HTTP server that requires it. Login prints the authorization address for the person to
 * open and waits for the browser's redirect to 127.0.0.1; the tokens are kept in the user's
 * config folder, where every command that mounts the server finds them.
 */
import { loadConfig, type McpEntry, PlugboardError } from "@plugboard/bootstrap";
import { authFolder, loginServer, logoutServer, tokenFile } from "@plugboard/mcp";
import { visible } from "@plugboard/core/internal";
import type { ParsedArgs } from "../args.ts";
import { abortOnInterrupt } from "../interrupt.ts";
import type { Io } from "../io.ts";
import { defaultConfig } from "../load-app.ts";

export async function mcpLoginCommand(parsed: ParsedArgs, io: Io): Promise<number> {
  const { name, url, headers } = await httpServer(parsed, io);
  const folder = authFolder(io.env);
  using interrupt = abortOnInterrupt();
  const outcome = await loginServer({
    server: name,
    url,
    ...(headers ? { headers } : {}),
    folder,
    signal: interrupt.signal,
    open: (authorization) => {
      io.stderr.write(`Open this address in a browser to log in to ${name}:\n  ${visible(authorization.href)}\n`);
    },
  }).catch((error: unknown) => {
    if (interrupt.signal.aborted) return;
    throw new PlugboardError("USAGE", `Could not log in to MCP server ${name}: ${error instanceof Error ? error.message : String(error)}`);
  });
  if (interrupt.signal.aborted || outcome === undefined) return interrupt.exitCode(130);
  if (outcome === "not-needed") io.stdout.write(`${name} answered without a login: it needs none\n`);
  else io.stdout.write(`${outcome === "already" ? "Already logged in" : "Logged in"} to ${name}; its tokens are in ${tokenFile(folder, name)}\n`);
  return 0;
}

export async function mcpLogoutCommand(parsed: ParsedArgs, io: Io): Promise<number> {
  const { name } = await httpServer(parsed, io);
  const had = logoutServer(name, authFolder(io.env));
  io.stdout.write(had ? `Logged out of ${name}: its tokens are deleted\n` : `${name} had no tokens to forget\n`);
  return 0;
}

/** The config's MCP server NAME, which must be reached over Streamable HTTP. */
async function httpServer(parsed: ParsedArgs, io: Io): Promise<{ name: string; url: string; headers?: Readonly<Record<string, string>> }> {
  const [name = ""] = parsed.args;
  const path = parsed.flags.config ?? defaultConfig(io.cwd, io.env);
  const config = await loadConfig(path, { cwd: io.cwd, env: io.env });
  const servers = config.plugins.filter((entry): entry is McpEntry => "mcp" in entry);
  const entry = servers.find((server) => server.name === name);
  if (entry === undefined) {
    const names = servers.map((server) => server.name);
    throw new PlugboardError("USAGE", `The config ${config.configPath} has no MCP server named ${name}${names.length === 0 ? "" : ` (it has: ${names.join(", ")})`}`);
  }
  if (!("url" in entry.mcp)) throw new PlugboardError("USAGE", `MCP server ${name} runs over stdio: only a Streamable HTTP server (an entry with a "url") logs in with OAuth`);
  return { name, url: entry.mcp.url, ...(entry.mcp.headers ? { headers: entry.mcp.headers } : {}) };
}
