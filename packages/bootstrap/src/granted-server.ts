/**
 * A confined MCP server whose refused calls can become grants: its tools are the mount's,
 * each call goes to the mount, and a call the sandbox refused for lack of a grant a person
 * then gives runs again in the same server started anew with it (its walls are fixed when it
 * starts) — for that call alone, stopped after, or in place of the server before it for the rest
 * of the session (`saved` also writes the grant into its config entry); the server replaced ends
 * once its calls have answered, and grants given at once are taken in turn, each added to those
 * before it.
 */
import { errorResult, type ToolContext, type ToolResult } from "@plugboard/core";
import { GrantedRunners, type GrantScope, type MissingGrant, type RegistryEntry, type ToolSource } from "@plugboard/core/internal";
import type { McpEntry } from "@plugboard/config";
import type { McpMount } from "@plugboard/mcp";
import { withGrant } from "@plugboard/sandbox/grants";

/** What a granting server needs of the app. */
export interface ServerGrants {
  /** The grant a refused result of a confined server lacked (confined-servers.ts). */
  missingGrant(result: ToolResult): MissingGrant | undefined;
  /** Starts the server of `entry` (the first one's, with a grant added) and lists its tools. */
  reopen(entry: McpEntry): Promise<McpMount>;
  /** Writes `grant` into the server's config entry. */
  save(grant: MissingGrant): Promise<void>;
}

/** `mount` of `entry`, its refused calls offered again with the grant they lacked. */
export class GrantingServer implements ToolSource {
  readonly owner: string;
  readonly entries: readonly RegistryEntry[];
  readonly #mount: McpMount;
  readonly #entry: McpEntry;
  readonly #grants: ServerGrants;
  /** The server started with the grants a person gave for the session, and its entry. */
  #granted: { readonly entry: McpEntry; readonly mount: McpMount } | undefined;
  /** The servers running calls, and those replaced, ended once their calls answer. */
  readonly #runners = new GrantedRunners<McpMount>((mount) => mount.close());

  constructor(mount: McpMount, entry: McpEntry, grants: ServerGrants) {
    this.owner = mount.owner;
    this.#mount = mount;
    this.#entry = entry;
    this.#grants = grants;
    this.entries = mount.entries.map((each) => ({ ...each, source: this }));
  }

  call(tool: string, args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
    const mount = this.#granted?.mount ?? this.#mount;
    return this.#runners.running(mount, mount.call(tool, args, ctx));
  }

  missingGrant(result: ToolResult): MissingGrant | undefined {
    return this.#grants.missingGrant(result);
  }

  async callGranted(tool: string, args: Record<string, unknown>, ctx: ToolContext, grant: MissingGrant, scope: GrantScope): Promise<ToolResult> {
    let mount: McpMount;
    try {
      if (scope === "once") mount = await this.#grants.reopen(withGrant(this.#granted?.entry ?? this.#entry, grant));
      else mount = await this.#runners.inTurn(this.owner, () => this.#widen(grant, scope));
    } catch (error) {
      return errorResult(`MCP server ${this.owner} could not be started with the grant: ${error instanceof Error ? (error.message.split("\n")[0] ?? "") : String(error)}`);
    }
    if (scope !== "once") return this.#runners.running(mount, mount.call(tool, args, ctx));
    try {
      return await mount.call(tool, args, ctx);
    } finally {
      await mount.close();
    }
  }

  /** Starts the server with `grant` added to those it has, in place of the one running. */
  async #widen(grant: MissingGrant, scope: Exclude<GrantScope, "once">): Promise<McpMount> {
    const before = this.#granted;
    const entry = withGrant(before?.entry ?? this.#entry, grant);
    const mount = await this.#grants.reopen(entry);
    this.#granted = { entry, mount };
    void this.#runners.retire(before?.mount ?? this.#mount);
    if (scope === "saved") await this.#grants.save(grant);
    return mount;
  }

  warm(): void {}

  async close(): Promise<void> {
    await Promise.all([this.#runners.endRetiring(), this.#mount.close(), this.#granted?.mount.close()]);
  }
}
