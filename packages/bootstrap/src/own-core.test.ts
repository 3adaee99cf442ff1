import { afterEach, expect, test } from "bun:test";
import { cp, mkdir, symlink } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { PluginOptionsError, ToolError } from "@plugboard/core";
import { configWith, fixture, removeTempDirs, tempDir } from "../test/temp-app.ts";
import { buildApp } from "./index.ts";

afterEach(removeTempDirs);

const CORE = join(import.meta.dir, "../../core");

/** Installs fixture own-core in `app` with a real copy of core in its own node_modules, as a package manager may. */
async function installWithOwnCore(app: string): Promise<string> {
  const plugin = join(app, "node_modules/@fixture/own-core");
  await cp(fixture("own-core"), plugin, { recursive: true });
  const copy = join(plugin, "node_modules/@plugboard/core");
  await mkdir(copy, { recursive: true });
  await cp(join(CORE, "package.json"), join(copy, "package.json"));
  await cp(join(CORE, "src"), join(copy, "src"), { recursive: true });
  // The copy's own dependencies (typebox, openai) are shared; only core is duplicated.
  await symlink(join(CORE, "node_modules"), join(copy, "node_modules"));
  await symlink(join(CORE, "node_modules/@sinclair"), join(plugin, "node_modules/@sinclair"));
  return copy;
}

test("a plugin with its own copy of core: its ToolError is an Error: result, not a crash", async () => {
  const app = await tempDir();
  const copy = await installWithOwnCore(app);
  const other = (await import(pathToFileURL(join(copy, "src/index.ts")).href)) as typeof import("@plugboard/core");
  // Two real copies: distinct classes, each recognising the other's errors.
  expect(other.ToolError).not.toBe(ToolError);
  expect(new other.ToolError("x")).toBeInstanceOf(ToolError);
  expect(new ToolError("x")).toBeInstanceOf(other.ToolError);
  expect(new other.PluginOptionsError("x")).toBeInstanceOf(PluginOptionsError);

  const built = await buildApp(await configWith([{ package: "@fixture/own-core" }], app));
  expect(await built.runtime.execute("refuse", "{}")).toEqual({
    content: "Error: refused by the plugin's own copy of core",
    isError: true,
  });
});

test("the brand does not blur subclasses: a ToolError is not a PathEscapeError", async () => {
  const { PathEscapeError } = await import("@plugboard/core");
  expect(new ToolError("x")).not.toBeInstanceOf(PathEscapeError);
  expect(new PathEscapeError("../x")).toBeInstanceOf(ToolError);
  expect(new Error("x")).not.toBeInstanceOf(ToolError);
  expect({ message: "x" }).not.toBeInstanceOf(PluginOptionsError);
});
