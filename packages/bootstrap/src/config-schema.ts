/**
 * The config file's shape, as a valibot schema: strict objects (unknown keys are refused,
 * so a typo never passes silently), and a readable message for every problem.
 */
import * as v from "valibot";
import { PERMISSIONS } from "./permissions.ts";
import { list, oneOf, strict, text } from "./schema-kit.ts";

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

const pluginEntry = v.pipe(
  strict({
    package: v.optional(packageName),
    path: v.optional(text("a folder path relative to the config file")),
    permissions: v.optional(list(oneOf(PERMISSIONS)), () => []),
    options: v.optional(v.unknown(), () => ({})),
  }),
  v.check(
    (entry) => (entry.package === undefined) !== (entry.path === undefined),
    'set exactly one of "package" (an installed npm package) or "path" (a plugin folder)',
  ),
);

const maxSteps = v.pipe(
  v.number((issue) => `expected an integer, got ${issue.received}`),
  v.integer((issue) => `expected an integer, got ${issue.received}`),
  v.minValue(MAX_STEPS_RANGE.min, (issue) => `expected at least ${MAX_STEPS_RANGE.min}, got ${issue.received}`),
  v.maxValue(MAX_STEPS_RANGE.max, (issue) => `expected at most ${MAX_STEPS_RANGE.max}, got ${issue.received}`),
);

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
});

/** The whole config file. */
export const ConfigFileSchema = strict({
  $schema: v.optional(v.string()),
  workspace: v.optional(text("a folder path")),
  model: v.optional(
    strict({
      name: v.optional(text("a model name")),
      baseURL: v.optional(v.pipe(text("a URL"), v.url((issue) => `expected a URL such as https://api.openai.com/v1, got ${issue.received}`))),
    }),
  ),
  maxSteps: v.optional(maxSteps),
  systemPrompt: v.optional(v.string((issue) => `expected a string, got ${issue.received}`)),
  plugins: list(pluginEntry),
  policy: v.optional(policy),
  audit: v.optional(text("a file path")),
});

/** The config file after validation. */
export type ConfigFile = v.InferOutput<typeof ConfigFileSchema>;
