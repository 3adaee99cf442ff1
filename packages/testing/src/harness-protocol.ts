/**
 * What `checkPlugin` and its harness process (which loads and calls the plugin, so that the
 * plugin's code never runs in the caller's process) tell each other, as JSON files.
 */
import type { ToolLine } from "./tool-list.ts";

/** The harness's instructions: build an app around the plugin (`AppInput`), or only list its tools. */
export type HarnessInput = AppInput | ToolsInput;

/** What both kinds of run are given. The harness runs in the workspace folder. */
interface RunInput {
  /** The plugin's folder: the harness prefers the `@plugboard/*` copies the plugin resolves. */
  readonly pluginDir: string;
  /** Where the harness writes its report (`HarnessReport`, or a `ToolListing` for `tools`). */
  readonly reportPath: string;
  /** The plugin's options, as its config entry gives them. */
  readonly options: unknown;
}

/** `tools`: import the plugin's entry without the bootstrap, whatever its manifest lists, and report the tools it returns. */
export interface ToolsInput extends RunInput {
  readonly mode: "tools";
}

/** Build the app around the plugin. */
export interface AppInput extends RunInput {
  /**
   * `load`: build the app only; `calls`: build it, then run the checks that call tools;
   * `confined`: build it with the plugin confined by the sandbox, then call each tool with
   * the unfit inputs and collect the operations the kernel refused.
   */
  readonly mode: "load" | "calls" | "confined";
  /** A config file that lists only the plugin under test, granting every permission. */
  readonly configPath: string;
  readonly unfitInputs: Readonly<Record<string, readonly unknown[]>>;
  readonly slowInputs: Readonly<Record<string, unknown>>;
  readonly callTimeoutMs: number;
  readonly abortAfterMs: number;
  readonly abortWithinMs: number;
}

/** Something plugin code did that needs a permission: started a program or opened a connection. */
export interface SideEffect {
  readonly kind: "spawn" | "network";
  /** The command line or the address. */
  readonly detail: string;
  /** `loading`, or `calling TOOL`. */
  readonly during: string;
}

/** A tool as the model sees it. */
export interface LoadedTool {
  readonly name: string;
  readonly description: string;
  readonly parameters: unknown;
}

/** The tools the plugin's code returns (names and full descriptions), or why it could not say. */
export type ToolListing = { readonly ok: true; readonly tools: readonly ToolLine[] } | { readonly ok: false; readonly problem: string };

/** Whether the bootstrap built an app from the plugin, and what it found. */
export type LoadOutcome =
  | {
      readonly ok: true;
      readonly name: string;
      readonly version: string;
      readonly permissions: readonly string[];
      readonly tools: readonly LoadedTool[];
    }
  | { readonly ok: false; readonly code: string; readonly message: string };

/** One call-based check's problems and notes. */
export interface Finding {
  readonly problems: string[];
  readonly notes: string[];
}

/** What the harness observed. */
export interface HarnessReport {
  readonly load: LoadOutcome;
  readonly calls?: {
    readonly invalidArguments: Finding;
    readonly foreseeableErrors: Finding;
    readonly abort: Finding;
  };
  readonly effects: readonly SideEffect[];
  /** When the bootstrap refused the plugin's tools: the tools its code returns, to compare with the manifest. */
  readonly codeTools?: ToolListing;
  /** In `confined` mode: each call whose result says the sandbox refused an operation. */
  readonly refusals?: readonly Refusal[];
}

/** A confined call answered with `Error: Refused by the sandbox …`. */
export interface Refusal {
  readonly tool: string;
  /** The call's arguments, as JSON. */
  readonly arguments: string;
  /** The result's text. */
  readonly content: string;
}
