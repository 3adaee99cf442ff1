import { expect, test } from "bun:test";
import { join } from "node:path";
import { conformanceSuite } from "@plugboard/testing/suite";
import { Value } from "@sinclair/typebox/value";
import plugin from "./index.ts";

// Plugboard's conformance checks first: package.json, the manifest (its tools are the code's,
// as plugboard plugin sync writes them), the tools, calls, permissions.
conformanceSuite(join(import.meta.dir, ".."));

test("options default to the documented values and refuse bad ones", () => {
  // Required in the schema, each with its default: tools() receives every option, never undefined.
  expect<readonly string[] | undefined>(plugin.options.required).toEqual(["maxFileBytes"]);
  expect(Value.Parse(plugin.options, {})).toEqual({ maxFileBytes: 1048576 });
  expect(Value.Check(plugin.options, { maxFileBytes: 0 })).toBe(false);
  expect(Value.Check(plugin.options, { maxBytes: 1024 })).toBe(false);
});
