/**
 * Mounting an MCP server a config lists: start (or reach) it and list its tools, as the source
 * of its registry entries (`McpMount`), saying what failed in the config's terms.
 * `@plugboard/mcp` (and the MCP SDK) is imported only when a config has such an entry, so
 * other apps start no faster or slower for it.
 */
import { existsSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { Logger, Permission, Workspace } from "@plugboard/core";
import type { Secret } from "@plugboard/runtime";
import { lazily } from "@plugboard/core/internal";
import type { Elicitor, Launch, McpMount, MountOptions } from "@plugboard/mcp";
import type { McpEntry } from "@plugboard/config";
import type { EntryLocation } from "@plugboard/errors";
import { mcpErrors } from "@plugboard/mcp/messages";

/** An MCP server whose tools are in the registry, as `plugboard plugins` lists it. */
export interface MountedServer {
  /** The entry's `name`. */
  name: string;
  /** The version the server reports. */
  version: string;
  transport: "stdio" | "http";
  /** The command line, or the URL. */
  target: string;
  permissions: readonly Permission[];
  /** The tools as the model sees them (prefixed), in the server's order. */
  tools: readonly { name: string; description: string }[];
}

/** Rewrites an MCP server's command line before it starts (the sandbox confines it so). */
export type McpLauncher = (launch: Launch, entry: McpEntry) => Launch | Promise<Launch>;

export interface MountContext {
  readonly workspace: Workspace;
  readonly logger: Logger;
  readonly launcher: McpLauncher | undefined;
  /** Asks the person when a server requests input; none declines. */
  readonly elicit: Elicitor | undefined;
  /** Where Streamable HTTP servers' OAuth tokens are kept (`plugboard mcp login`) comes from `XDG_CONFIG_HOME` or `HOME`. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The existing files outside the workspace a confined server's arguments name that it cannot see (its last start). @default none */
  readonly unseen?: (entry: McpEntry) => readonly string[];
  /** Told the secrets a server's mount learns after it started (its OAuth tokens, refreshed). @default none */
  readonly found?: (secrets: readonly Secret[]) => void;
}

/** A started server: how it is listed, and its mount (the source of its tools). */
export interface ServerMount {
  readonly server: MountedServer;
  readonly mount: McpMount;
  /** Its OAuth tokens (`plugboard mcp login`), as they were once it started: the model never reads them. */
  readonly secrets: readonly Secret[];
}

/** What to grant for a script `file` the server is given: its package's folder (nearest `package.json`), else the file's own folder. */
function readEntry(file: string): string {
  for (let folder = dirname(file); folder !== dirname(folder); folder = dirname(folder)) {
    if (existsSync(join(folder, "package.json"))) return folder;
  }
  return dirname(file);
}

/**
 * Starts one server and lists its tools. A stdio server runs in the workspace with the
 * entry's `env` added to a minimal environment. Throws `MCP_SERVER` naming it.
 */
export async function mountServer(entry: McpEntry, where: EntryLocation, context: MountContext, explain?: MountOptions["explain"]): Promise<ServerMount> {
  const { McpMount, McpMountError, authFolder, savedTokens } = await lazily("the MCP adapters @plugboard/mcp", () => import("@plugboard/mcp"));
  const { mcp } = entry;
  const { launcher } = context;
  let mount: McpMount;
  try {
    mount = await McpMount.open({
      name: entry.name,
      server: "url" in mcp ? mcp : { ...mcp, cwd: context.workspace.root },
      logger: context.logger,
      elicit: context.elicit,
      authFolder: authFolder(context.env),
      onTokens: (values) => context.found?.(oauthSecrets(entry, values)),
      prefix: entry.prefix,
      explain,
      launcher: (launch: Launch) => {
        // Looked for here, before the sandbox wraps the command line, so a missing command is said the same way confined or not.
        const [program = ""] = launch.argv;
        const cwd = launch.cwd ?? context.workspace.root;
        if (Bun.which(program, { PATH: launch.env.PATH ?? "", cwd }) === null) {
          const found = program.includes("/") && statSync(resolve(cwd, program), { throwIfNoEntry: false }) !== undefined;
          throw (found ? mcpErrors.commandNotExecutable : mcpErrors.commandNotFound)(entry.name, program, where);
        }
        return launcher === undefined ? launch : launcher(launch, entry);
      },
    });
  } catch (error) {
    if (!(error instanceof McpMountError)) throw error;
    const [unseen] = context.unseen?.(entry) ?? [];
    if (unseen !== undefined) throw mcpErrors.unseenArgument(entry.name, unseen, readEntry(unseen), where);
    throw mcpErrors.startFailed(entry.name, error.reason, error.stderr, where);
  }
  const tokens = "url" in mcp ? savedTokens(entry.name, mcp.url, authFolder(context.env)) : [];
  return {
    mount,
    secrets: oauthSecrets(entry, tokens),
    server: {
      name: entry.name,
      version: mount.serverInfo.version,
      transport: "url" in mcp ? "http" : "stdio",
      target: "url" in mcp ? mcp.url : [mcp.command, ...mcp.args].join(" "),
      permissions: entry.permissions,
      tools: mount.entries.map(({ tool }) => ({ name: tool.name, description: tool.description })),
    },
  };
}

/** A server's OAuth tokens as secrets, named after it. */
function oauthSecrets(entry: McpEntry, values: readonly string[]): Secret[] {
  return values.map((value) => ({ name: `${entry.name} OAuth token`, value }));
}
