import { expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { MANIFEST_SCHEMA_FILE, manifestSchemaText } from "./manifest-schema.ts";

const REPO = join(import.meta.dir, "../../..");
const FIRST_PARTY = ["bash", "read-file", "write-file", "edit-file", "glob"].map((name) => join(REPO, "plugins", name, "plugboard.plugin.json"));

test("plugboard.plugin.schema.json is the JSON Schema of the manifest schema in src/manifest.ts (else run bun run manifest-schema)", async () => {
  expect(await readFile(MANIFEST_SCHEMA_FILE, "utf8")).toBe(manifestSchemaText());
});

test("it closes the manifest and the tool entries, and lists the permissions", async () => {
  const schema = JSON.parse(await readFile(MANIFEST_SCHEMA_FILE, "utf8"));
  expect(schema).toMatchObject({ type: "object", additionalProperties: false });
  expect(schema.required).toEqual(["name", "version", "contract", "entry", "tools", "permissions"]);
  expect(schema.properties.tools.items).toMatchObject({ additionalProperties: false, required: ["name", "description"] });
  expect(schema.properties.permissions.items.enum).toEqual(["fs.read", "fs.write", "process.spawn", "network"]);
});

test.each(FIRST_PARTY)("%s points its $schema at the published file", async (manifestPath) => {
  const manifest = JSON.parse(await readFile(manifestPath, "utf8"));
  // The file this package publishes, by its public URL: a path would point outside an installed plugin.
  expect(manifest.$schema).toBe(`https://unpkg.com/@plugboard/loader/${basename(MANIFEST_SCHEMA_FILE)}`);
  const loader = JSON.parse(await readFile(join(dirname(MANIFEST_SCHEMA_FILE), "package.json"), "utf8")) as { files: string[] };
  expect(loader.files).toContain(basename(MANIFEST_SCHEMA_FILE));
});
