import { expect, test } from "bun:test";
import { join } from "node:path";
import { pluginOptions } from "@plugboard/testing";
import { conformanceSuite } from "@plugboard/testing/suite";
import plugin from "./index.ts";

// Plugboard's conformance checks first: package.json, the manifest (its tools are the code's,
// as plugboard plugin sync writes them), the tools, calls, permissions; and, with a plugboard
// installed (or named by PLUGBOARD_BIN), the plugin run confined by the sandbox.
conformanceSuite(join(import.meta.dir, ".."));

test("options default to the documented values and refuse bad ones", () => {
  // Required in the schema, each with its default: tools() receives every option, never undefined.
  expect<readonly string[] | undefined>(plugin.options.required).toEqual(["maxFileBytes"]);
  expect(pluginOptions(plugin)).toEqual({ maxFileBytes: 1048576 });
  expect(() => pluginOptions(plugin, { maxFileBytes: 0 })).toThrow("Expected integer to be greater or equal to 1");
  expect(() => pluginOptions(plugin, { maxBytes: 1024 })).toThrow("Unexpected property");
});
