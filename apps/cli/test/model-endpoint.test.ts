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
    expect(result.stderr).toBe(`plugboard: model flag-model at ${model.baseURL} (dialect openai)\n`);
    const json = await plugboard([...args, "--json", "hello"], { cwd: dir, env });
    expect(json.stderr).toBe(`plugboard: model flag-model at ${model.baseURL} (dialect openai)\n`);
    expect(json.stdout).not.toContain("flag-model at");
    expect(JSON.parse(json.stdout)).toMatchObject({ type: "final", status: "answered", text: "hi" });
    expect(result.stderr + json.stderr).not.toContain("sk-secret-key");
  });

  test("plugboard run says the model and endpoint of MODEL and BASE_URL", async () => {
    await using model = await startScriptedModel([{ content: "hi" }]);
    const result = await plugboard(["run", "--config", config, "hello"], { cwd: dir, env: { MODEL: "env-model", BASE_URL: model.baseURL } });
    expect(result).toMatchObject({ code: 0, stdout: "hi\n", stderr: `plugboard: model env-model at ${model.baseURL} (dialect openai)\n` });
  });

  test("the interactive session says it once, before the first prompt", async () => {
    await using model = await startScriptedModel([{ content: "one" }, { content: "two" }]);
    const result = await plugboard(["--config", config], { cwd: dir, env: { MODEL: "env-model", BASE_URL: model.baseURL }, stdin: "a\nb\nexit\n" });
    expect(result.code).toBe(0);
    // First and once; the session's last line says where the conversation is kept.
    const lines = result.stderr.split("\n").filter((line) => line !== "");
    expect(lines[0]).toBe(`plugboard: model env-model at ${model.baseURL} (dialect openai)`);
    expect(lines.filter((line) => line.startsWith("plugboard: model ")).length).toBe(1);
    expect(lines.slice(1)).toEqual([expect.stringMatching(/^plugboard: conversation \S+ is kept: plugboard --continue picks it up$/)]);
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

/** A server answering as an endpoint with no `GET /v1/models` does: 404 there, `chat` for completions. */
function noModelList(chat: (body: { model?: string }) => Response) {
  const requests: string[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const { pathname } = new URL(request.url);
      requests.push(`${request.method} ${pathname}`);
      if (request.method === "POST" && pathname === "/v1/chat/completions") return chat((await request.json()) as { model?: string });
      return Response.json({ error: { message: `Invalid URL (${request.method} ${pathname})` } }, { status: 404 });
    },
  });
  return { baseURL: `http://127.0.0.1:${server.port}/v1`, requests, [Symbol.dispose]: () => server.stop(true) };
}

describe("plugboard check asks the model endpoint", () => {
  const check = (env: Record<string, string>, ...flags: string[]) => plugboard(["check", "--config", config, ...flags], { cwd: dir, env });

  test("a key and model the endpoint knows: OK, the model listed (exit 0)", async () => {
    await using model = await startScriptedModel([], { apiKey: "right-key", models: ["gpt-4.1-mini", "other"] });
    const result = await check({ BASE_URL: model.baseURL, MODEL_API_KEY: "right-key" });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`  model:     gpt-4.1-mini at ${model.baseURL} (API key set), reached: the model is listed\n`);
    expect(model.requests.map(({ method, path }) => `${method} ${path}`)).toEqual(["GET /v1/models"]);
  });

  test("a refused key fails the check with exit 3 and what to change", async () => {
    await using model = await startScriptedModel([], { apiKey: "right-key" });
    const result = await check({ BASE_URL: model.baseURL, MODEL_API_KEY: "wrong-key" });
    expect(result).toMatchObject({ code: 3, stdout: "" });
    expect(result.stderr).toBe(
      `plugboard: check failed at the model endpoint: Model endpoint ${model.baseURL} answered 401 (Incorrect API key provided.): the API key was refused; check MODEL_API_KEY (or OPENAI_API_KEY)\n`,
    );
  });

  test("no key where one is needed says none is set", async () => {
    await using model = await startScriptedModel([], { apiKey: "right-key" });
    const result = await check({ BASE_URL: model.baseURL });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain("answered 401 (Incorrect API key provided.): the endpoint needs an API key and none is set; set MODEL_API_KEY");
  });

  test("a key refused for the model (403) fails with exit 3", () => {
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () => Response.json({ error: { message: "Project does not have access" } }, { status: 403 }),
    });
    const baseURL = `http://127.0.0.1:${server.port}/v1`;
    return check({ BASE_URL: baseURL, MODEL_API_KEY: "k" })
      .then((result) => {
        expect(result.code).toBe(3);
        expect(result.stderr).toContain(`Model endpoint ${baseURL} answered 403 (Project does not have access): access denied; check MODEL_API_KEY`);
      })
      .finally(() => server.stop(true));
  });

  test("a model the endpoint does not list fails with exit 3, naming those it lists", async () => {
    await using model = await startScriptedModel([], { models: ["llama3", "qwen"] });
    const result = await check({ BASE_URL: model.baseURL }, "--model", "gpt-5-typo");
    expect(result.code).toBe(3);
    expect(result.stderr).toBe(
      `plugboard: check failed at the model endpoint: Model endpoint ${model.baseURL} does not list the model gpt-5-typo (it lists: llama3, qwen); check MODEL or --model\n`,
    );
  });

  test("an endpoint without /models is asked for one token instead", async () => {
    using ok = noModelList(() =>
      Response.json({ id: "x", object: "chat.completion", created: 0, model: "m", choices: [{ index: 0, message: { role: "assistant", content: "OK" }, finish_reason: "length" }] }),
    );
    const result = await check({ BASE_URL: ok.baseURL });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`at ${ok.baseURL} (no API key), reached: a one-token completion answered\n`);
    expect(ok.requests).toEqual(["GET /v1/models", "POST /v1/chat/completions"]);
    using unknown = noModelList(({ model }) => Response.json({ error: { message: `model '${model}' not found` } }, { status: 404 }));
    const failed = await check({ BASE_URL: unknown.baseURL });
    expect(failed.code).toBe(3);
    expect(failed.stderr).toContain(`answered 404 (model 'gpt-4.1-mini' not found): check the model name (gpt-4.1-mini; MODEL or --model)`);
  });

  test("an unreachable host (a closed port) fails with exit 3", async () => {
    const model = await startScriptedModel();
    const { baseURL } = model;
    await model.close();
    const result = await check({ BASE_URL: baseURL });
    expect(result.code).toBe(3);
    expect(result.stderr).toStartWith(`plugboard: check failed at the model endpoint: Cannot reach the model endpoint ${baseURL}`);
    expect(result.stderr).toContain("check BASE_URL or --base-url, and that the server is running");
  });

  test("--offline contacts nothing: the same unreachable host passes the check", async () => {
    const model = await startScriptedModel();
    const { baseURL } = model;
    await model.close();
    const result = await check({ BASE_URL: baseURL }, "--offline");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`at ${baseURL} (no API key)\n`);
    expect(result.stderr).toBe("");
  });

  test("the demo model is said to be in use, and nothing is contacted", async () => {
    const result = await check({});
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("  model:     the offline demo model (no MODEL_API_KEY or BASE_URL)\n");
    expect(result.stderr).toBe("");
  });
});
