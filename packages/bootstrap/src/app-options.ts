/** What an app is built with besides its config: one object, given whole by `startApp` to `buildApp` and by `buildApp` to each stage. */
import type { Logger } from "@plugboard/core";
import type { HostPrograms } from "@plugboard/hosts/shipped-programs";
import type { Elicitor } from "@plugboard/mcp";
import type { McpLauncher } from "./mount-server.ts";
import type { ChangedTools } from "./pinned-tools.ts";

/** Inputs of `buildApp` besides the config. */
export interface BuildAppOptions {
  /** Given to every plugin and tool; silent by default. */
  readonly logger?: Logger;
  /**
   * The running app's own package folder: `package` entries not installed for the config's
   * folder are resolved from there (the plugins the app ships). None by default.
   */
  readonly appFolder?: string;
  /**
   * The programs confined plugins' hosts start with, when the app ships them beside its code
   * (`shippedPrograms`: the bundled CLI does). @default bundled into the listing cache's
   * folder when the first host starts, and kept there
   */
  readonly hostPrograms?: HostPrograms;
  /** Rewrites each stdio MCP server's command line before it starts; by default the sandbox confines it with its grants. */
  readonly mcpLauncher?: McpLauncher;
  /**
   * Where the sandbox's detection reads its override (`PLUGBOARD_SANDBOX_DISABLE`), and
   * where the listing cache's folder comes from (`XDG_CACHE_HOME`, `HOME`). @default process.env
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * Start every confined plugin's host now and list its tools, even when the listing cache
   * holds them for the unchanged plugin, and probe the sandbox's namespaces even when a yes is
   * kept (`plugboard check` does). By default such a host starts on its first call. @default false
   */
  readonly freshHosts?: boolean;
  /**
   * Tools about to be called (`plugboard call TOOL`): the hosts that provide them start now,
   * in the background, while the rest of the app is built, instead of at the first call.
   * `warmUp()` starts them all. @default none
   */
  readonly warm?: readonly string[];
  /**
   * Shows a mounted MCP server's request for input (elicitation) to the person. Without
   * one, such requests are declined: there is no one to ask. @default none
   */
  readonly elicit?: Elicitor;
  /**
   * Pinned tools that changed since plugboard.lock.json pinned them: accept those of one
   * plugin, server or tool, or ask about each. @default withheld from the model, each said
   * with how to accept it (a warning)
   */
  readonly changedTools?: ChangedTools;
}
