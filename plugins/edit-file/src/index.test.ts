import { expect, test } from "bun:test";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger, Workspace } from "@plugboard/core";
import { conformanceSuite } from "@plugboard/testing/suite";
import { Value } from "@sinclair/typebox/value";
import manifest from "../plugboard.plugin.json";
import { TOOL_NAME } from "./edit-file.ts";
import plugin from "./index.ts";

// The shared conformance suite first (package, manifest, tools, calls, permissions), then this plugin's own cases.
conformanceSuite(join(import.meta.dir, ".."));

test("the manifest names the tool constant, its permissions and the options schema", async () => {
  const workspace = await Workspace.open(tmpdir());
  const tools = plugin.tools(Value.Parse(plugin.options, {}), { workspace, logger: silentLogger });
  expect(tools.map((tool) => tool.name)).toEqual([TOOL_NAME]);
  expect(manifest.tools.map((tool) => tool.name)).toEqual([TOOL_NAME]);
  expect(manifest.permissions).toEqual(["fs.read", "fs.write"]);
  expect(manifest.options).toEqual(JSON.parse(JSON.stringify(plugin.options)));
});

test("options default to the documented limit and refuse bad values", () => {
  expect(Value.Parse(plugin.options, {})).toEqual({ maxFileBytes: 268435456 });
  expect(Value.Check(plugin.options, { maxFileBytes: 0 })).toBe(false);
  expect(Value.Check(plugin.options, { maxFileBytes: 1.5 })).toBe(false);
});
