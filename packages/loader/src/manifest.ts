/**
 * The plugin manifest (`plugboard.plugin.json`): its valibot schema and how it is read.
 * It is read and validated before any of the plugin's code is imported.
 */
import { isAbsolute, join } from "node:path";
import { CONTRACT_VERSION, PERMISSIONS, TOOL_NAME_PATTERN } from "@plugboard/core";
import { readTextBounded } from "@plugboard/core/internal";
import * as v from "valibot";
import { parseJson } from "@plugboard/config/json";
import type { EntryLocation } from "@plugboard/errors";
import { pluginErrors } from "./messages.ts";
import { describeIssues, list, oneOf, strict, text } from "@plugboard/config/schema-kit";

/** The manifest's file name, at the root of every plugin package. */
export const MANIFEST_FILE = "plugboard.plugin.json";

const tool = strict({
  name: v.pipe(
    text("a tool name"),
    v.regex(TOOL_NAME_PATTERN, (issue) => `expected 1-64 letters, digits, "_" or "-", got ${issue.received}`),
    v.description("The name the model sees: 1-64 letters, digits, _ or -."),
  ),
  description: v.pipe(text("a one-line description"), v.description("One line saying what the tool does.")),
});

/** The manifest file's schema; `plugboard.plugin.schema.json` is its JSON Schema (`bun run manifest-schema`). */
export const ManifestSchema = v.pipe(
  strict({
    $schema: v.optional(v.pipe(v.string(), v.description("The JSON Schema of this file, for editors."))),
    name: v.pipe(text("the package's name"), v.description("The package's name, equal to package.json's.")),
    version: v.pipe(text("the package's version"), v.description("The package's version, equal to package.json's.")),
    contract: v.pipe(
      text("a semver range such as ^1.0.0"),
      v.description("The semver range of Plugboard's tool contract the plugin supports, such as ^1.0.0."),
    ),
    entry: v.pipe(
      text("a path relative to the plugin's folder, such as ./src/index.ts"),
      v.check((entry) => !isAbsolute(entry), "expected a path relative to the plugin's folder, such as ./src/index.ts"),
      v.description("The module whose default export is the plugin, relative to the plugin's folder."),
    ),
    tools: v.pipe(
      list(tool),
      v.minLength(1, "expected at least one tool"),
      v.check(
        (tools) => new Set(tools.map((t) => t.name)).size === tools.length,
        (issue) => `each tool name must appear once, got ${duplicates(issue.input.map((t) => t.name)).join(", ")} more than once`,
      ),
      v.description("Every tool the entry returns, in the same order, each name once."),
    ),
    permissions: v.pipe(
      list(oneOf(PERMISSIONS)),
      v.description("What the plugin needs; an app must grant each one in the plugin's config entry."),
    ),
    optionalPermissions: v.optional(
      v.pipe(
        list(oneOf(PERMISSIONS)),
        v.description("What the plugin can use when an app grants it (bash: network); an app may grant these too, and nothing else."),
      ),
      () => [],
    ),
    // Manifests of contract 1.0 carried a copy of the options schema; the entry's schema is now
    // the only source, so the key is accepted (old plugins keep loading) and never read.
    options: v.optional(
      v.pipe(
        v.unknown(),
        v.description("Deprecated and ignored: a plugin's options are the options schema its entry exports."),
      ),
    ),
  }),
  v.title("Plugboard plugin manifest (plugboard.plugin.json)"),
);

/** A validated manifest. */
export type Manifest = v.InferOutput<typeof ManifestSchema>;

/** A manifest and where it was read from. */
export interface ManifestFile {
  readonly path: string;
  readonly manifest: Manifest;
}

/**
 * Reads and validates `<directory>/plugboard.plugin.json`, including that this Plugboard's
 * contract satisfies its range. `label` names the plugin until the manifest names it.
 * Throws `PLUGIN_MANIFEST` or `PLUGIN_CONTRACT`.
 */
export async function readManifest(directory: string, label: string, where: EntryLocation): Promise<ManifestFile> {
  const path = join(directory, MANIFEST_FILE);
  let text: string;
  try {
    // At once, as the rest of a plugin's files (resolve-plugin.ts); not a FIFO nor a device (bounded-read.ts).
    text = readTextBounded(path);
  } catch (error) {
    const code = Reflect.get(error as object, "code");
    if (code === "ENOENT" || code === "EISDIR") throw pluginErrors.manifestMissing(label, path, where);
    // Not ours to read, a link that loops: the person's to mend, said as the plugin's failure.
    if (typeof code === "string") throw pluginErrors.manifestUnreadable(label, path, error, where);
    throw error;
  }
  const json = parseJson(text);
  if (!json.ok) throw pluginErrors.jsonSyntax(label, path, json, where);

  // The contract comes first: a manifest made for a newer contract may have keys this one does not know.
  const raw = isRecord(json.value) ? json.value : {};
  const name = typeof raw.name === "string" && raw.name !== "" ? raw.name : label;
  if (typeof raw.contract === "string" && !Bun.semver.satisfies(CONTRACT_VERSION, raw.contract)) {
    throw pluginErrors.contract(name, raw.contract, path, where);
  }
  const parsed = v.safeParse(ManifestSchema, json.value, { abortEarly: false, abortPipeEarly: true });
  if (!parsed.success) throw pluginErrors.manifestInvalid(name, path, describeIssues(parsed.issues), where);
  return { path, manifest: parsed.output };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function duplicates(names: readonly string[]): string[] {
  return [...new Set(names.filter((name, index) => names.indexOf(name) !== index))];
}
