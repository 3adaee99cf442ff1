import { expect, test } from "bun:test";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import corePackage from "@plugboard/core/package.json" with { type: "json" };
import OpenAI from "openai";
import { checkPlugin, startScriptedModel } from "./index.ts";

test("re-exports the scripted model next to the conformance kit", async () => {
  expect(checkPlugin).toBeFunction();
  await using model = await startScriptedModel([{ content: "Hello" }]);
  const client = new OpenAI({ baseURL: model.baseURL, apiKey: "test", maxRetries: 0 });
  const completion = await client.chat.completions.create({ model: "any", messages: [{ role: "user", content: "Hi" }] });
  expect(completion.choices[0]?.message.content).toBe("Hello");
});

test("importing it prints nothing and leaves nothing running", () => {
  const probe = `await import(${JSON.stringify(join(import.meta.dir, "index.ts"))});`;
  const child = Bun.spawnSync([process.execPath, "-e", probe], { cwd: import.meta.dir, timeout: 20_000 });
  expect(child.exitCode).toBe(0);
  expect(child.stdout.toString()).toBe("");
});

test("it depends on core (with core's TypeBox) and the scripted model only, and its sources import nothing else of ours", async () => {
  const pkg = JSON.parse(await readFile(join(import.meta.dir, "../package.json"), "utf8")) as { dependencies: Record<string, string> };
  expect(pkg.dependencies).toEqual({
    "@plugboard/core": "workspace:*",
    "@plugboard/scripted-model": "workspace:*",
    "@sinclair/typebox": corePackage.dependencies["@sinclair/typebox"],
  });
  const transpiler = new Bun.Transpiler({ loader: "ts" });
  const ours = new Set<string>();
  for (const file of await readdir(import.meta.dir)) {
    if (!file.endsWith(".ts") || file.endsWith(".test.ts")) continue;
    for (const { path } of transpiler.scanImports(await readFile(join(import.meta.dir, file), "utf8"))) {
      if (path.startsWith("@plugboard/")) ours.add(path.split("/").slice(0, 2).join("/"));
    }
  }
  expect([...ours].sort()).toEqual(["@plugboard/core", "@plugboard/scripted-model"]);
});
