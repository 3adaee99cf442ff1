/**
 * The config file's shape, as a valibot schema: strict objects (unknown keys are refused,
 * so a typo never passes silently), and a readable message for every problem.
 */
import { DIALECTS, PERMISSIONS } from "@plugboard/core";
import { TAINT_MODES } from "@plugboard/runtime";
import { patternProblem } from "@plugboard/sandbox/egress-rules";
import { parseSize, SIZE_SPELLING } from "@plugboard/sandbox/limits";
import type { SandboxMode } from "@plugboard/sandbox/sandbox-mode";
import * as v from "valibot";
import { list, oneOf, strict, text } from "./schema-kit.ts";

/** The values of the `sandbox` key: the sandbox's modes. */
export const SANDBOX_MODES = ["auto", "required", "off"] as const satisfies readonly SandboxMode[];

/** The step limit's allowed range. */
export const MAX_STEPS_RANGE = { min: 1, max: 1000 } as const;

/** An npm package name, optionally scoped: `@plugboard/plugin-bash`, `my-tool`. */
const PACKAGE_NAME = /^(?:@[a-z0-9~-][a-z0-9._~-]*\/)?[a-z0-9~-][a-z0-9._~-]*$/;

const packageName = v.pipe(
  text("an npm package name"),
  v.check(
    (name) => PACKAGE_NAME.test(name),
    (issue) =>
      /^[./]/.test(issue.input)
        ? `${issue.input} is a folder, not a package name; write it as "path": ${issue.input}`
        : `expected an npm package name such as @plugboard/plugin-bash, got ${issue.received}`,
  ),
);

/** Strings by name: an MCP server's environment or HTTP headers. */
const strings = (what: string) =>
  v.record(v.string(), v.string((issue) => `expected a string, got ${issue.received}`), (issue) => `expected an object of ${what}, got ${issue.received}`);

/** An MCP server: a command (stdio) or a URL (Streamable HTTP). */
const mcpServer = v.pipe(
  strict({
    command: v.optional(text("a command such as npx")),
    args: v.optional(list(v.string((issue) => `expected a string, got ${issue.received}`))),
    env: v.optional(strings("environment variables")),
    url: v.optional(v.pipe(text("a URL"), v.url((issue) => `expected a URL such as http://127.0.0.1:8808/mcp, got ${issue.received}`))),
    headers: v.optional(strings("HTTP headers")),
  }),
  v.check(
    (server) => (server.command === undefined) !== (server.url === undefined),
    'set exactly one of "command" (a server started over stdio) or "url" (a Streamable HTTP server)',
  ),
  v.check(
    (server) => server.url === undefined || (server.args === undefined && server.env === undefined),
    '"args" and "env" belong to a "command"; a "url" server takes "headers"',
  ),
  v.check((server) => server.command === undefined || server.headers === undefined, '"headers" belong to a "url"; a "command" server takes "args" and "env"'),
);

/** A host a narrowed `network` grant reaches: `api.example.com`, `*.github.com`, `localhost:4873`. */
const hostPattern = v.pipe(
  v.string((issue) => `expected a host such as api.example.com, got ${issue.received}`),
  v.rawCheck(({ dataset, addIssue }) => {
    const problem = dataset.typed ? patternProblem(dataset.value) : undefined;
    if (problem !== undefined) addIssue({ message: problem });
  }),
);

/** A path granted besides the workspace: absolute, or under the home folder (`~/…`). */
const grantedPath = v.pipe(
  text("an absolute path such as /opt/mcp/weather or ~/.cache/my-tool"),
  v.check(
    (path) => path.startsWith("/") || path === "~" || path.startsWith("~/"),
    (issue) => `expected an absolute path such as /opt/mcp/weather or ~/.cache/my-tool, got ${JSON.stringify(issue.input)}`,
  ),
);

const pluginEntry = v.pipe(
  strict({
    package: v.optional(packageName),
    path: v.optional(text("a folder path relative to the config file")),
    mcp: v.optional(mcpServer),
    name: v.optional(v.pipe(text("a name for the MCP server"))),
    prefix: v.optional(
      v.pipe(
        text("a tool-name prefix"),
        v.regex(/^[A-Za-z0-9_-]+$/, (issue) => `expected letters, digits, "_" or "-" (it starts tool names), got ${issue.received}`),
      ),
    ),
    permissions: v.optional(list(oneOf(PERMISSIONS)), () => []),
    network: v.optional(list(hostPattern)),
    read: v.optional(list(grantedPath)),
    write: v.optional(list(grantedPath)),
    options: v.optional(v.unknown()),
    sandbox: v.optional(v.literal(false, (issue) => `expected false (run this plugin unconfined), got ${issue.received}`)),
    trust: v.optional(oneOf(["trusted", "untrusted"])),
  }),
  v.check(
    (entry) => [entry.package, entry.path, entry.mcp].filter((key) => key !== undefined).length === 1,
    'set exactly one of "package" (an installed npm package), "path" (a plugin folder) or "mcp" (an MCP server)',
  ),
  v.check((entry) => entry.mcp === undefined || entry.name !== undefined, 'an "mcp" entry needs a "name", used in messages and listings'),
  v.check(
    (entry) => entry.mcp !== undefined || (entry.name === undefined && entry.prefix === undefined),
    '"name" and "prefix" belong to an "mcp" entry; a plugin\'s name comes from its manifest',
  ),
  v.check((entry) => entry.mcp === undefined || entry.options === undefined, 'an "mcp" entry takes no "options"'),
  v.check(
    (entry) => entry.mcp !== undefined || entry.trust === undefined,
    '"trust" belongs to an "mcp" entry; a plugin\'s results are untrusted exactly when it is granted "network"',
  ),
  v.check(
    (entry) => entry.network === undefined || entry.permissions.includes("network"),
    '"network" lists the hosts a "network" grant may reach, and this entry does not grant "network": add "network" to its "permissions"',
  ),
  v.check((entry) => entry.network === undefined || entry.network.length > 0, 'an empty "network" list reaches no host: remove "network" from "permissions" instead'),
  v.check(
    (entry) => (entry.read === undefined && entry.write === undefined) || entry.mcp?.url === undefined,
    '"read" and "write" grant paths to a confined process; a "url" server is reached by the app itself',
  ),
  v.check(
    (entry) => entry.network === undefined || entry.mcp?.url === undefined,
    '"network" narrows a confined process\'s connections; a "url" server is reached by the app itself',
  ),
);

const maxSteps = v.pipe(
  v.number((issue) => `expected an integer, got ${issue.received}`),
  v.integer((issue) => `expected an integer, got ${issue.received}`),
  v.minValue(MAX_STEPS_RANGE.min, (issue) => `expected at least ${MAX_STEPS_RANGE.min}, got ${issue.received}`),
  v.maxValue(MAX_STEPS_RANGE.max, (issue) => `expected at most ${MAX_STEPS_RANGE.max}, got ${issue.received}`),
);

/** When the model gets `tool_search` instead of every tool. */
const tools = strict({
  searchOver: v.optional(
    v.pipe(
      v.number((issue) => `expected a whole number of tools, got ${issue.received}`),
      v.integer((issue) => `expected a whole number of tools, got ${issue.received}`),
      v.minValue(0, (issue) => `expected 0 or more, got ${issue.received}`),
    ),
  ),
  pinned: v.optional(list(text("a tool name such as read_file"))),
});

const action = oneOf(["allow", "ask", "deny"]);

const policyRule = strict({
  tool: text("a tool name or wildcard pattern such as bash or *_file"),
  args: v.optional(
    v.pipe(
      // valibot's record takes an array as an object; a rule's args never are one.
      v.custom<Record<string, unknown>>(
        (input) => typeof input === "object" && input !== null && !Array.isArray(input),
        (issue) => `expected an object of argument name → pattern, got ${issue.received}`,
      ),
      v.record(v.string(), v.string((issue) => `expected a wildcard pattern such as "git status*", got ${issue.received}`)),
    ),
  ),
  action,
});

const policy = strict({
  default: v.optional(action, "allow"),
  rules: v.optional(list(policyRule), () => []),
  taint: v.optional(oneOf(TAINT_MODES)),
});

/** The range of a hook's `timeoutMs`: up to ten minutes. */
export const HOOK_TIMEOUT_RANGE = { min: 1, max: 600_000 } as const;

const hook = strict({
  tool: v.optional(text("a tool name or wildcard pattern such as bash or *_file")),
  command: v.pipe(
    list(text("a program or one of its arguments")),
    v.minLength(1, 'expected the program and its arguments, such as ["./check.sh"]'),
  ),
  timeoutMs: v.optional(
    v.pipe(
      v.number((issue) => `expected a number of milliseconds, got ${issue.received}`),
      v.integer((issue) => `expected a whole number of milliseconds, got ${issue.received}`),
      v.minValue(HOOK_TIMEOUT_RANGE.min, (issue) => `expected at least ${HOOK_TIMEOUT_RANGE.min}, got ${issue.received}`),
      v.maxValue(HOOK_TIMEOUT_RANGE.max, (issue) => `expected at most ${HOOK_TIMEOUT_RANGE.max} (ten minutes), got ${issue.received}`),
    ),
  ),
});

const hooks = strict({
  before: v.optional(list(hook), () => []),
  after: v.optional(list(hook), () => []),
});

/** A size in bytes: a whole number of at least 1. */
const bytes = v.pipe(
  v.number((issue) => `expected a number of bytes, got ${issue.received}`),
  v.integer((issue) => `expected a whole number of bytes, got ${issue.received}`),
  v.minValue(1, (issue) => `expected at least 1, got ${issue.received}`),
);

/** Where large results go: `.plugboard/results/` (core's results.ts). */
const results = strict({ maxBytes: v.optional(bytes), maxFileBytes: v.optional(bytes) });

/** How deep repositories and other tools' files are looked for: folder levels below the workspace. */
export const PROTECT_DEPTH_RANGE = { min: 0, max: 64 } as const;

const protectDepth = v.pipe(
  v.number((issue) => `expected a whole number of folder levels, got ${issue.received}`),
  v.integer((issue) => `expected a whole number of folder levels, got ${issue.received}`),
  v.minValue(PROTECT_DEPTH_RANGE.min, (issue) => `expected ${PROTECT_DEPTH_RANGE.min} or more, got ${issue.received}`),
  v.maxValue(PROTECT_DEPTH_RANGE.max, (issue) => `expected at most ${PROTECT_DEPTH_RANGE.max}, got ${issue.received}`),
);

/** The fewest tasks a confined tree may be limited to: its host's own threads need some. */
export const MIN_PROCESSES = 16;

/** A size in bytes, written as one (`268435456`) or with a unit (`"256 MiB"`). */
const size = v.pipe(
  v.union([v.number(), v.string()], (issue) => `expected ${SIZE_SPELLING}, got ${issue.received}`),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    const bytes = parseSize(dataset.value);
    if (bytes !== undefined) return bytes;
    addIssue({ message: `expected ${SIZE_SPELLING}, got ${JSON.stringify(dataset.value)}` });
    return NEVER;
  }),
);

/** The bounds of each confined tree (the sandbox's limits.ts). */
const limits = strict({
  processes: v.optional(
    v.pipe(
      v.number((issue) => `expected a number of processes, got ${issue.received}`),
      v.integer((issue) => `expected a whole number of processes, got ${issue.received}`),
      v.minValue(MIN_PROCESSES, (issue) => `expected at least ${MIN_PROCESSES} (a plugin's host needs some for its own threads), got ${issue.received}`),
    ),
  ),
  memory: v.optional(size),
  tmp: v.optional(size),
});

/** The whole config file. */
export const ConfigFileSchema = strict({
  $schema: v.optional(v.string()),
  workspace: v.optional(text("a folder path")),
  model: v.optional(
    strict({
      name: v.optional(text("a model name")),
      baseURL: v.optional(v.pipe(text("a URL"), v.url((issue) => `expected a URL such as https://api.openai.com/v1, got ${issue.received}`))),
      dialect: v.optional(oneOf(DIALECTS)),
    }),
  ),
  maxSteps: v.optional(maxSteps),
  tools: v.optional(tools),
  systemPrompt: v.optional(v.string((issue) => `expected a string, got ${issue.received}`)),
  sandbox: v.optional(oneOf(SANDBOX_MODES), () => "auto" as const),
  plugins: list(pluginEntry),
  policy: v.optional(policy),
  hooks: v.optional(hooks),
  audit: v.optional(text("a file path")),
  protect: v.optional(list(text("a path or glob pattern"))),
  protectDepth: v.optional(protectDepth),
  results: v.optional(results),
  limits: v.optional(limits),
});

/** The config file after validation. */
export type ConfigFile = v.InferOutput<typeof ConfigFileSchema>;
