/**
 * Mounting an MCP server: connect the SDK's `Client` over stdio or Streamable HTTP, list
 * its tools, and offer them as a `ToolSource` (core's interface): the runtime hands each call
 * to the mount, which forwards it to the server. A stdio server that dies fails the call in
 * flight and is started again on the next one.
 */
import type { CallToolResult, Progress, Tool } from "@modelcontextprotocol/client";
import { defineTool, errorResult, type Logger, silentLogger, type ToolContext, type ToolResult } from "@plugboard/core";
import type { TObject } from "@plugboard/core";
import { answeredOrCancelled, type ArgumentsValidator, lazily, MAX_SCHEMA_NODES, type RegistryEntry, type ToolSource, toolErrors } from "@plugboard/core/internal";
import { type Connection, connect, stderrOf } from "./connect.ts";
import { toolResult } from "./content.ts";
import { McpMountError, reasonOf, stderrLines } from "./mount-error.ts";
import type { Elicitor } from "./elicitation.ts";
import type { Launcher } from "./process-transport.ts";

export { McpMountError } from "./mount-error.ts";

export type { Launch, Launcher } from "./process-transport.ts";

/** A server started as a child process and spoken to over its stdin and stdout. */
export interface StdioServer {
  readonly command: string;
  readonly args?: readonly string[];
  /** Added to a minimal environment (`PATH`, `HOME`, `USER`, …): the app's secrets are not passed. */
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
}

/** A server reached over Streamable HTTP. */
export interface HttpServer {
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface MountOptions {
  /** The server's name in the config: owner of its tools and subject of every message. */
  readonly name: string;
  readonly server: StdioServer | HttpServer;
  /** Put before every tool name (`fs_` → `fs_read_file`), to resolve a name clash. */
  readonly prefix?: string;
  /** Rewrites a stdio server's command line before it is spawned (the sandbox wraps it). */
  readonly launcher?: Launcher;
  /**
   * Shows a server's request for input (elicitation) to the person. Without one, such a
   * request is declined: there is no one to ask.
   */
  readonly elicit?: Elicitor;
  /**
   * Where the OAuth tokens of Streamable HTTP servers are kept (`authFolder()`); a server that
   * requires a login finds them there. Without, no OAuth is attempted.
   */
  readonly authFolder?: string;
  /** Told the values of the OAuth tokens the SDK saves while the server is mounted (a refresh), for the app to keep from the model. @default none */
  readonly onTokens?: (values: readonly string[]) => void;
  /** How long one call may go without an answer or a progress notification (each one starts it again). @default 600000 */
  readonly timeoutMs?: number;
  /** How long one call may take, whatever progress it tells. @default 3600000 */
  readonly maxTotalMs?: number;
  readonly logger?: Logger;
  /**
   * Begun as each call starts, given whether the tool is read-only: what it returns is applied
   * to the call's result (the sandbox's refusal hint of a confined server). @default none
   */
  readonly explain?: (readOnly: boolean) => (result: ToolResult) => ToolResult;
}

/** What a server listed when it started. */
interface Listed {
  readonly tools: readonly Tool[];
  readonly serverInfo: McpMount["serverInfo"];
}

/** Compiles a tool's input schema (`jsonSchemaValidator`); throws when the schema cannot be used. */
type Validator = (schema: Readonly<Record<string, unknown>>) => ArgumentsValidator;

const DEFAULT_TIMEOUT_MS = 600_000;
/** A call that keeps telling progress is ended after this all the same (the protocol asks for a bound). */
const DEFAULT_MAX_TOTAL_MS = 3_600_000;
const NOT_A_NAME = /[^A-Za-z0-9_-]/g;

/** A mounted server: the source of its tools (`entries`, `call`), and `close()` to end it. */
export class McpMount implements ToolSource {
  readonly name: string;
  /** Its tools' owner: the server's `name`. */
  readonly owner: string;
  /** One registry entry per tool, in the server's order; validated against its JSON Schema. */
  readonly entries: readonly RegistryEntry[];
  /** The tools as the server listed them. */
  readonly tools: readonly Tool[];
  /** The server's own name and version, as it introduced itself. */
  readonly serverInfo: { readonly name: string; readonly version: string };
  /** The protocol revision agreed with the server (`2026-07-28`, or a 2025 one for an older server). */
  readonly protocolVersion: string;
  readonly #options: MountOptions;
  /** The server's name for each tool, by its name in the registry (prefixed). */
  readonly #names = new Map<string, Tool>();
  /** The checks of the tools that declare an output schema, by the server's name for the tool. */
  readonly #outputChecks = new Map<string, ArgumentsValidator>();
  #connection: Promise<Connection> | undefined;
  #closed = false;
  /** The era the server answered in, so that a restart skips the probe. */
  #verdict: Connection["verdict"] | undefined;

  private constructor(options: MountOptions, listed: Listed, connection: Connection, validator: Validator) {
    this.name = options.name;
    this.owner = options.name;
    this.#options = options;
    this.tools = listed.tools;
    this.serverInfo = listed.serverInfo;
    this.protocolVersion = connection.client.getNegotiatedProtocolVersion() ?? "unknown";
    this.entries = this.#build(validator);
    this.#keep(Promise.resolve(connection));
  }

  /**
   * Starts (or reaches) the server and lists its tools, every page of them.
   *
   * @example const mount = await McpMount.open({ name: "fs", server: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "."] } });
   */
  static async open(options: MountOptions): Promise<McpMount> {
    // Ajv and its formats (`json-schema.ts`), loaded by the first mount.
    const { jsonSchemaValidator } = await lazily("the JSON Schema validator (Ajv)", () => import("./json-schema.ts"));
    const connection = await connect(options);
    try {
      // Every page, walked here (the SDK's walk stops at 64); not kept in the SDK's cache, so
      // that structured results are checked once, here, with the same validator as arguments.
      const tools: Tool[] = [];
      let cursor: string | undefined;
      do {
        const page = await connection.client.listTools(cursor === undefined ? undefined : { cursor }, { cacheMode: "bypass" });
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      const info = connection.client.getServerVersion();
      const serverInfo = { name: info?.name ?? options.name, version: info?.version ?? "unknown" };
      return new McpMount(options, { tools, serverInfo }, connection, jsonSchemaValidator);
    } catch (error) {
      await connection.client.close();
      throw new McpMountError(options.name, reasonOf(error), await stderrOf(connection));
    }
  }

  /** The server's process id while a stdio server runs. */
  async pid(): Promise<number | undefined> {
    const connection = await this.#connection;
    return connection?.kind === "stdio" ? connection.transport.pid : undefined;
  }

  /** The entries, each tool's schemas (input, and output when it has one) compiled at once by `validator`; a schema that cannot be used throws, naming the tool. */
  #build(validator: Validator): RegistryEntry[] {
    const prefix = this.#options.prefix ?? "";
    return this.tools.map((tool) => {
      const name = `${prefix}${tool.name}`.replace(NOT_A_NAME, "_").slice(0, 64);
      const validate = compiled(tool, "input", tool.inputSchema, validator);
      const { outputSchema } = tool;
      if (outputSchema !== undefined) this.#outputChecks.set(tool.name, compiled(tool, "output", outputSchema, validator));
      this.#names.set(name, tool);
      const definition = defineTool({
        name,
        description: tool.description ?? tool.title ?? "",
        // Plain JSON Schema, sent as it is and checked by `validate`, never compiled by TypeBox.
        parameters: tool.inputSchema as unknown as TObject,
        // The server's hint: its read-only tools may run alongside each other in one model turn.
        ...(tool.annotations?.readOnlyHint === true ? { concurrency: "read-only" as const } : {}),
        // For whoever calls the definition itself: the runtime calls the source.
        handler: (args: Record<string, unknown>, ctx: ToolContext) => this.call(name, args, ctx),
      });
      return { tool: definition, owner: this.name, validate, source: this };
    });
  }

  /**
   * Calls `tool` (its name in the registry) on the server: its result, decorated by `explain`;
   * given up on 2 s after the call's abort when the server does not answer (`answeredOrCancelled`).
   */
  call(tool: string, args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
    const listed = this.#names.get(tool);
    if (listed === undefined) return Promise.reject(new TypeError(`MCP server ${this.name} has no tool ${tool}`));
    const finish = this.#options.explain?.(listed.annotations?.readOnlyHint === true);
    const answered = this.#call(listed.name, args, ctx);
    return answeredOrCancelled(finish === undefined ? answered : answered.then(finish), ctx.signal);
  }

  /** A mount is connected once open: nothing to start. */
  warm(): void {}

  /**
   * Ends the server: its whole process tree for stdio, its session (when it keeps one) for
   * HTTP. Later calls get an `Error:` result.
   */
  async close(): Promise<void> {
    this.#closed = true;
    const connection = await this.#connection?.catch(() => undefined);
    this.#connection = undefined;
    if (connection?.kind === "http") {
      // A server gone already has no session left to end.
      await connection.transport.terminateSession().catch(() => undefined);
    }
    await connection?.client.close();
  }

  async #call(tool: string, args: Record<string, unknown>, { signal, progress }: ToolContext): Promise<ToolResult> {
    if (this.#closed) return errorResult(`MCP server ${this.name} is closed`);
    if (signal.aborted) return toolErrors.cancelled();
    let connection: Connection;
    try {
      connection = await this.#connected();
    } catch (error) {
      return errorResult(`MCP server ${this.name} could not be restarted: ${reasonOf(error)}`);
    }
    try {
      const result = await connection.client.callTool({ name: tool, arguments: args }, {
        signal,
        // Progress is always asked for: each notification shows the server at work and starts the timeout again, up to
        // the total bound; a person watching the call (at a terminal) sees one line per notification.
        timeout: this.#options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        resetTimeoutOnProgress: true,
        maxTotalTimeout: this.#options.maxTotalMs ?? DEFAULT_MAX_TOTAL_MS,
        onprogress: (step: Progress) => progress?.(`${progressLine(step)}\n`),
      });
      if (!("content" in result)) return errorResult(`MCP server ${this.name} answered ${tool} without content`);
      return this.#checked(tool, result as CallToolResult) ?? toolResult(result as CallToolResult);
    } catch (error) {
      if (signal.aborted) return toolErrors.cancelled();
      const reason = (await this.#timeoutOf(error)) ?? reasonOf(error);
      return errorResult(`MCP server ${this.name} failed during ${tool}: ${reason}${stderrLines(await stderrOf(connection))}`);
    }
  }

  /** The SDK's timeout of a call said with its bound: how long the server went quiet, or the total a call may take; undefined for another error. */
  async #timeoutOf(error: unknown): Promise<string | undefined> {
    // The SDK is loaded already: the call went through it.
    const { SdkError, SdkErrorCode } = await import("@modelcontextprotocol/client");
    if (!(error instanceof SdkError) || error.code !== SdkErrorCode.RequestTimeout) return undefined;
    const data = error.data as { maxTotalTimeout?: unknown } | undefined;
    if (typeof data?.maxTotalTimeout === "number") return `it was still at work after ${seconds(data.maxTotalTimeout)}, the most one call may take, progress or not`;
    return `it neither answered nor told progress for ${seconds(this.#options.timeoutMs ?? DEFAULT_TIMEOUT_MS)}`;
  }

  /** An `Error:` result when a tool that declares an output schema answered something else. */
  #checked(tool: string, result: CallToolResult): ToolResult | undefined {
    const check = this.#outputChecks.get(tool);
    if (check === undefined || result.isError === true) return undefined;
    if (result.structuredContent === undefined) return errorResult(`MCP server ${this.name} answered ${tool} without the structured content its output schema promises`);
    const problems = check(result.structuredContent);
    if (problems.length === 0) return undefined;
    return errorResult(`MCP server ${this.name} answered ${tool} with structured content that does not match its output schema: ${problems.join("; ")}`);
  }

  /** The live connection, or a new one when the server has gone away. */
  #connected(): Promise<Connection> {
    if (this.#connection) return this.#connection;
    (this.#options.logger ?? silentLogger).info(`restarting MCP server ${this.name}`);
    return this.#keep(connect(this.#options, this.#verdict));
  }

  #keep(connection: Promise<Connection>): Promise<Connection> {
    this.#connection = connection;
    connection.then(
      ({ client, verdict }) => {
        this.#verdict = verdict;
        client.onclose = () => {
          if (this.#connection === connection) this.#connection = undefined;
        };
      },
      () => {
        if (this.#connection === connection) this.#connection = undefined;
      },
    );
    return connection;
  }
}

/** A tool's schema compiled; one that cannot be used (or is too large to compile) throws, naming the tool (the mount then fails). */
function compiled(tool: Tool, which: "input" | "output", schema: Readonly<Record<string, unknown>>, validator: Validator): ArgumentsValidator {
  try {
    if (overNodes(schema, MAX_SCHEMA_NODES)) throw new Error(`it holds more than ${MAX_SCHEMA_NODES.toLocaleString("en")} schemas (objects and arrays), the most a tool's schema may hold`);
    return validator(schema);
  } catch (error) {
    throw new Error(`its tool ${tool.name} has an ${which} schema that cannot be used: ${reasonOf(error)}`);
  }
}

/** Whether `value` holds more than `most` objects and arrays (each shared one counted once), counted no further than that. */
function overNodes(value: unknown, most: number): boolean {
  const seen = new Set<object>();
  const waiting: unknown[] = [value];
  for (let next = waiting.pop(); next !== undefined || waiting.length > 0; next = waiting.pop()) {
    if (typeof next !== "object" || next === null || seen.has(next)) continue;
    if (seen.size === most) return true;
    seen.add(next);
    for (const inner of Array.isArray(next) ? next : Object.values(next)) waiting.push(inner);
  }
  return false;
}

/** A server's progress notification as a line of the call's output: its message and how far it got (`scanning files (1/3)`). */
function progressLine({ progress, total, message }: Progress): string {
  const count = total === undefined ? `${progress}` : `${progress}/${total}`;
  return message === undefined || message === "" ? count : `${message} (${count})`;
}

/** `ms` in seconds, as a person reads a bound: `600 s`, `1.5 s`. */
function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1)).toLocaleString("en")} s`;
}
