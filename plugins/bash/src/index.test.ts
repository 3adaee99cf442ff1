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

// The shared conformance suite first, then this plugin's own cases; plugboard.check.json's
// `sleep 30` (read by plugboard plugin check too) lets the abort check see a command killed.
// Run confined by this repository's plugboard, as an app runs it.
conformanceSuite(join(import.meta.dir, ".."), { plugboard: REPO_PLUGBOARD });

test("the manifest asks for exactly the permissions the tool needs", () => {
  expect(manifest.permissions).toEqual(["process.spawn", "fs.read", "fs.write"]);
  expect(manifest.optionalPermissions).toEqual(["network"]);
});

test("options default to the documented limits and refuse bad values", async () => {
  // Required in the schema, each with its default: tools() receives every option, never undefined.
  expect<readonly string[] | undefined>(plugin.options.required).toEqual(["timeoutMs", "maxTimeoutMs", "maxOutputChars"]);
  expect(Value.Parse(plugin.options, {})).toEqual({ timeoutMs: 120000, maxTimeoutMs: 600000, maxOutputChars: 50000 });
  expect(Value.Check(plugin.options, { timeoutMs: 0 })).toBe(false);
  expect(Value.Check(plugin.options, { maxOutputChars: 1.5 })).toBe(false);
  expect(Value.Check(plugin.options, { timeout: 100 })).toBe(false);
  const refused = pluginRuntime(plugin, { root: tmpdir(), options: { timeoutMs: 700000 } });
  await expect(refused).rejects.toThrow(PluginOptionsError);
  await expect(refused).rejects.toThrow("timeoutMs (700000) must not exceed maxTimeoutMs (600000). Lower timeoutMs or raise maxTimeoutMs.");
});

test("the model sees the limits in the tool's schema", async () => {
  const [tool] = (await pluginRuntime(plugin, { root: tmpdir(), options: { timeoutMs: 1000, maxTimeoutMs: 9000 } })).tools;
  expect(tool?.parameters).toMatchObject({ required: ["command"], additionalProperties: false });
  expect(tool?.parameters.properties.timeout_ms).toMatchObject({ type: "integer", minimum: 1, maximum: 9000 });
  expect(tool?.parameters.properties.timeout_ms?.description).toContain("default 1000");
});
