/**
 * Where a plugin runs, behind one interface: in the app's process (in-process.ts) or in its
 * own confined process (confined.ts). `hostedEntries` is the one wrapper that turns either
 * into registry entries, so the runtime treats them alike: arguments validated once, in the
 * app, by the compiled TypeBox check of the tool's own schema; a handler's bug rethrown as
 * what it threw, for the runtime to wrap in the same `PluginError`; the model's call id and
 * the call's signal passed on; `concurrency` (including `{ writes }`) honoured.
 */
import { type AnyToolDefinition, defineTool, type ResultsFile, type TObject, type ToolContext, type ToolResult } from "@plugboard/core";
import type { RegistryEntry } from "@plugboard/core/internal";
import type { LoadedPlugin } from "@plugboard/loader/loaded-plugin";
import type { ConcurrencyKind } from "./protocol.ts";

/** A tool as its host offers it. */
export interface HostedTool {
  readonly name: string;
  readonly description: string;
  /** Its TypeBox schema (rebuilt from the host's listing when confined). */
  readonly parameters: TObject;
  /** Its output schema, when it declares one (rebuilt the same way). */
  readonly outputSchema?: TObject;
  readonly concurrency: ConcurrencyKind;
}

/** A plugin in its host, with its tools in the order its code returned them. */
export interface HostedPlugin {
  readonly plugin: LoadedPlugin;
  readonly tools: readonly HostedTool[];
}

/** What a call carries to its host besides the validated arguments. */
export interface HostCall {
  /** The model's tool call id. */
  readonly callId: string;
  readonly signal: AbortSignal;
  /** Where a result too large for the model goes (the tool's `ctx.results`). */
  readonly results?: ResultsFile;
}

/** How `close` ends a host. */
export interface CloseOptions {
  /** Wait until nothing of the host is left. @default true */
  readonly wait?: boolean;
}

/** One or more plugins, loaded where they run. */
export interface PluginHost {
  readonly plugins: readonly HostedPlugin[];
  /**
   * Runs `tool`'s handler: its result (a `ToolError` it threw, or its call's abort, already
   * made a result); anything else it throws is thrown here, as it was thrown.
   */
  call(tool: string, args: Record<string, unknown>, call: HostCall): Promise<ToolResult>;
  /** What a call of a `{ writes }` tool writes; what its `writes` throws is thrown here. */
  writes(tool: string, args: Record<string, unknown>): Promise<string>;
  /** Gets ready for a first call now, in the background (a confined host not yet started starts). */
  warm(): void;
  /**
   * Ends the host; safe to call twice. Resolves once nothing of it is left, unless `wait` is
   * false (a process about to exit, which ends what is left anyway): then once it is told to end.
   */
  close(options?: CloseOptions): Promise<void>;
}

/** A `{ writes }` tool's definition never computes its key itself here: the entry's `writes` does. */
const ASKED_OF_THE_HOST = {
  writes(): string {
    throw new TypeError("what this call writes is asked of its host (RegistryEntry.writes)");
  },
};

/**
 * The registry entries of every tool of `host`, in order. Each handler hands the call to the
 * host; each entry's owner is its plugin.
 */
export function hostedEntries(host: PluginHost): RegistryEntry[] {
  return host.plugins.flatMap(({ plugin, tools }) =>
    tools.map((hosted): RegistryEntry => {
      const tool: AnyToolDefinition = defineTool({
        name: hosted.name,
        description: hosted.description,
        parameters: hosted.parameters,
        ...(hosted.outputSchema === undefined ? {} : { outputSchema: hosted.outputSchema }),
        concurrency: hosted.concurrency === "writes" ? ASKED_OF_THE_HOST : hosted.concurrency,
        handler: (args: Record<string, unknown>, ctx: ToolContext) => host.call(hosted.name, args, { callId: ctx.callId, signal: ctx.signal, ...(ctx.results ? { results: ctx.results } : {}) }),
      });
      return {
        tool,
        owner: plugin.name,
        ...(hosted.concurrency === "writes" ? { writes: (args: Record<string, unknown>) => host.writes(hosted.name, args) } : {}),
      };
    }),
  );
}

/** How a definition's `concurrency` is listed. */
export function concurrencyKind(tool: AnyToolDefinition): ConcurrencyKind {
  const { concurrency } = tool;
  return concurrency === undefined ? "serial" : typeof concurrency === "string" ? concurrency : "writes";
}
