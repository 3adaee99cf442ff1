import { expect, test } from "bun:test";
import { tmpdir } from "node:os";
import { CONTRACT_VERSION, PlugboardError, silentLogger, Workspace } from "@plugboard/core";
import { Value } from "@sinclair/typebox/value";
import pkg from "../package.json";
import manifest from "../plugboard.plugin.json";
import { READ_FILE_TOOL_NAME } from "./read-file.ts";
import plugin from "./index.ts";

test("the manifest agrees with package.json", () => {
  expect([manifest.name, manifest.version]).toEqual([pkg.name, pkg.version]);
  expect(Bun.semver.satisfies(CONTRACT_VERSION, manifest.contract)).toBe(true);
  expect(pkg.exports["."]).toBe(manifest.entry);
  expect(pkg.exports["./plugboard.plugin.json"]).toBe("./plugboard.plugin.json");
  expect(pkg.files).toContain("plugboard.plugin.json");
});

test("the manifest lists exactly the tools, permissions and options of the plugin", async () => {
  const workspace = await Workspace.open(tmpdir());
  const tools = plugin.tools({}, { workspace, logger: silentLogger });
  expect(tools.map((tool) => tool.name)).toEqual([READ_FILE_TOOL_NAME]);
  expect(manifest.tools.map((tool) => tool.name)).toEqual([READ_FILE_TOOL_NAME]);
  expect(manifest.permissions).toEqual(["fs.read"]);
  expect(manifest.options).toEqual(JSON.parse(JSON.stringify(plugin.options)));
});

test("options default to the documented limits and refuse bad values", async () => {
  expect(Value.Parse(plugin.options, {})).toEqual({ maxFileBytes: 1048576, maxLineChars: 2000, maxOutputChars: 100000 });
  expect(Value.Check(plugin.options, { maxFileBytes: 0 })).toBe(false);
  expect(Value.Check(plugin.options, { maxLineChars: 1.5 })).toBe(false);
  expect(Value.Check(plugin.options, { maxBytes: 100 })).toBe(false);
  const workspace = await Workspace.open(tmpdir());
  expect(() => plugin.tools({ maxLineChars: 500, maxOutputChars: 100 }, { workspace, logger: silentLogger })).toThrow(
    new PlugboardError(
      "PLUGIN_OPTIONS",
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
