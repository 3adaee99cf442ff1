/**
 * One connection to a mounted server on the SDK's client: the transport for its kind, the
 * protocol era negotiated (the newest revision the SDK speaks, or the `initialize`
 * handshake of the 2025 revisions for a server that does not know it), and the verdict
 * kept so that a restart skips the probe. The SDK is loaded by the first mount that
 * connects: importing this module loads none of it.
 */
import type { Client, ClientOptions, PriorDiscovery, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { lazily } from "@plugboard/core/internal";
import packageJson from "../package.json" with { type: "json" };
import type { MountOptions } from "./mount.ts";
import { McpMountError, reasonOf } from "./mount-error.ts";
import { LoginRequired, StoredOAuth } from "./oauth.ts";
import type { Launch, ProcessTransport } from "./process-transport.ts";

/** A server's transport before its client connects. */
type Transport = { readonly kind: "stdio"; readonly transport: ProcessTransport } | { readonly kind: "http"; readonly transport: StreamableHTTPClientTransport };

export type Connection = Transport & {
  readonly client: Client;
  /** What the server turned out to speak, for the next connection to the same server. */
  readonly verdict: PriorDiscovery;
};

/**
 * How long a stdio server may stay silent on the era probe before it is taken for a 2025
 * server that ignores requests it does not know (the `initialize` handshake then follows on
 * the same pipe). Over HTTP silence is an outage, and the probe keeps the request timeout.
 */
const STDIO_PROBE_MS = 10_000;

/** The SDK's words for a server that went away on the probe. */
const EXITED_ON_PROBE = /connection closed during the server\/discover probe/;

/**
 * Starts (or reaches) the server and runs the handshake; `prior` is an earlier connection's
 * verdict. Throws `McpMountError` naming the server.
 */
export async function connect(options: MountOptions, prior?: PriorDiscovery): Promise<Connection> {
  const [{ Client }, transport] = await Promise.all([lazily("the MCP SDK's client", () => import("@modelcontextprotocol/client")), transportFor(options)]);
  const clientOptions: ClientOptions = {
    versionNegotiation: { mode: "auto", ...(transport.kind === "stdio" ? { probe: { timeoutMs: STDIO_PROBE_MS } } : {}) },
    // Forms only: a request to open a URL is declined.
    capabilities: { elicitation: { form: {} } },
  };
  const client = new Client({ name: "plugboard", version: packageJson.version }, clientOptions);
  // In the 2025 revisions a request of the server's own; in 2026-07-28 part of a call's answer, fulfilled by the SDK through this same handler.
  client.setRequestHandler("elicitation/create", async (request, ctx) => {
    const { params } = request;
    if (options.elicit === undefined || params.mode === "url") return { action: "decline" };
    const { elicitationRequest } = await lazily("the MCP elicitation forms", () => import("./elicitation.ts"));
    const signal = ctx.mcpReq.signal;
    try {
      return await options.elicit(elicitationRequest(options.name, params.message, params.requestedSchema), signal);
    } catch (error) {
      if (signal.aborted) return { action: "cancel" };
      throw error;
    }
  });
  try {
    await client.connect(transport.transport, prior === undefined ? {} : { prior });
  } catch (error) {
    await client.close().catch(() => undefined);
    // Some servers (those on the Rust SDK) exit on any request before `initialize`: started again, they get only that.
    if (transport.kind === "stdio" && prior === undefined && EXITED_ON_PROBE.test(reasonOf(error))) return await connect(options, { kind: "legacy" });
    throw new McpMountError(options.name, needsLogin(transport, error) ? new LoginRequired(options.name).message : reasonOf(error), await stderrOf(transport));
  }
  const discover = client.getDiscoverResult();
  return { ...transport, client, verdict: discover === undefined ? { kind: "legacy" } : { kind: "modern", discover } };
}

/** An HTTP server that answered 401 to a client without its tokens. */
function needsLogin(transport: Transport, error: unknown): boolean {
  return transport.kind === "http" && typeof error === "object" && error !== null && "status" in error && error.status === 401;
}

/** The last lines a stdio server wrote to stderr; none for HTTP. */
export async function stderrOf(transport: Transport): Promise<readonly string[]> {
  return transport.kind === "stdio" ? await transport.transport.stderrTail() : [];
}

async function transportFor(options: MountOptions): Promise<Transport> {
  const { server } = options;
  if ("url" in server) {
    const { StreamableHTTPClientTransport } = await lazily("the MCP SDK's client", () => import("@modelcontextprotocol/client"));
    // A server given its own Authorization header is not sent through OAuth.
    const ownAuthorization = Object.keys(server.headers ?? {}).some((name) => name.toLowerCase() === "authorization");
    const stored = options.authFolder === undefined || ownAuthorization ? undefined : new StoredOAuth(options.name, server.url, options.authFolder, undefined, options.onTokens);
    // Without a login the server's 401 is said as such (below); with one, the SDK sends and refreshes its tokens.
    const authProvider = stored?.loggedIn === true ? stored : undefined;
    const transport = new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { ...server.headers } }, ...(authProvider ? { authProvider } : {}) });
    return { kind: "http", transport };
  }
  const [{ getDefaultEnvironment }, { ProcessTransport }] = await Promise.all([
    lazily("the MCP SDK's stdio transport", () => import("@modelcontextprotocol/client/stdio")),
    lazily("the MCP stdio process transport", () => import("./process-transport.ts")),
  ]);
  const launch: Launch = {
    argv: [server.command, ...(server.args ?? [])],
    env: { ...getDefaultEnvironment(), ...server.env },
    cwd: server.cwd,
  };
  return { kind: "stdio", transport: new ProcessTransport(options.launcher ? await options.launcher(launch) : launch) };
}
