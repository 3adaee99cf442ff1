/**
 * The runtime: one tool call in, one result out. Looks the tool up, parses and validates
 * the model's raw arguments, then calls the handler. Every expected failure is a result
 * the model can read; programming errors propagate unchanged.
 */
import type { ChatCompletionFunctionTool } from "openai/resources/chat/completions";
import { type Logger, silentLogger, type ToolContext, type ToolResult } from "./contract.ts";
import { ToolError, errorResult, toolErrors } from "./errors.ts";
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

    const ctx: ToolContext = {
      workspace: this.workspace,
      signal: options.signal ?? NEVER,
      callId: options.callId ?? "direct",
      options: registered.options,
      logger: this.#logger,
    };
    try {
      // Validated above against the tool's own schema.
      return await registered.tool.handler(args as Record<string, unknown>, ctx);
    } catch (error) {
      if (error instanceof ToolError) return errorResult(error.message);
      throw error;
    }
  }
}
