/**
 * The source files of a new plugin: the entry, the options, one example tool (which counts
 * the lines, words and characters of a file, to show paths, options and `Error:` results)
 * and their tests, the conformance suite first.
 */
import type { PluginNames } from "./plugin-names.ts";

/** `src/index.ts`: the plugin, its Options type and nothing else. */
export function indexSource(names: PluginNames): string {
  return `/**
 * ${names.packageName}: the ${names.toolName} tool. Exports the plugin (default) and its
 * Options type; the manifest is ${names.packageName}/plugboard.plugin.json.
 */
import { definePlugin } from "@plugboard/core";
import { OptionsSchema } from "./options.ts";
import { create${names.pascalName}Tool } from "./${names.shortName}.ts";

export type { Options } from "./options.ts";

/**
 * The plugin: one tool, ${names.toolName}. Needs the fs.read permission.
 *
 * @example { "package": "${names.packageName}", "permissions": ["fs.read"], "options": { "maxFileBytes": 65536 } }
 */
export default definePlugin({
  options: OptionsSchema,
  tools: (options) => [create${names.pascalName}Tool(options)],
});
`;
}

/** `src/options.ts`: the options schema, which the bootstrap validates a config entry's options with. */
export function optionsSource(names: PluginNames): string {
  return `/** The options of ${names.packageName}: a TypeBox schema (the validator, with defaults) and its type. */
import { type Static, Type } from "@sinclair/typebox";

/** The value of each option a config entry leaves out. */
export const DEFAULTS = { maxFileBytes: 1048576 } as const;

/** The options schema; the manifest's "options" is its JSON (a test keeps the two equal). */
export const OptionsSchema = Type.Object(
  {
    maxFileBytes: Type.Optional(
      Type.Integer({ minimum: 1, default: DEFAULTS.maxFileBytes, description: "The largest file, in bytes, the tool reads." }),
    ),
  },
  { additionalProperties: false },
);

/** The options as written in a config entry. */
export type Options = Static<typeof OptionsSchema>;
`;
}

/** `src/NAME.ts`: the example tool. */
export function toolSource(names: PluginNames): string {
  return `/**
 * The ${names.toolName} tool: counts the lines, words and characters of a UTF-8 text file in
 * the workspace. An example to replace with your own tool; it shows what every tool has.
 */
import { decodeText, defineTool, fileErrors, statFile, textResult } from "@plugboard/core";
import { type Static, Type } from "@sinclair/typebox";
import { DEFAULTS, type Options } from "./options.ts";

/** The tool's name as the model sees it; the manifest lists the same name (a test checks). */
export const TOOL_NAME = "${names.toolName}";

/**
 * The parameters: one schema is both what the model sees and what validates each call. For
 * OpenAI's strict mode every property is required (an optional one would be a union with
 * Type.Null()) and the object is closed.
 */
export const Params = Type.Object(
  { path: Type.String({ description: "The file, relative to the workspace root." }) },
  { additionalProperties: false },
);

/** The validated arguments a handler receives. */
export type Args = Static<typeof Params>;

/** Creates the tool with the plugin's options. */
export function create${names.pascalName}Tool(options: Options) {
  const maxFileBytes = options.maxFileBytes ?? DEFAULTS.maxFileBytes;
  return defineTool({
    name: TOOL_NAME,
    description: "Count the lines, words and characters of a UTF-8 text file in the workspace.",
    parameters: Params,
    // Expected failures are thrown as ToolError (core's fileErrors, Workspace.resolve) and reach
    // the model as "Error: …" results; anything else thrown is a bug. Long work should pass
    // ctx.signal to what it waits on, so that a cancelled call stops.
    handler: async ({ path }, ctx) => {
      const absolute = await ctx.workspace.resolve(path);
      const stats = await statFile(absolute, path);
      if (stats === undefined) throw fileErrors.notFound(path);
      if (stats.size > maxFileBytes) throw fileErrors.tooLarge(path, stats.size, maxFileBytes);
      const text = decodeText(await Bun.file(absolute).bytes(), path);
      const lines = text === "" ? 0 : text.split("\\n").length - (text.endsWith("\\n") ? 1 : 0);
      const words = text.split(/\\s+/).filter((word) => word !== "").length;
      return textResult(\`\${path}: \${lines} lines, \${words} words, \${text.length} characters\`);
    },
  });
}
`;
}

/** `src/index.test.ts`: Plugboard's conformance suite first, then the tool's name constant. */
export function indexTestSource(names: PluginNames): string {
  return `import { expect, test } from "bun:test";
import { join } from "node:path";
import { conformanceSuite } from "@plugboard/testing/suite";
import manifest from "../plugboard.plugin.json";
import { TOOL_NAME } from "./${names.shortName}.ts";

// Plugboard's conformance checks first: package.json, manifest (options schema included), tools, calls, permissions.
conformanceSuite(join(import.meta.dir, ".."));

test("the manifest lists the tool by its constant", () => {
  expect(manifest.tools.map((tool) => tool.name)).toEqual([TOOL_NAME]);
});
`;
}

/** `src/NAME.test.ts`: the tool through core's runtime, in a real temp workspace. */
export function toolTestSource(names: PluginNames): string {
  return `import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ToolRegistry, ToolRuntime, Workspace } from "@plugboard/core";
import { create${names.pascalName}Tool, TOOL_NAME } from "./${names.shortName}.ts";

let root = "";
let runtime: ToolRuntime;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "${names.folder}-"));
  await writeFile(join(root, "notes.txt"), "one two\\nthree\\n");
  await writeFile(join(root, "big.txt"), "x".repeat(2000));
  await mkdir(join(root, "folder"));
  const tool = create${names.pascalName}Tool({ maxFileBytes: 1024 });
  runtime = new ToolRuntime(new ToolRegistry([tool]), { workspace: await Workspace.open(root) });
});

afterAll(() => rm(root, { recursive: true, force: true }));

/** Calls the tool the way the model does: by name, with JSON arguments. */
function call(args: Record<string, unknown>) {
  return runtime.execute(TOOL_NAME, JSON.stringify(args));
}

test("counts the lines, words and characters of a file", async () => {
  expect(await call({ path: "notes.txt" })).toEqual({ content: "notes.txt: 2 lines, 3 words, 14 characters", isError: false });
});

test.each([
  ["missing.txt", "Error: File not found: missing.txt"],
  ["folder", "Error: folder is a directory, not a file"],
  ["big.txt", "Error: big.txt is 2000 bytes, over the limit of 1024 bytes"],
  ["../outside.txt", "Error: Path escapes workspace: ../outside.txt"],
])("%s gives an error result", async (path, content) => {
  expect(await call({ path })).toEqual({ content, isError: true });
});

test("arguments that do not match the schema never reach the handler", async () => {
  const result = await call({ file: "notes.txt" });
  expect(result.isError).toBe(true);
  expect(result.content).toStartWith(\`Error: Invalid arguments for \${TOOL_NAME}\`);
});
`;
}
