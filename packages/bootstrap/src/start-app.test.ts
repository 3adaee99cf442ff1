import { afterEach, describe, expect, test } from "bun:test";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { startScriptedModel } from "@plugboard/scripted-model";
import { fixture, removeTempDirs, tempDir, writeConfig } from "../test/temp-app.ts";
import { FlagError, startApp } from "./index.ts";

afterEach(removeTempDirs);

/** `root/app/plugboard.json` (workspace `./ws`, one plugin) and a working folder `root/cwd`. */
async function layout() {
  const root = await tempDir();
  await mkdir(join(root, "app/ws"), { recursive: true });
  await mkdir(join(root, "cwd"));
  const config = { workspace: "./ws", plugins: [{ path: fixture("echo"), permissions: [] }] };
  return { root, cwd: join(root, "cwd"), path: await writeConfig(join(root, "app"), config) };
}

describe("startApp", () => {
  test("uses the default config without --config, and --config relative to the working folder", async () => {
    const { root, cwd, path } = await layout();
    const byDefault = await startApp({ defaultConfig: path, cwd, env: {} });
    expect(byDefault.config.configPath).toBe(path);
    expect(byDefault.workspace.root).toBe(join(root, "app/ws"));
    expect(byDefault.model).toBeUndefined();
    const byFlag = await startApp({ defaultConfig: "/nonexistent.json", flags: { config: "../app/plugboard.json", workspace: "." }, cwd, env: {} });
    expect(byFlag.config.configPath).toBe(path);
    expect(byFlag.workspace.root).toBe(cwd);
    expect(byFlag.config.workspaceSource).toBe("flag");
  });

  test("checks each flag once, as typed, before reading anything", async () => {
    const error = await startApp({ defaultConfig: "/nonexistent.json", flags: { maxSteps: "0" }, env: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FlagError);
    expect((error as FlagError).message).toBe("--max-steps must be a whole number from 1 to 1000, got '0'");
  });

  test("with model: true, a client for the configured endpoint (flags win)", async () => {
    const { cwd, path } = await layout();
    await using model = await startScriptedModel([{ content: "hello" }]);
    const app = await startApp({ defaultConfig: path, flags: { baseURL: model.baseURL, model: "flag-model", maxSteps: "3" }, cwd, env: {}, model: true });
    expect(app.config.maxSteps).toBe(3);
    expect(app.model.demo).toBe(false);
    expect(app.model.endpoint).toEqual({ baseURL: model.baseURL, model: "flag-model" });
    const completion = await app.model.client.chat.completions.create({ model: "flag-model", messages: [{ role: "user", content: "hi" }] });
    expect(completion.choices[0]?.message.content).toBe("hello");
    expect(model.requests.length).toBe(1);
  });
});
