import { expect, test } from "bun:test";
import { join } from "node:path";
import { REPO_PLUGBOARD } from "@plugboard/test-helpers";
import { conformanceSuite } from "@plugboard/testing/suite";
import { Value } from "@sinclair/typebox/value";
import manifest from "../plugboard.plugin.json";
import plugin from "./index.ts";

// The shared conformance suite first, then this plugin's own cases.
// Run confined by this repository's plugboard, as an app runs it.
conformanceSuite(join(import.meta.dir, ".."), { plugboard: REPO_PLUGBOARD });

test("the manifest asks for exactly the permissions the tool needs", () => {
  expect(manifest.permissions).toEqual(["fs.read", "fs.write"]);
});

test("options default to the documented limit and refuse bad values", () => {
  // Required in the schema, each with its default: tools() receives every option, never undefined.
  expect<readonly string[] | undefined>(plugin.options.required).toEqual(["maxFileBytes"]);
  expect(Value.Parse(plugin.options, {})).toEqual({ maxFileBytes: 268435456 });
  expect(Value.Check(plugin.options, { maxFileBytes: 0 })).toBe(false);
  expect(Value.Check(plugin.options, { maxFileBytes: 1.5 })).toBe(false);
  expect(Value.Check(plugin.options, { maxBytes: 100 })).toBe(false);
});
