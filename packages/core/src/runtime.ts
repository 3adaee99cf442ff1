/**
 * The runtime: one tool call in, one result out. Looks the tool up, parses and validates
 * the model's raw arguments, then calls the handler. Every expected failure is a result
 * the model can read; a programming error propagates wrapped in a `PluginError` naming the
 * tool and its plugin.
 */
import type { ChatCompletionFunctionTool } from "openai/resources/chat/completions";
import { type Logger, silentLogger, type ToolContext, type ToolResult } from "./contract.ts";
import { PluginError, ToolError, errorResult, toolErrors } from "./errors.ts";
import type { ToolRegistry } from "./registry.ts";
import type { Workspace } from "./workspace.ts";

export interface RuntimeOptions {
  readonly workspace: Workspace;
  readonly logger?: Logger;
}

/** Per-call inputs of `execute`. */
export interface ExecuteOptions {
  /** The model's tool call id; `"direct"` when a person calls the tool. */
  readonly callId?: string;
  readonly signal?: AbortSignal;
}

const NEVER = new AbortController().signal;

export class ToolRuntime {
  readonly registry: ToolRegistry;
  readonly workspace: Workspace;
  readonly #logger: Logger;

  constructor(registry: ToolRegistry, options: RuntimeOptions) {
    this.registry = registry;
    this.workspace = options.workspace;
    this.#logger = options.logger ?? silentLogger;
  }

  /** The OpenAI `tools` array (deep copies), in registration order. */
  schemas(): ChatCompletionFunctionTool[] {
    return this.registry.schemas();
  }

  /**
   * Executes tool `name` with the model's raw JSON `rawArguments`.
   *
   * @example await runtime.execute("read_file", '{"path":"README.md","limit":1}')
   */
  async execute(name: string, rawArguments: string, options: ExecuteOptions = {}): Promise<ToolResult> {
    const registered = this.registry.get(name);
    if (!registered) return toolErrors.unknownTool(name, this.registry.names());

    let args: unknown;
    try {
      args = JSON.parse(rawArguments);
    } catch (error) {
      return toolErrors.invalidJson((error as SyntaxError).message);
    }
    if (typeof args !== "object" || args === null || Array.isArray(args)) return toolErrors.notAnObject();
    const problems = registered.validate(args);
    if (problems.length > 0) return toolErrors.invalidArguments(name, problems);

    const signal = options.signal ?? NEVER;
    const ctx: ToolContext = { workspace: this.workspace, signal, callId: options.callId ?? "direct", logger: this.#logger };
    try {
      // Validated above against the tool's own schema.
      return await registered.tool.handler(args as Record<string, unknown>, ctx);
    } catch (error) {
      if (error instanceof ToolError) return errorResult(error.message);
      // A handler that stops by rethrowing the abort (as fetch or a spawned process does) was
      // cancelled, not broken: its call still gets a result.
      if (signal.aborted && (error === signal.reason || isAbortError(error))) return toolErrors.cancelled();
      throw new PluginError({ tool: name, plugin: registered.owner, phase: "handler", cause: error });
    }
  }
}

function isAbortError(error: unknown): boolean {
  return typeof error === "object" && error !== null && "name" in error && error.name === "AbortError";
}
