/**
 * The manifest's published JSON Schema, `plugboard.plugin.schema.json`, made from the valibot
 * schema the loader validates manifests with, so the two cannot drift apart (a test
 * compares the file with a fresh conversion). Run `bun run manifest-schema` after changing
 * `src/manifest.ts`.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { toJsonSchema } from "@valibot/to-json-schema";
import { ManifestSchema } from "../src/manifest.ts";

/** The published file, at the package's root. */
export const MANIFEST_SCHEMA_FILE = join(import.meta.dir, "..", "plugboard.plugin.schema.json");

/**
 * The file's text. Two checks have no JSON Schema form and are left to the loader: that
 * `entry` is not an absolute path, and that no tool name appears twice.
 */
export function manifestSchemaText(): string {
  const schema = toJsonSchema(ManifestSchema, { ignoreActions: ["check"] });
  return `${JSON.stringify(schema, null, 2)}\n`;
}

if (import.meta.main) {
  await writeFile(MANIFEST_SCHEMA_FILE, manifestSchemaText());
  console.log(`wrote ${MANIFEST_SCHEMA_FILE}`);
}
