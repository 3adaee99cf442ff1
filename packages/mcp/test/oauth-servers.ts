/**
 * An OAuth authorization server and an MCP server that requires its tokens, on 127.0.0.1,
 * for the login tests, both from the SDK's own parts: the 1.x SDK's authorization-server
 * router (`mcpAuthRouter`, on Express, with its in-memory demo provider, here issuing
 * refresh tokens and access tokens that expire after `expiresInSeconds`; its tokens are
 * checked here, so that an expired one gets the 2.x SDK's 401), and the 2.x server's bearer check and protected-resource metadata in front of `createMcpHandler`.
 */
import { createRequire } from "node:module";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { OAuthClientInformationFull, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { DemoInMemoryAuthProvider } from "@modelcontextprotocol/sdk/examples/server/demoInMemoryOAuthProvider.js";
import { createOAuthMetadata, mcpAuthRouter } from "@modelcontextprotocol/sdk/server/auth/router.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { buildOAuthProtectedResourceMetadata, createMcpHandler, getOAuthProtectedResourceMetadataUrl, McpServer, OAuthError, OAuthErrorCode, requireBearerAuth } from "@modelcontextprotocol/server";

// Express as the 1.x SDK's router needs it: the SDK's own copy.
interface ExpressApp {
  use(handler: unknown): void;
  listen(port: number, host: string, ready: () => void): Server;
}
const express = createRequire(import.meta.resolve("@modelcontextprotocol/sdk/server/auth/router.js"))("express") as () => ExpressApp;

/** The demo provider, with refresh tokens and access tokens that expire (after their lifetime, or when told to). */
class RefreshingProvider extends DemoInMemoryAuthProvider {
  readonly refreshes: string[] = [];
  #refresh = new Map<string, { clientId: string; scopes: string[] }>();
  #access = new Map<string, { clientId: string; scopes: string[]; expiresAt: number }>();
  constructor(readonly expiresInSeconds: number) {
    super();
  }

  override async exchangeAuthorizationCode(client: OAuthClientInformationFull, code: string, verifier?: string): Promise<OAuthTokens> {
    const tokens = await super.exchangeAuthorizationCode(client, code, verifier);
    return this.#issue(client.client_id, tokens.scope?.split(" ").filter(Boolean) ?? [], tokens.access_token);
  }

  override async exchangeRefreshToken(client: OAuthClientInformationFull, refreshToken: string): Promise<OAuthTokens> {
    const known = this.#refresh.get(refreshToken);
    if (known === undefined || known.clientId !== client.client_id) throw new Error("unknown refresh token");
    this.#refresh.delete(refreshToken);
    this.refreshes.push(refreshToken);
    return this.#issue(client.client_id, known.scopes, crypto.randomUUID());
  }

  override async verifyAccessToken(token: string): Promise<AuthInfo> {
    const known = this.#access.get(token);
    if (known === undefined || known.expiresAt < Date.now()) throw new OAuthError(OAuthErrorCode.InvalidToken, "invalid or expired token");
    return { token, clientId: known.clientId, scopes: known.scopes, expiresAt: Math.floor(known.expiresAt / 1000) };
  }

  /** Ends every access token issued so far, as their time running out would, without waiting for it: the next call with one is refused. */
  expireAll(): void {
    for (const token of this.#access.values()) token.expiresAt = 0;
  }

  #issue(clientId: string, scopes: string[], accessToken: string): OAuthTokens {
    const expiresAt = Date.now() + this.expiresInSeconds * 1000;
    this.#access.set(accessToken, { clientId, scopes, expiresAt });
    const refresh = crypto.randomUUID();
    this.#refresh.set(refresh, { clientId, scopes });
    return { access_token: accessToken, token_type: "bearer", expires_in: this.expiresInSeconds, refresh_token: refresh, scope: scopes.join(" ") };
  }
}

export interface OAuthServers {
  readonly mcpUrl: string;
  readonly provider: RefreshingProvider;
  /** Tool calls the MCP server answered, with the token each came with. */
  readonly calls: string[];
  close(): Promise<void>;
}

export async function startOAuthServers(expiresInSeconds: number): Promise<OAuthServers> {
  const provider = new RefreshingProvider(expiresInSeconds);
  const app = express();
  const listening: Server = await new Promise((resolve) => {
    const server = app.listen(0, "127.0.0.1", () => resolve(server));
  });
  const issuerUrl = new URL(`http://127.0.0.1:${(listening.address() as AddressInfo).port}/`);
  app.use(mcpAuthRouter({ provider, issuerUrl, scopesSupported: ["mcp:tools"] }));

  const calls: string[] = [];
  const mcp = createMcpHandler(() => {
    const server = new McpServer({ name: "protected", version: "1.0.0" }, { capabilities: { tools: {} } });
    server.registerTool("whoami", { description: "Answers who called." }, async (ctx) => {
      calls.push(ctx.http?.authInfo?.token ?? "(none)");
      return { content: [{ type: "text", text: `client ${ctx.http?.authInfo?.clientId ?? "?"}` }] };
    });
    return server;
  });
  let resource: Bun.Server<undefined> | undefined;
  resource = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const mcpUrl = new URL(`http://127.0.0.1:${resource?.port}/mcp`);
      if (url.pathname.startsWith("/.well-known/oauth-protected-resource")) {
        return Response.json(buildOAuthProtectedResourceMetadata({ oauthMetadata: createOAuthMetadata({ provider, issuerUrl }), resourceServerUrl: mcpUrl }));
      }
      const auth = await requireBearerAuth({ verifier: provider, resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl) })(request);
      if (auth instanceof Response) return auth;
      return await mcp.fetch(request, { authInfo: auth });
    },
  });
  return {
    mcpUrl: `http://127.0.0.1:${resource.port}/mcp`,
    provider,
    calls,
    async close() {
      await resource?.stop(true);
      await new Promise((resolve) => listening.close(resolve));
    },
  };
}
