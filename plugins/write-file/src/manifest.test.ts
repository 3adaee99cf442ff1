import { expect, test } from "bun:test";
import { tmpdir } from "node:os";
import { CONTRACT_VERSION, Workspace, silentLogger } from "@plugboard/core";
import { Value } from "@sinclair/typebox/value";
import pkg from "../package.json";
import manifest from "../plugboard.plugin.json";
import plugin from "./index.ts";
import { TOOL_NAME } from "./write-file.ts";

test("the manifest agrees with package.json", () => {
  expect([manifest.name, manifest.version]).toEqual([pkg.name, pkg.version]);
  expect(Bun.semver.satisfies(CONTRACT_VERSION, manifest.contract)).toBe(true);
  expect(pkg.exports["."]).toBe(manifest.entry);
  expect(pkg.exports["./plugboard.plugin.json"]).toBe("./plugboard.plugin.json");
  expect(pkg.files).toContain("plugboard.plugin.json");
});

test("the manifest lists exactly the tools, permissions and options of the plugin", async () => {
  const workspace = await Workspace.open(tmpdir());
  const tools = plugin.tools(Value.Parse(plugin.options, {}), { workspace, logger: silentLogger });
  expect(tools.map((tool) => tool.name)).toEqual([TOOL_NAME]);
  expect(manifest.tools.map((tool) => tool.name)).toEqual([TOOL_NAME]);
  expect(manifest.permissions).toEqual(["fs.write"]);
  expect(manifest.options).toEqual(JSON.parse(JSON.stringify(plugin.options)));
});

test("options default to the documented limit and refuse bad values", () => {
  expect(Value.Parse(plugin.options, {})).toEqual({ maxBytes: 10485760 });
  expect(Value.Check(plugin.options, { maxBytes: 0 })).toBe(false);
  expect(Value.Check(plugin.options, { maxBytes: 1.5 })).toBe(false);
});
