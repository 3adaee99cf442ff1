import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Workspace, ToolRegistry } from "@plugboard/core";
import { ToolRuntime } from "@plugboard/runtime";
import { type OAuthServers, startOAuthServers } from "../test/oauth-servers.ts";
import { McpMount, McpMountError } from "./mount.ts";
import { authFolder, loginServer, logoutServer, tokenFile } from "./oauth.ts";

setDefaultTimeout(30_000);

let servers: OAuthServers;
let home: string;
let folder: string;

beforeAll(async () => {
  servers = await startOAuthServers(3600);
  home = await mkdtemp(join(tmpdir(), "plugboard-oauth-"));
  folder = authFolder({ XDG_CONFIG_HOME: join(home, "config") });
});
afterAll(async () => {
  await servers.close();
  await rm(home, { recursive: true, force: true });
});

/** The person's browser: follows the authorization address to the callback, as a browser would. */
async function browse(authorization: URL): Promise<void> {
  let next = authorization.href;
  for (let hop = 0; hop < 5; hop++) {
    const response = await fetch(next, { redirect: "manual" });
    const location = response.headers.get("location");
    if (location === null) {
      if (response.status !== 200) throw new Error(`${next}: ${response.status} ${await response.text()}`);
      return;
    }
    next = new URL(location, next).href;
  }
  throw new Error("too many redirects");
}

const mount = () => McpMount.open({ name: "remote", server: { url: servers.mcpUrl }, authFolder: folder });
const runtimeOf = async (mounted: McpMount) => new ToolRuntime(new ToolRegistry(mounted.entries), { workspace: await Workspace.open(tmpdir()) });

describe("OAuth for a Streamable HTTP server", () => {
  test("without a login, mounting it is an error saying to run plugboard mcp login NAME", async () => {
    const error = await mount().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpMountError);
    expect((error as Error).message).toBe("MCP server remote failed to start or list its tools: it requires a login: run plugboard mcp login remote");
  });

  test("login, a call with the token, a refresh after it expired, logout", async () => {
    const opened: URL[] = [];
    const outcome = await loginServer({
      server: "remote",
      url: servers.mcpUrl,
      folder,
      open: (authorization) => {
        opened.push(authorization);
        void browse(authorization);
      },
    });
    expect(outcome).toBe("logged-in");
    expect(opened).toHaveLength(1);
    // Logged in, a second login has nothing to do.
    expect(await loginServer({ server: "remote", url: servers.mcpUrl, folder, open: (url) => opened.push(url) })).toBe("already");
    expect(opened).toHaveLength(1);
    expect(opened[0]?.searchParams.get("redirect_uri")).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    const file = tokenFile(folder, "remote");
    expect((await stat(folder)).mode & 0o777).toBe(0o700);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const first = JSON.parse(await readFile(file, "utf8")).tokens.access_token as string;

    const mounted = await mount();
    try {
      const runtime = await runtimeOf(mounted);
      expect((await runtime.execute("whoami", "{}")).content).toStartWith("client ");
      expect(servers.calls.at(-1)).toBe(first);
      // The access token ends (as its time running out would, at a moment of the test's choosing,
      // however slow the machine): the next call is refused, refreshed, and sent again.
      servers.provider.expireAll();
      expect(await runtime.execute("whoami", "{}")).toMatchObject({ isError: false });
      expect(servers.provider.refreshes).toHaveLength(1);
      const second = JSON.parse(await readFile(file, "utf8")).tokens.access_token as string;
      expect(second).not.toBe(first);
      expect(servers.calls.at(-1)).toBe(second);
    } finally {
      await mounted.close();
    }

    expect(logoutServer("remote", folder)).toBe(true);
    expect(await Bun.file(file).exists()).toBe(false);
    expect(logoutServer("remote", folder)).toBe(false);
    const error = await mount().catch((e: unknown) => e);
    expect((error as Error).message).toContain("run plugboard mcp login remote");
  });
});
