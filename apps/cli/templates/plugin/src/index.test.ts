import { expect, test } from "bun:test";
import { join } from "node:path";
import { conformanceSuite } from "@plugboard/testing/suite";
import { Value } from "@sinclair/typebox/value";
import manifest from "../plugboard.plugin.json";
import plugin from "./index.ts";
import { WORD_COUNT } from "./word-count.ts";

// Plugboard's conformance checks first: package.json, manifest, tools, calls, permissions.
conformanceSuite(join(import.meta.dir, ".."));

test("the manifest lists the tool by its constant", () => {
  expect(manifest.tools.map((tool) => tool.name)).toEqual([WORD_COUNT]);
});

test("options default to the documented values and refuse bad ones", () => {
  // Required in the schema, each with its default: tools() receives every option, never undefined.
  expect<readonly string[] | undefined>(plugin.options.required).toEqual(["maxFileBytes"]);
  expect(Value.Parse(plugin.options, {})).toEqual({ maxFileBytes: 1048576 });
  expect(Value.Check(plugin.options, { maxFileBytes: 0 })).toBe(false);
  expect(Value.Check(plugin.options, { maxBytes: 1024 })).toBe(false);
});
