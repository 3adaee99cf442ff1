/**
 * `plugboard mcp`: the config's tools served to MCP clients, over stdio (the client starts
 * plugboard) or Streamable HTTP (`--http`). Every call goes through the app's runtime, so
 * its policy and audit log apply.
 */
import { annotationsFor, isBearerToken, isLoopbackHost, mcpHttpHandler, serveStdio } from "@plugboard/mcp";
import { approveAll } from "@plugboard/runtime";
import { type ParsedArgs, UsageError } from "../args.ts";
import { abortOnInterrupt } from "../interrupt.ts";
import type { Io } from "../io.ts";
import { loadApp } from "../load-app.ts";

const DEFAULT_PORT = 8808;

/** Serves until the client hangs up (stdio, exit 0) or an ending signal (exit 130, 143 or 129). */
export async function mcpCommand(parsed: ParsedArgs, io: Io): Promise<number> {
  const { http, host = "127.0.0.1" } = parsed.flags;
  const { port = DEFAULT_PORT } = parsed.flags;
  const token = io.env.PLUGBOARD_MCP_TOKEN || undefined;
  if (!http && (parsed.flags.port !== undefined || parsed.flags.host !== undefined || parsed.flags.peers !== undefined)) {
    throw new UsageError("--port, --host and --peers apply to --http", "mcp");
  }
  const peers = peersOf(parsed.flags.peers);
  if (token !== undefined && !isBearerToken(token)) {
    throw new UsageError(
      "PLUGBOARD_MCP_TOKEN may hold only letters, digits and - . _ ~ + / (then = signs), as an Authorization header carries it; generate one with, for example, openssl rand -hex 32",
      "mcp",
    );
  }
  if (http && token === undefined && !isLoopbackHost(host)) {
    throw new UsageError(
      `refusing to serve on ${host} without PLUGBOARD_MCP_TOKEN: anyone who can reach it could run your tools; set the token (clients send "Authorization: Bearer TOKEN") or keep the default 127.0.0.1`,
      "mcp",
    );
  }
  const app = await loadApp(parsed, io, { announceWorkspace: false });
  app.warmUp();
  const options = {
    annotations: (tool: string) => annotationsFor(app.toolGrants.get(tool) ?? []),
    // No one can be asked through MCP: an ask is refused, unless --yes approves it (a deny still applies).
    callOptions: parsed.flags.yes ? { approve: approveAll } : {},
  };
  // Ctrl-C, SIGTERM or SIGHUP stop serving; the command then exits with the signal's code.
  using stop = abortOnInterrupt();
  if (!http) {
    io.note(`serving ${app.registry.size} tools over MCP on stdio (workspace: ${app.workspace.root})`);
    await serveStdio(app.runtime, { ...options, stdin: io.stdin, stdout: io.stdout, signal: stop.signal });
    return stop.exitCode(0);
  }
  const onPeerError = (message: string) => io.note(message);
  const server = listen(host, port, mcpHttpHandler(app.runtime, { ...options, peers, onPeerError, ...(token ? { token } : {}) }));
  io.note(`serving ${app.registry.size} tools over MCP at ${server.url.href}mcp (workspace: ${app.workspace.root}; Ctrl-C stops)`);
  await new Promise((resolve) => stop.signal.addEventListener("abort", resolve, { once: true }));
  await server.stop(true);
  return stop.exitCode(0);
}

/** Starts the HTTP server; a port in use or an address this machine does not have is said, not thrown with a stack. */
function listen(host: string, port: number, fetch: (request: Request) => Response | Promise<Response>): ReturnType<typeof Bun.serve> {
  try {
    return Bun.serve({ hostname: host, port, fetch });
  } catch (error) {
    const code = error instanceof Error ? Reflect.get(error, "code") : undefined;
    if (code === "EADDRINUSE") throw new UsageError(`port ${port} on ${host} is in use; pick another with --port N (0: any free port)`, "mcp");
    if (code === "EADDRNOTAVAIL") throw new UsageError(`${host} is not an address of this machine; pick one with --host H (default 127.0.0.1)`, "mcp");
    if (code === "EACCES") throw new UsageError(`port ${port} needs privileges this user does not have; pick one above 1023 with --port N`, "mcp");
    throw error;
  }
}

/** `--peers`: comma-separated http(s) URLs of the other copies' `/mcp`. */
function peersOf(text: string | undefined): URL[] {
  if (text === undefined) return [];
  return text.split(",").map((item) => {
    const peer = URL.canParse(item.trim()) ? new URL(item.trim()) : undefined;
    if (peer === undefined || (peer.protocol !== "http:" && peer.protocol !== "https:")) {
      throw new UsageError(`--peers takes the other copies' URLs, comma-separated (http://10.0.0.2:8808/mcp,…), got '${item}'`, "mcp");
    }
    return peer;
  });
}
