import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startScriptedModel } from "@plugboard/testing";
import { plugboard, tempFolder, writeConfig } from "./helpers.ts";

let dir = "";
let remove = async () => {};
let config = "";

beforeAll(async () => {
  ({ dir, remove } = await tempFolder({ "workspace/README.md": "# Demo\n" }));
  config = await writeConfig(dir);
});
afterAll(() => remove());

describe("the model line at the start of a session", () => {
  test("plugboard run says the model and endpoint of --model and --base-url, once, on stderr only, and never the key", async () => {
    await using model = await startScriptedModel([{ content: "hi" }, { content: "hi" }]);
    const args = ["run", "--config", config, "--model", "flag-model", "--base-url", model.baseURL];
    const env = { MODEL_API_KEY: "sk-secret-key" };
    const result = await plugboard([...args, "hello"], { cwd: dir, env });
    expect(result).toMatchObject({ code: 0, stdout: "hi\n" });
    expect(result.stderr).toBe(`plugboard: model flag-model at ${model.baseURL}\n`);
    const json = await plugboard([...args, "--json", "hello"], { cwd: dir, env });
    expect(json.stderr).toBe(`plugboard: model flag-model at ${model.baseURL}\n`);
    expect(json.stdout).not.toContain("flag-model at");
    expect(JSON.parse(json.stdout)).toMatchObject({ type: "final", status: "answered", text: "hi" });
    expect(result.stderr + json.stderr).not.toContain("sk-secret-key");
  });

  test("plugboard run says the model and endpoint of MODEL and BASE_URL", async () => {
    await using model = await startScriptedModel([{ content: "hi" }]);
    const result = await plugboard(["run", "--config", config, "hello"], { cwd: dir, env: { MODEL: "env-model", BASE_URL: model.baseURL } });
    expect(result).toMatchObject({ code: 0, stdout: "hi\n", stderr: `plugboard: model env-model at ${model.baseURL}\n` });
  });

  test("the interactive session says it once, before the first prompt", async () => {
    await using model = await startScriptedModel([{ content: "one" }, { content: "two" }]);
    const result = await plugboard(["--config", config], { cwd: dir, env: { MODEL: "env-model", BASE_URL: model.baseURL }, stdin: "a\nb\nexit\n" });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(`plugboard: model env-model at ${model.baseURL}\n`);
  });

  test("the demo model says it is the demo model, with no model line", async () => {
    const result = await plugboard(["run", "--config", config, "hello"], { cwd: dir });
    expect(result.stderr).toStartWith("plugboard: no MODEL_API_KEY or BASE_URL is set, so an offline demo model answers");
    expect(result.stderr).not.toContain(" at http");
  });
});

describe("endpoint failures that say what to change", () => {
  test("a 401 with no key set says none is set and how to set one (exit 3)", async () => {
    await using model = await startScriptedModel([], { apiKey: "right-key" });
    const result = await plugboard(["run", "--config", config, "hello"], { cwd: dir, env: { BASE_URL: model.baseURL } });
    expect(result.code).toBe(3);
    expect(result.stderr.trim().split("\n").at(-1)).toBe(
      `plugboard: Model endpoint ${model.baseURL} answered 401 (Incorrect API key provided.): the endpoint needs an API key and none is set; set MODEL_API_KEY (or OPENAI_API_KEY) in the environment or in the .env file beside the config`,
    );
  });

  test("a BASE_URL ending in /chat/completions gets the URL meant (exit 3)", async () => {
    await using model = await startScriptedModel();
    const baseURL = `${model.baseURL}/chat/completions`;
    const result = await plugboard(["run", "--config", config, "hello"], { cwd: dir, env: { BASE_URL: baseURL } });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(`: did you mean ${model.baseURL}? (BASE_URL or --base-url; most endpoints end in /v1)`);
  });
});
