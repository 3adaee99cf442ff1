import { expect, test } from "bun:test";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OptionsError, silentLogger, Workspace } from "@plugboard/core";
import { conformanceSuite } from "@plugboard/testing/suite";
import { Value } from "@sinclair/typebox/value";
import manifest from "../plugboard.plugin.json";
import plugin from "./index.ts";
import { READ_FILE_TOOL_NAME } from "./read-file.ts";

// The shared conformance suite first (its manifest check holds the manifest's options to the schema), then this plugin's own cases.
conformanceSuite(join(import.meta.dir, ".."));

test("the manifest names the tool constant and its permissions", () => {
  expect(manifest.tools.map((tool) => tool.name)).toEqual([READ_FILE_TOOL_NAME]);
  expect(manifest.permissions).toEqual(["fs.read"]);
});

test("options default to the documented limits and refuse bad values", async () => {
  expect(Value.Parse(plugin.options, {})).toEqual({ maxFileBytes: 1048576, maxLineChars: 2000, maxOutputChars: 100000 });
  expect(Value.Check(plugin.options, { maxFileBytes: 0 })).toBe(false);
  expect(Value.Check(plugin.options, { maxLineChars: 1.5 })).toBe(false);
  expect(Value.Check(plugin.options, { maxBytes: 100 })).toBe(false);
  const workspace = await Workspace.open(tmpdir());
  expect(() => plugin.tools({ maxLineChars: 500, maxOutputChars: 100 }, { workspace, logger: silentLogger })).toThrow(
    new OptionsError(
      "maxLineChars (500) must not exceed maxOutputChars (100). Lower maxLineChars or raise maxOutputChars.",
    ),
  );
});

test("the model sees offset and limit as optional integers from 1", async () => {
  const workspace = await Workspace.open(tmpdir());
  const [tool] = plugin.tools({}, { workspace, logger: silentLogger });
  expect(tool?.parameters.required).toEqual(["path"]);
  expect(tool?.parameters.properties.offset).toMatchObject({ type: "integer", minimum: 1 });
  expect(tool?.parameters.properties.limit).toMatchObject({ type: "integer", minimum: 1 });
});
