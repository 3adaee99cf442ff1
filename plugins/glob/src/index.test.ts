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
  expect(manifest.permissions).toEqual(["fs.read"]);
});

test("options default to the documented values and refuse bad ones", () => {
  // Required in the schema, each with its default: tools() receives every option, never undefined.
  expect<readonly string[] | undefined>(plugin.options.required).toEqual(["maxResults", "ignore", "dot"]);
  expect(Value.Parse(plugin.options, {})).toEqual({
    maxResults: 1000,
    ignore: ["**/.git/**", "**/node_modules/**"],
    dot: true,
  });
  expect(Value.Check(plugin.options, { maxResults: 0 })).toBe(false);
  expect(Value.Check(plugin.options, { ignore: "node_modules" })).toBe(false);
  expect(Value.Check(plugin.options, { maxresults: 10 })).toBe(false);
});
