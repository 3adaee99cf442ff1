import { expect, test } from "bun:test";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PluginOptionsError } from "@plugboard/core";
import { pluginRuntime } from "@plugboard/testing";
import { REPO_PLUGBOARD } from "@plugboard/test-helpers";
import { conformanceSuite } from "@plugboard/testing/suite";
import { Value } from "@sinclair/typebox/value";
import manifest from "../plugboard.plugin.json";
import plugin from "./index.ts";

// The shared conformance suite first, then this plugin's own cases.
// Run confined by this repository's plugboard, as an app runs it.
conformanceSuite(join(import.meta.dir, ".."), { plugboard: REPO_PLUGBOARD });

test("the manifest asks for exactly the permissions the tool needs", () => {
  expect(manifest.permissions).toEqual(["fs.read"]);
});

test("options default to the documented limits and refuse bad values", async () => {
  // Required in the schema, each with its default: tools() receives every option, never undefined.
  expect<readonly string[] | undefined>(plugin.options.required).toEqual(["maxFileBytes", "maxLineChars", "maxOutputChars"]);
  expect(Value.Parse(plugin.options, {})).toEqual({ maxFileBytes: 1048576, maxLineChars: 2000, maxOutputChars: 100000 });
  expect(Value.Check(plugin.options, { maxFileBytes: 0 })).toBe(false);
  expect(Value.Check(plugin.options, { maxLineChars: 1.5 })).toBe(false);
  expect(Value.Check(plugin.options, { maxBytes: 100 })).toBe(false);
  const refused = pluginRuntime(plugin, { root: tmpdir(), options: { maxLineChars: 500, maxOutputChars: 100 } });
  await expect(refused).rejects.toThrow(PluginOptionsError);
  await expect(refused).rejects.toThrow("maxLineChars (500) must not exceed maxOutputChars (100). Lower maxLineChars or raise maxOutputChars.");
});

test("the model sees offset and limit as optional integers from 1, and no other argument", async () => {
  const [tool] = (await pluginRuntime(plugin, { root: tmpdir(), options: {} })).tools;
  expect(tool?.parameters).toMatchObject({ required: ["path"], additionalProperties: false });
  expect(tool?.parameters.properties.offset).toMatchObject({ type: "integer", minimum: 1 });
  expect(tool?.parameters.properties.limit).toMatchObject({ type: "integer", minimum: 1 });
});
