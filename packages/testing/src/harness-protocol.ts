/**
 * What `checkPlugin` and its harness process (which loads and calls the plugin, so that the
 * plugin's code never runs in the caller's process) tell each other, as JSON files.
 */
import type { ToolLine } from "./tool-list.ts";

/** The harness's instructions: load the plugin, load it and call its tools, or only list its tools. */
export type HarnessInput = AppInput | ToolsInput;

/** What every kind of run is given. The harness runs in the workspace folder. */
interface RunInput {
  /** The plugin's folder: the harness runs it with the `@plugboard/core` it resolves. */
  readonly pluginDir: string;
  /** Where the harness writes its report (`HarnessReport`, or a `ToolListing` for `tools`). */
  readonly reportPath: string;
  /** The plugin's options, as its config entry gives them. */
  readonly options: unknown;
}

/** `tools`: load the plugin, whatever its manifest lists, and report the tools it returns. */
export interface ToolsInput extends RunInput {
  readonly mode: "tools";
}

/** Load the plugin (`load`), then run the checks that call its tools (`calls`). */
export interface AppInput extends RunInput {
  readonly mode: "load" | "calls";
  /** Names the plugin in its tools' errors. */
  readonly name: string;
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

/** Whether the plugin loaded, and its tools; or where and why it did not (see `LoadFailure`). */
export type LoadOutcome =
  | { readonly ok: true; readonly tools: readonly LoadedTool[] }
  | { readonly ok: false; readonly phase: string; readonly problem: string; readonly detail: string };

/** One call-based check's problems and notes. */
export interface Finding {
  readonly problems: string[];
  readonly notes: string[];
}

/** One call: a tool and its arguments, as JSON. */
export interface ToolCall {
  readonly tool: string;
  readonly arguments: string;
}

/** What the harness observed. */
export interface HarnessReport {
  readonly load: LoadOutcome;
  readonly calls?: {
    readonly invalidArguments: Finding;
    readonly foreseeableErrors: Finding;
    readonly abort: Finding;
  };
  /** In `calls` mode: the schema-valid unfit calls it made, for the confined run to make again. */
  readonly unfitCalls?: readonly ToolCall[];
  readonly effects: readonly SideEffect[];
}
