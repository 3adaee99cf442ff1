import { afterEach, describe, expect, test } from "bun:test";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { buildFails, configWith, fixture, removeTempDirs, tempDir } from "../test/temp-app.ts";
import { buildApp } from "./index.ts";

afterEach(removeTempDirs);

/** Installs fixture `name` as package `@fixture/<name>` in `folder/node_modules`, as a package manager's link would. */
async function install(folder: string, name: string): Promise<void> {
  await mkdir(join(folder, "node_modules/@fixture"), { recursive: true });
  await symlink(fixture(name), join(folder, "node_modules/@fixture", name));
}

describe("package entries resolve from the config file's folder", () => {
  test("the app folder's own node_modules", async () => {
    const app = await tempDir();
    await install(app, "echo");
    const built = await buildApp(await configWith([{ package: "@fixture/echo" }], app));
    expect(built.registry.names()).toEqual(["echo"]);
    expect(built.plugins[0]?.directory).toBe(fixture("echo"));
  });

  test("a parent folder's node_modules, as Node looks them up", async () => {
    const root = await tempDir();
    await install(root, "echo");
    const app = join(root, "apps/one");
    await mkdir(app, { recursive: true });
    const built = await buildApp(await configWith([{ package: "@fixture/echo" }], app));
    expect(built.registry.names()).toEqual(["echo"]);
  });

  test("the nearest node_modules wins over a parent's", async () => {
    const root = await tempDir();
    // The parent holds a broken copy: if it were used, the build would fail on its missing manifest.
    await mkdir(join(root, "node_modules/@fixture/echo"), { recursive: true });
    await writeFile(join(root, "node_modules/@fixture/echo/package.json"), '{"name":"@fixture/echo","version":"9.9.9"}');
    const app = join(root, "app");
    await install(app, "echo");
    const built = await buildApp(await configWith([{ package: "@fixture/echo" }], app));
    expect(built.plugins[0]?.version).toBe("0.1.0");
  });

  test("not installed: says to install it in the app's folder or check the name", async () => {
    const app = await tempDir();
    const config = await configWith([{ package: "@fixture/missing" }], app);
    const error = await buildFails(config);
    expect(error.code).toBe("PLUGIN_NOT_FOUND");
    expect(error.message.split("\n")).toEqual([
      `Plugin @fixture/missing is not installed: no node_modules/@fixture/missing in ${app} or any folder above it.`,
      `  config: plugins[0] in ${config.configPath}`,
      `Install it in the app's folder (bun add @fixture/missing), or check the "package" name.`,
    ]);
  });

  test("a package installed for the config's folder has origin config", async () => {
    const app = await tempDir();
    await install(app, "echo");
    const built = await buildApp(await configWith([{ package: "@fixture/echo" }], app));
    expect(built.plugins[0]?.origin).toBe("config");
  });

  test("then from the app's own installation, when the config's folder has none", async () => {
    const [app, shipped] = [await tempDir(), await tempDir()];
    await install(shipped, "echo");
    const built = await buildApp(await configWith([{ package: "@fixture/echo" }], app), { appFolder: shipped });
    expect(built.registry.names()).toEqual(["echo"]);
    expect(built.plugins[0]).toMatchObject({ directory: fixture("echo"), origin: "app" });
  });

  test("a copy installed for the config's folder wins over the app's own", async () => {
    const [app, shipped] = [await tempDir(), await tempDir()];
    // The app's copy is broken: if it were used, the build would fail on its missing manifest.
    await mkdir(join(shipped, "node_modules/@fixture/echo"), { recursive: true });
    await writeFile(join(shipped, "node_modules/@fixture/echo/package.json"), '{"name":"@fixture/echo","version":"9.9.9"}');
    await install(app, "echo");
    const built = await buildApp(await configWith([{ package: "@fixture/echo" }], app), { appFolder: shipped });
    expect(built.plugins[0]).toMatchObject({ version: "0.1.0", origin: "config" });
  });

  test("in neither place: both are named", async () => {
    const [app, shipped] = [await tempDir(), await tempDir()];
    const error = await buildFails(await configWith([{ package: "@fixture/missing" }], app), { appFolder: shipped });
    expect(error.message).toStartWith(
      `Plugin @fixture/missing is not installed: no node_modules/@fixture/missing in ${app} or any folder above it, nor in the app's own installation (${shipped}).\n`,
    );
  });

  test("a package without a manifest is not a plugin", async () => {
    const app = await tempDir();
    await mkdir(join(app, "node_modules/left-pad"), { recursive: true });
    await writeFile(join(app, "node_modules/left-pad/package.json"), '{"name":"left-pad","version":"1.3.0"}');
    const error = await buildFails(await configWith([{ package: "left-pad" }], app));
    expect(error.code).toBe("PLUGIN_MANIFEST");
    expect(error.message).toContain("Plugin left-pad has no manifest.");
    expect(error.message).toContain(`missing: ${join(app, "node_modules/left-pad/plugboard.plugin.json")}`);
  });
});

describe("path entries resolve against the config file's folder", () => {
  test("a relative path to a local plugin folder, which may have no package.json", async () => {
    const app = await tempDir();
    // The local plugin imports core through the app's node_modules.
    await symlink(join(import.meta.dir, "../node_modules"), join(app, "node_modules"));
    await mkdir(join(app, "tools/hello"), { recursive: true });
    await writeFile(
      join(app, "tools/hello/plugboard.plugin.json"),
      JSON.stringify({
        name: "hello",
        version: "1.0.0",
        contract: "^1.0.0",
        entry: "./index.ts",
        tools: [{ name: "hello", description: "Greets." }],
        permissions: [],
      }),
    );
    await writeFile(
      join(app, "tools/hello/index.ts"),
      `import { definePlugin, defineTool, textResult } from "@plugboard/core";
       import { Type } from "@sinclair/typebox";
       export default definePlugin({ options: Type.Object({}), tools: () => [
         defineTool({ name: "hello", description: "Greets.", parameters: Type.Object({}), handler: async () => textResult("hello") }),
       ] });`,
    );
    const built = await buildApp(await configWith([{ path: "./tools/hello" }], app));
    expect(await built.runtime.execute("hello", "{}")).toEqual({ content: "hello", isError: false });
  });

  test("a folder that does not exist", async () => {
    const app = await tempDir();
    const error = await buildFails(await configWith([{ path: "./plugins/nope" }], app));
    expect(error.code).toBe("PLUGIN_NOT_FOUND");
    expect(error.message).toContain(`Plugin folder ./plugins/nope does not exist (${join(app, "plugins/nope")}).`);
    expect(error.message).toContain(`Check the "path": it is relative to the config file's folder.`);
  });

  test("a file instead of a folder", async () => {
    const app = await tempDir();
    await writeFile(join(app, "plugin.ts"), "export {};");
    const error = await buildFails(await configWith([{ path: "plugin.ts" }], app));
    expect(error.code).toBe("PLUGIN_NOT_FOUND");
    expect(error.message).toContain("Plugin path plugin.ts is not a folder");
  });

  test("an entry outside the plugin's folder is refused before anything is imported", async () => {
    const app = await tempDir();
    await mkdir(join(app, "plugin"));
    await writeFile(join(app, "outside.ts"), "export default 1;");
    await writeFile(
      join(app, "plugin/plugboard.plugin.json"),
      JSON.stringify({
        name: "escaper",
        version: "1.0.0",
        contract: "^1.0.0",
        entry: "../outside.ts",
        tools: [{ name: "x", description: "X." }],
        permissions: [],
      }),
    );
    const error = await buildFails(await configWith([{ path: "./plugin" }], app));
    expect(error.code).toBe("PLUGIN_MANIFEST");
    expect(error.message).toContain("Plugin escaper: its manifest's entry ../outside.ts is not a file inside the plugin's folder.");
  });
});
