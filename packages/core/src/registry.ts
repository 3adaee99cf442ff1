/**
 * The registry: an instance-owned index of tool definitions, built from an explicit list.
 * The `tools` array sent to the model and the validators used to execute come from the
 * same index, so the model can never see a tool that cannot run, or the reverse. Each
 * schema is compiled once, on its first use.
 */
import type { TObject } from "@sinclair/typebox";
import type { TypeCheck } from "./compiler.ts";
import type { AnyToolDefinition } from "./contract.ts";
import { type Dialect, rewriteSchema, type SentSchema } from "./dialect.ts";
import { lazilySync } from "./lazily.ts";
import { fieldProblems } from "./schema-errors.ts";
import type { ToolSource } from "./tool-source.ts";

/**
 * A tool as the model is sent it: the chat-completions `tools` entry (the `openai` SDK's
 * `ChatCompletionFunctionTool` has this shape), so that the contract needs no SDK to name it.
 */
export interface FunctionTool {
  readonly type: "function";
  readonly function: {
    readonly name: string;
    readonly description?: string;
    readonly parameters?: Record<string, unknown>;
    /** OpenAI's strict mode for this tool (the `openai-strict` dialect, where its schema can be made strict). */
    readonly strict?: boolean;
  };
}

/** How a registry sends its tools. */
export interface RegistryOptions {
  /** The schema dialect of the endpoint: each tool's parameters are rewritten for it once, here. @default "openai" */
  readonly dialect?: Dialect;
}

/**
 * Checks parsed arguments: one `path: problem` text per failing field, none when they are
 * valid. The runtime calls it before the handler.
 */
export type ArgumentsValidator = (args: unknown) => readonly string[];

/** A tool together with who provided it. */
export interface RegistryEntry {
  readonly tool: AnyToolDefinition;
  /** Who provided the tool (a plugin name), named in duplicate-name errors and handler failures. */
  readonly owner?: string;
  /**
   * Validates the arguments instead of a compiled TypeBox schema, for a tool whose
   * `parameters` is plain JSON Schema (an MCP server's tool). Its `parameters` are then
   * sent to the model as they are.
   */
  readonly validate?: ArgumentsValidator;
  /**
   * Names what a call of a `{ writes }` tool writes, instead of its `concurrency.writes`: for a
   * tool whose code runs elsewhere (a confined plugin's host), which answers asynchronously.
   */
  readonly writes?: (args: Record<string, unknown>) => Promise<string>;
  /** Where the tool's calls go (see tool-source.ts); none: a bare definition, whose handler runs in the app's process. */
  readonly source?: ToolSource;
}

/** A registered tool: its definition, its compiled validator and its model-facing schema. */
export interface RegisteredTool {
  readonly tool: AnyToolDefinition;
  readonly owner: string | undefined;
  /** The compiled TypeBox validator (compiled when first read or used); absent when the entry brought its own `validate`. */
  readonly check?: TypeCheck<TObject>;
  readonly validate: ArgumentsValidator;
  /** Checks a result's `structuredContent` against the tool's `outputSchema` (compiled on first use); absent without one. */
  readonly checkOutput?: ArgumentsValidator;
  /** What the model is sent: the tool's schema in the registry's dialect. */
  readonly schema: FunctionTool;
  /** What the dialect's rewrite changed (`dropped`, `expressed`, `notStrict`). */
  readonly sent: SentSchema;
  /** The model's arguments as the tool's schema reads them, before validation (openai-strict removes the nulls it made the model send for optional properties). */
  readonly fromModel: (args: Record<string, unknown>) => Record<string, unknown>;
  /** The entry's own `writes`, when it brought one. */
  readonly writes?: (args: Record<string, unknown>) => Promise<string>;
  /** The entry's source, where its calls go (the runtime hands each to it, once); none: a bare definition, whose handler the runtime runs itself. */
  readonly source?: ToolSource;
}

/** Thrown when two definitions share a name; names both owners when known. */
export class DuplicateToolError extends Error {
  override readonly name = "DuplicateToolError";
  constructor(
    readonly toolName: string,
    readonly owners: readonly [string | undefined, string | undefined],
  ) {
    const [first, second] = owners;
    super(
      first !== undefined && second !== undefined
        ? `Duplicate tool name: ${toolName} (provided by ${first} and by ${second})`
        : `Duplicate tool name: ${toolName}`,
    );
  }
}

export class ToolRegistry {
  readonly #tools = new Map<string, RegisteredTool>();
  /** The schema dialect its tools are sent in. */
  readonly dialect: Dialect;

  /** Indexes `entries` in order, each rewritten for `options.dialect` once; throws `DuplicateToolError` on a repeated name. */
  constructor(entries: Iterable<AnyToolDefinition | RegistryEntry>, options: RegistryOptions = {}) {
    this.dialect = options.dialect ?? "openai";
    for (const item of entries) {
      const entry: RegistryEntry = "tool" in item ? item : { tool: item };
      const existing = this.#tools.get(entry.tool.name);
      if (existing) throw new DuplicateToolError(entry.tool.name, [existing.owner, entry.owner]);
      this.#tools.set(entry.tool.name, register(entry, this.dialect));
    }
  }

  get(name: string): RegisteredTool | undefined {
    return this.#tools.get(name);
  }

  /** Tool names in registration order. */
  names(): string[] {
    return [...this.#tools.keys()];
  }

  get size(): number {
    return this.#tools.size;
  }

  /** The OpenAI `tools` array, as fresh deep copies: callers may mutate them freely. */
  schemas(): FunctionTool[] {
    return [...this.#tools.values()].map((registered) => structuredClone(registered.schema));
  }
}

function register(entry: RegistryEntry, dialect: Dialect): RegisteredTool {
  const { tool, source } = entry;
  const writes = entry.writes === undefined ? {} : { writes: entry.writes };
  const output = tool.outputSchema === undefined ? {} : { checkOutput: validatorOf(compiledLazily(tool.outputSchema), "(structuredContent)") };
  if (entry.validate) return { tool, owner: entry.owner, validate: entry.validate, ...sentIn(dialect, tool, tool.parameters), source, ...output, ...writes };
  const parameters = closed(tool.parameters);
  const compile = compiledLazily(parameters);
  return {
    tool,
    owner: entry.owner,
    get check() {
      return compile();
    },
    validate: validatorOf(compile),
    ...sentIn(dialect, tool, parameters),
    source,
    ...output,
    ...writes,
  };
}

/** What the model is sent of `tool` in `dialect`, rewritten once, here; and how its arguments come back. */
function sentIn(dialect: Dialect, tool: AnyToolDefinition, parameters: TObject): Pick<RegisteredTool, "schema" | "sent" | "fromModel"> {
  // A plain JSON copy: TypeBox's symbol keys never reach the wire.
  const sent = rewriteSchema(JSON.parse(JSON.stringify(parameters)), dialect);
  const function_ = { name: tool.name, description: tool.description, ...(sent.parameters === undefined ? {} : { parameters: sent.parameters }) };
  return { schema: { type: "function", function: { ...function_, ...(sent.strict ? { strict: true } : {}) } }, sent, fromModel: sent.fromModel ?? ((args) => args) };
}

/**
 * `schema` compiled on its first use (a call's check): an app that only lists its tools
 * (`plugboard tools`) never loads the compiler, and an app compiles only what it calls.
 */
function compiledLazily(schema: TObject): () => TypeCheck<TObject> {
  let compiled: TypeCheck<TObject> | undefined;
  return () => {
    compiled ??= typeCompiler().Compile(schema);
    return compiled;
  };
}

/** Checks a value with the compiled schema; `root` names the whole value in a problem about it. */
function validatorOf(compile: () => TypeCheck<TObject>, root?: string): ArgumentsValidator {
  return (value) => {
    const check = compile();
    return check.Check(value) ? [] : fieldProblems(check.Errors(value), root);
  };
}

/**
 * TypeBox's compiler (with its value checks and error texts), loaded by the first registry
 * that compiles a schema: an app whose tools all bring their own validator (MCP servers')
 * never loads it. Compiling is synchronous, hence `require`.
 */
function typeCompiler(): typeof import("./compiler.ts").TypeCompiler {
  return lazilySync("TypeBox's compiler", () => require("./compiler.ts") as typeof import("./compiler.ts")).TypeCompiler;
}

/** Extra properties are refused unless a schema explicitly allows them. */
function closed(schema: TObject): TObject {
  if (schema.additionalProperties !== undefined) return schema;
  // A copy with TypeBox's own marks (its enumerable symbol keys, which a spread keeps): the
  // compiler checks it as the original, and listing tools needs no TypeBox builder.
  return { ...schema, additionalProperties: false };
}
