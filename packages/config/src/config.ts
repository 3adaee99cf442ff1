/**
 * Loading an app's config: the JSON file, the `.env` beside it, the environment and the
 * command-line flags, merged with the precedence flag > environment > config file > default.
 */
import { defaultDialect, type ModelSettings } from "@plugboard/agent/settings";
import { ALLOW_ALL, DEFAULT_HOOK_TIMEOUT_MS, DEFAULT_TOOL_SEARCH, type Hook, type Hooks, NO_HOOKS, type Policy, type Secret, type ToolSearchSettings } from "@plugboard/runtime";
import { DEFAULT_RESULTS_LIMITS, type ResultsLimits } from "@plugboard/core";
import { dirname, join, resolve } from "node:path";
import * as v from "valibot";
import { homedir } from "node:os";
import { expandHome } from "@plugboard/sandbox/granted-paths";
import { DEFAULT_LIMITS, type Limits } from "@plugboard/sandbox/limits";
import { plantedRecordFile, refusePlanted } from "@plugboard/sandbox/planted-files";
import type { SandboxMode } from "@plugboard/sandbox/sandbox-mode";
import { DEFAULT_PROTECT_DEPTH } from "@plugboard/sandbox/workspace-scan";
import { ConfigFileSchema, type ConfigFile, MAX_STEPS_RANGE } from "./config-schema.ts";
import { readDotEnv } from "./env.ts";
import { configSecrets, workspaceDotEnv } from "./secrets.ts";
import { hookProgram } from "./hook-program.ts";
import { parseJson } from "./json.ts";
import { lockFileOf } from "./lock-file.ts";
import { configErrors } from "./messages.ts";
import type { Dialect, Permission } from "@plugboard/core";
import { readTextBounded } from "@plugboard/core/internal";
import { describeIssues } from "./schema-kit.ts";

/**
 * Values from command-line flags, as the person typed them; each wins over everything else.
 * They are checked here and nowhere else (`USAGE` errors naming the flag).
 */
export interface ConfigOverrides {
  /** Relative to `cwd`. */
  workspace?: string;
  model?: string;
  /** An http(s) URL. */
  baseURL?: string;
  /** A whole number from 1 to 1000. */
  maxSteps?: string;
}

/** Which model to talk to, and how. */
/** One plugin the config enables: exactly one of `package` and `path` is set. */
export interface PluginEntry {
  package?: string;
  path?: string;
  permissions: Permission[];
  /** The hosts its `network` grant is narrowed to (`api.example.com`, `*.github.com`, `localhost:4873`); none: any host. */
  network?: string[];
  /** Paths it may read besides the workspace (absolute, `~` expanded). */
  read?: string[];
  /** Paths it may read and write besides the workspace (absolute, `~` expanded), but their protected paths. */
  write?: string[];
  options: unknown;
  /** `false`: run this plugin in the app's process, unconfined (trusted code). */
  sandbox?: false;
}

/** How to reach an MCP server: a command started over stdio, or a Streamable HTTP URL. */
export type McpServerConfig =
  | { command: string; args: string[]; env: Record<string, string> }
  | { url: string; headers: Record<string, string> };

/** An MCP server whose tools the config mounts as if a plugin provided them. */
export interface McpEntry {
  mcp: McpServerConfig;
  /** Names the server in messages and listings. */
  name: string;
  /** Put before each of its tool names, to resolve a clash. */
  prefix: string | undefined;
  permissions: Permission[];
  /** The hosts a stdio server's `network` grant is narrowed to; none: any host. */
  network?: string[];
  /** Paths a stdio server may read besides the workspace (absolute, `~` expanded). */
  read?: string[];
  /** Paths a stdio server may read and write besides the workspace (absolute, `~` expanded), but their protected paths. */
  write?: string[];
  /** `false`: start a stdio server unconfined (trusted code). */
  sandbox?: false;
  /** `"trusted"`: its results do not taint the session (`policy.taint`); absent means untrusted. */
  trust?: "trusted" | "untrusted";
}

/** The validated, merged config of an app. */
export interface AppConfig {
  /** Absolute path of the config file. */
  configPath: string;
  /** Absolute; not yet checked to exist. */
  workspace: string;
  /** `default` is the caller's working folder. */
  workspaceSource: "flag" | "config" | "default";
  model: ModelSettings;
  maxSteps: number;
  /** When the model is sent `tool_search` and the pinned tools instead of every tool (`tools`); pinned names are checked by the app's build. */
  tools: ToolSearchSettings;
  systemPrompt: string | undefined;
  /** Whether plugins run confined (see `@plugboard/sandbox`). */
  sandbox: SandboxMode;
  /** In config order: plugins and MCP servers. */
  plugins: (PluginEntry | McpEntry)[];
  /** Allow, ask or deny each call; every call is allowed when the file sets none. */
  policy: Policy;
  /** The user's programs run before and after calls, commands resolved against the config's folder; none when the file sets none. */
  hooks: Hooks;
  /** Absolute path of the audit log (`audit`, relative to the config file), if any. */
  audit: string | undefined;
  /** Paths or glob patterns (relative to the config file) kept read-only to confined plugins, besides the always protected ones. */
  protect: readonly string[];
  /** How many folder levels below the workspace repositories and other tools' files are looked for and protected (`protectDepth`). */
  protectDepth: number;
  /** Results over `maxBytes` go to `.plugboard/results/` in the workspace (`results`; core's defaults). */
  results: ResultsLimits;
  /** The bounds of each confined plugin's or server's process tree (`limits`; the sandbox's defaults). */
  limits: Limits;
  /**
   * The values the model must never read (secrets.ts): the model key, the `.env` files' values
   * whose names say KEY, TOKEN, SECRET, PASSWORD or AUTH, MCP entries' `headers` and `env`.
   */
  secrets: readonly Secret[];
}

/** The config's `sandbox` key (the sandbox's modes). */
export type { SandboxMode };

/** Inputs of `loadConfig` besides the file; each defaults to the process's own. */
export interface LoadConfigOptions {
  overrides?: ConfigOverrides;
  env?: Record<string, string | undefined>;
  cwd?: string;
}

/** What an HTTP header value cannot hold (a key goes in `Authorization`): anything but visible ASCII, space and tab. */
const NOT_IN_A_HEADER = /[^\t\x20-\x7e]/;

/** The model name used when no flag, environment variable or config key sets one. */
export const DEFAULT_MODEL = "gpt-4.1-mini";
/** The step limit used when no flag or config key sets one. */
export const DEFAULT_MAX_STEPS = 20;

/**
 * Reads and validates the config file (and the `.env` beside it); refuses it, the `.env` or
 * the lock file beside it when a plugin may have planted or changed it (`PLANTED_FILE`, see `refusePlanted`).
 * Precedence: flag > environment > config file > default. Throws `PlugboardError`
 * (`CONFIG_NOT_FOUND`, `CONFIG_INVALID`, `USAGE` for a bad flag value).
 *
 * @example const config = await loadConfig("plugboard.json", { overrides: { maxSteps: 5 } });
 */
export async function loadConfig(configPath: string, options: LoadConfigOptions = {}): Promise<AppConfig> {
  const cwd = resolve(options.cwd ?? process.cwd());
  const path = resolve(cwd, configPath);
  const flags = checkOverrides(options.overrides ?? {});
  const given = options.env ?? process.env;
  const record = plantedRecordFile(given);
  refusePlanted(record, path, "the config");
  const file = readConfigFile(path);
  const folder = dirname(path);
  refusePlanted(record, join(folder, ".env"), "the .env beside the config");
  refusePlanted(record, lockFileOf(path), "the lock file beside the config");
  const dotEnv = await readDotEnv(join(folder, ".env")).catch((error: unknown) => {
    if (typeof Reflect.get(error as object, "code") === "string") throw configErrors.unreadable(join(folder, ".env"), error);
    throw error;
  });
  const env = environment(given, dotEnv, join(folder, ".env"));

  const workspace =
    flags.workspace !== undefined
      ? { workspace: resolve(cwd, flags.workspace), workspaceSource: "flag" as const }
      : file.workspace !== undefined
        ? { workspace: resolve(folder, file.workspace), workspaceSource: "config" as const }
        : { workspace: cwd, workspaceSource: "default" as const };
  const envBaseURL = env.get("BASE_URL", "OPENAI_BASE_URL");
  if (envBaseURL && !URL.canParse(envBaseURL.value)) throw configErrors.envURL(envBaseURL.key, envBaseURL.source, envBaseURL.value);
  const modelKey = env.get("MODEL_API_KEY", "OPENAI_API_KEY");
  const unsendable = modelKey === undefined ? -1 : modelKey.value.search(NOT_IN_A_HEADER);
  if (modelKey && unsendable >= 0) throw configErrors.envKeyUnsendable(modelKey.key, modelKey.source, modelKey.value, unsendable);
  const plugins = file.plugins.map(({ package: name, path: folderPath, mcp, name: serverName, prefix, permissions, network, read, write, options: pluginOptions, sandbox, trust }) => {
    const narrowed = { ...(network === undefined ? {} : { network }), ...grantedPaths(read, write, given.HOME) };
    if (mcp !== undefined) {
      return { mcp: mcpServer(mcp), name: serverName ?? "", prefix, permissions, ...narrowed, ...(sandbox === false ? { sandbox } : {}), ...(trust === undefined ? {} : { trust }) };
    }
    return {
      ...(name === undefined ? {} : { package: name }),
      ...(folderPath === undefined ? {} : { path: folderPath }),
      permissions,
      ...narrowed,
      options: pluginOptions ?? {},
      ...(sandbox === false ? { sandbox } : {}),
    };
  });

  return {
    configPath: path,
    ...workspace,
    model: modelSettings(
      flags.model ?? env.get("MODEL")?.value ?? file.model?.name ?? DEFAULT_MODEL,
      flags.baseURL ?? envBaseURL?.value ?? file.model?.baseURL,
      modelKey?.value,
      file.model?.dialect,
    ),
    maxSteps: flags.maxSteps ?? file.maxSteps ?? DEFAULT_MAX_STEPS,
    tools: {
      searchOver: file.tools?.searchOver ?? DEFAULT_TOOL_SEARCH.searchOver,
      pinned: [...new Set(file.tools?.pinned ?? DEFAULT_TOOL_SEARCH.pinned)],
    },
    systemPrompt: file.systemPrompt,
    sandbox: file.sandbox,
    plugins,
    policy: file.policy ?? ALLOW_ALL,
    hooks: file.hooks === undefined ? NO_HOOKS : { before: file.hooks.before.map((entry) => hookOf(entry, folder)), after: file.hooks.after.map((entry) => hookOf(entry, folder)) },
    audit: file.audit === undefined ? undefined : resolve(folder, file.audit),
    protect: file.protect ?? [],
    protectDepth: file.protectDepth ?? DEFAULT_PROTECT_DEPTH,
    results: {
      maxBytes: file.results?.maxBytes ?? DEFAULT_RESULTS_LIMITS.maxBytes,
      maxFileBytes: file.results?.maxFileBytes ?? DEFAULT_RESULTS_LIMITS.maxFileBytes,
    },
    limits: { ...DEFAULT_LIMITS, ...file.limits },
    secrets: await configSecrets({ modelKey, dotEnv, workspaceDotEnv: workspaceDotEnv(workspace.workspace, folder), plugins }),
  };
}

/**
 * A hook entry as the runtime runs it (see hook-program.ts): its paths resolved against the
 * config's folder, its program found, and its program's folder the one it runs in.
 */
function hookOf(entry: NonNullable<ConfigFile["hooks"]>["before"][number], folder: string): Hook {
  return {
    ...(entry.tool === undefined ? {} : { tool: entry.tool }),
    ...hookProgram(entry.command, folder),
    label: entry.command.join(" "),
    timeoutMs: entry.timeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS,
  };
}

/** An entry's `read` and `write`, `~` made the home folder; absent when the file sets none. */
function grantedPaths(read: string[] | undefined, write: string[] | undefined, home: string | undefined): { read?: string[]; write?: string[] } {
  const expand = (paths: string[]) => paths.map((path) => expandHome(path, home || homedir()));
  return { ...(read === undefined ? {} : { read: expand(read) }), ...(write === undefined ? {} : { write: expand(write) }) };
}

function mcpServer(server: NonNullable<ConfigFile["plugins"][number]["mcp"]>): McpServerConfig {
  if (server.command !== undefined) return { command: server.command, args: server.args ?? [], env: server.env ?? {} };
  return { url: server.url ?? "", headers: server.headers ?? {} };
}

/**
 * The config file read and validated. Read at once (a config is a few kilobytes), not handed to
 * one of Bun's file threads and awaited: the config's stage of a start is the shorter for it.
 */
function readConfigFile(path: string): ConfigFile {
  const text = readText(path);
  const json = parseJson(text);
  if (!json.ok) throw configErrors.syntax(path, json);
  const parsed = v.safeParse(ConfigFileSchema, json.value, { abortEarly: false, abortPipeEarly: true });
  if (!parsed.success) throw configErrors.invalid(path, describeIssues(parsed.issues));
  return parsed.output;
}

/** The config file's text; a missing file, a folder, a FIFO or a device is the person's error (bounded-read.ts). */
function readText(path: string): string {
  try {
    return readTextBounded(path);
  } catch (error) {
    const code = Reflect.get(error as object, "code");
    if (code === "ENOENT") throw configErrors.notFound(path);
    if (code === "EISDIR") throw configErrors.notAFile(path);
    // Not ours to read, a link that loops, a name too long: the person's to mend, said in one line.
    if (typeof code === "string") throw configErrors.unreadable(path, error);
    throw error;
  }
}

/** The flags after checking: the step limit as a number. */
interface CheckedOverrides {
  readonly workspace?: string;
  readonly model?: string;
  readonly baseURL?: string;
  readonly maxSteps?: number;
}

/** The model settings; the dialect is the config's, else the one of the base URL's host. */
function modelSettings(name: string, baseURL: string | undefined, apiKey: string | undefined, dialect: Dialect | undefined): ModelSettings {
  return { name, baseURL, apiKey, dialect: dialect ?? defaultDialect(baseURL) };
}

function checkOverrides(flags: ConfigOverrides): CheckedOverrides {
  const { min, max } = MAX_STEPS_RANGE;
  const steps = flags.maxSteps === undefined ? undefined : /^\d+$/.test(flags.maxSteps) ? Number(flags.maxSteps) : Number.NaN;
  if (steps !== undefined && !(steps >= min && steps <= max)) {
    throw configErrors.flag("--max-steps", `a whole number from ${min} to ${max}`, flags.maxSteps);
  }
  if (flags.baseURL !== undefined && !isHttpURL(flags.baseURL)) {
    throw configErrors.flag("--base-url", "an http(s) URL such as http://localhost:11434/v1", flags.baseURL);
  }
  if (flags.model === "") throw configErrors.flag("--model", "a model name", flags.model);
  if (flags.workspace === "") throw configErrors.flag("--workspace", "a folder path", flags.workspace);
  const { maxSteps: _typed, ...rest } = flags;
  return { ...rest, ...(steps === undefined ? {} : { maxSteps: steps }) };
}

function isHttpURL(text: string): boolean {
  const url = URL.canParse(text) ? new URL(text) : undefined;
  return url?.protocol === "http:" || url?.protocol === "https:";
}

interface Found {
  readonly key: string;
  readonly value: string;
  readonly source: string;
}

/** Looks variables up by name, in order; for each name the real environment wins over `.env`. Empty means unset. */
function environment(real: Record<string, string | undefined>, dotEnv: Record<string, string>, dotEnvPath: string) {
  return {
    get(...keys: string[]): Found | undefined {
      for (const key of keys) {
        if (real[key]) return { key, value: real[key], source: "from the environment" };
        if (dotEnv[key]) return { key, value: dotEnv[key], source: `from ${dotEnvPath}` };
      }
      return undefined;
    },
  };
}
