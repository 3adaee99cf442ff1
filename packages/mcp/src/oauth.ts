/**
 * OAuth for Streamable HTTP servers that require it, on the SDK's client flow: what the flow
 * produces (the client registration, the tokens, the PKCE verifier, discovery) is kept in one
 * file per server in the user's config folder (folder 0700, file 0600). `loginServer` runs
 * the browser step once, with a callback on 127.0.0.1; a mount reads the file, and the SDK
 * refreshes an expired token with the refresh token and saves the new one. A server that
 * needs a login that has not happened is an error saying to run `plugboard mcp login NAME`.
 */
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { OAuthClientMetadata, OAuthClientProvider, OAuthDiscoveryState, StoredOAuthClientInformation, StoredOAuthTokens } from "@modelcontextprotocol/client";
import { lazily } from "@plugboard/core/internal";
import packageJson from "../package.json" with { type: "json" };

/** The folder where servers' tokens are kept: `$XDG_CONFIG_HOME/plugboard/mcp-auth`, else `~/.config/plugboard/mcp-auth`. */
export function authFolder(env: Readonly<Record<string, string | undefined>> = process.env): string {
  return join(env.XDG_CONFIG_HOME || join(env.HOME || homedir(), ".config"), "plugboard", "mcp-auth");
}

/** What is kept for one server. */
interface Saved {
  url: string;
  /** The callback address the client was registered with at login. */
  redirectUrl?: string;
  clients?: Record<string, StoredOAuthClientInformation>;
  tokens?: StoredOAuthTokens;
  verifier?: string;
  discovery?: OAuthDiscoveryState;
}

/** The server needs a login first. */
export class LoginRequired extends Error {
  override readonly name = "LoginRequired";
  constructor(readonly server: string) {
    super(`it requires a login: run plugboard mcp login ${server}`);
  }
}

/** The SDK's OAuth provider for one server, kept in `folder/NAME.json`; without `redirect` it cannot send anyone to a browser. */
export class StoredOAuth implements OAuthClientProvider {
  readonly #file: string;
  readonly #folder: string;
  #saved: Saved;
  /** The `state` sent with the authorization, to compare on the callback. */
  lastState: string | undefined;

  constructor(
    readonly server: string,
    readonly url: string,
    folder: string,
    readonly redirect?: { readonly url: string; readonly open: (authorization: URL) => void },
    /** Told the values of the tokens each time the SDK saves new ones (a refresh). */
    readonly onTokens?: (values: readonly string[]) => void,
  ) {
    this.#folder = folder;
    this.#file = tokenFile(folder, server);
    this.#saved = readSaved(this.#file, url);
  }

  /** Whether tokens were saved for this server (at this URL). */
  get loggedIn(): boolean {
    return this.#saved.tokens !== undefined;
  }

  get redirectUrl(): string | undefined {
    return this.redirect?.url ?? this.#saved.redirectUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: `Plugboard ${packageJson.version}`,
      redirect_uris: [this.redirectUrl ?? "http://127.0.0.1/callback"],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }

  state(): string {
    this.lastState = crypto.randomUUID();
    return this.lastState;
  }

  clientInformation(ctx?: { issuer: string }): StoredOAuthClientInformation | undefined {
    return this.#saved.clients?.[ctx?.issuer ?? ""];
  }

  saveClientInformation(info: StoredOAuthClientInformation, ctx?: { issuer: string }): void {
    this.#save({ clients: { ...this.#saved.clients, [ctx?.issuer ?? ""]: info }, ...(this.redirect ? { redirectUrl: this.redirect.url } : {}) });
  }

  tokens(): StoredOAuthTokens | undefined {
    return this.#saved.tokens;
  }

  saveTokens(tokens: StoredOAuthTokens): void {
    this.#save({ tokens });
    this.onTokens?.(tokenValues(tokens));
  }

  redirectToAuthorization(authorization: URL): void {
    if (this.redirect === undefined) throw new LoginRequired(this.server);
    this.redirect.open(authorization);
  }

  saveCodeVerifier(verifier: string): void {
    this.#save({ verifier });
  }

  codeVerifier(): string {
    if (this.#saved.verifier === undefined) throw new LoginRequired(this.server);
    return this.#saved.verifier;
  }

  saveDiscoveryState(discovery: OAuthDiscoveryState): void {
    this.#save({ discovery });
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.#saved.discovery;
  }

  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    if (scope === "all") {
      this.#replace({ url: this.url });
      return;
    }
    const { [scope === "client" ? "clients" : scope]: _dropped, ...rest } = this.#saved;
    this.#replace({ ...rest, url: this.url });
  }

  #save(part: Partial<Saved>): void {
    this.#replace({ ...this.#saved, ...part });
  }

  #replace(saved: Saved): void {
    this.#saved = saved;
    mkdirSync(this.#folder, { recursive: true, mode: 0o700 });
    chmodSync(this.#folder, 0o700);
    writeFileSync(this.#file, `${JSON.stringify(saved, null, 2)}\n`, { mode: 0o600 });
    chmodSync(this.#file, 0o600);
  }
}

/** The file of one server's tokens. */
export function tokenFile(folder: string, server: string): string {
  return join(folder, `${server.replace(/[^A-Za-z0-9_.-]/g, "_")}.json`);
}

/** The tokens kept for `server` at `url` (access and refresh), for the app to keep from the model. */
export function savedTokens(server: string, url: string, folder: string): string[] {
  const { tokens } = readSaved(tokenFile(folder, server), url);
  return tokens === undefined ? [] : tokenValues(tokens);
}

/** The secret values of `tokens`: the access token and the refresh token. */
function tokenValues(tokens: StoredOAuthTokens): string[] {
  return [tokens.access_token, tokens.refresh_token].filter((token): token is string => typeof token === "string");
}

/** Forgets a server's tokens; false when there were none. */
export function logoutServer(server: string, folder: string): boolean {
  const file = tokenFile(folder, server);
  const had = readSaved(file, undefined).tokens !== undefined;
  rmSync(file, { force: true });
  return had;
}

/** Options of `loginServer`. */
export interface LoginOptions {
  readonly server: string;
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly folder: string;
  /** Shows the person the address to open (and opens a browser, where the app can). */
  readonly open: (authorization: URL) => void;
  readonly signal?: AbortSignal;
}

/**
 * Logs in to a server: registers with its authorization server, sends the person to the
 * authorization address, waits for the redirect on `http://127.0.0.1:PORT/callback`, and
 * keeps the tokens. Resolves once a connection with them succeeds: `logged-in`, or
 * `already` when the tokens kept work (refreshed if need be), or `not-needed` when the
 * server answered without any.
 */
export async function loginServer(options: LoginOptions): Promise<"logged-in" | "already" | "not-needed"> {
  const { Client, StreamableHTTPClientTransport, UnauthorizedError } = await lazily("the MCP SDK's client", () => import("@modelcontextprotocol/client"));
  const { promise: called, resolve, reject } = Promise.withResolvers<URLSearchParams>();
  const callback = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const url = new URL(request.url);
      if (url.pathname !== "/callback") return new Response("Not found", { status: 404 });
      resolve(url.searchParams);
      return new Response("Plugboard: you are logged in; you may close this page.\n");
    },
  });
  const onAbort = () => reject(options.signal?.reason);
  options.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const provider = new StoredOAuth(options.server, options.url, options.folder, { url: `http://127.0.0.1:${callback.port}/callback`, open: options.open });
    const transportFor = () => new StreamableHTTPClientTransport(new URL(options.url), { authProvider: provider, requestInit: { headers: { ...options.headers } } });
    const first = transportFor();
    const client = new Client({ name: "plugboard", version: packageJson.version });
    const hadTokens = provider.loggedIn;
    try {
      await client.connect(first);
      await client.close();
      return hadTokens ? "already" : "not-needed";
    } catch (error) {
      if (!(error instanceof UnauthorizedError)) throw error;
    }
    const params = await called;
    if (params.get("state") !== provider.lastState) throw new Error("the authorization server's answer does not match the login that was started (state)");
    const refused = params.get("error");
    if (refused !== null) throw new Error(`the authorization server refused the login (${refused})`);
    await first.finishAuth(params);
    const check = new Client({ name: "plugboard", version: packageJson.version });
    await check.connect(transportFor());
    await check.close();
    return "logged-in";
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
    await callback.stop(true);
  }
}

function readSaved(file: string, url: string | undefined): Saved {
  let saved: Saved;
  try {
    saved = JSON.parse(readFileSync(file, "utf8")) as Saved;
  } catch {
    return { url: url ?? "" };
  }
  // Tokens for another address of the same name are not sent to this one.
  return url === undefined || saved.url === url ? saved : { url };
}
