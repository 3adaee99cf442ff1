import { expect, test } from "bun:test";
import { join } from "node:path";
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
