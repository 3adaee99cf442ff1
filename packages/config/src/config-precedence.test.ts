import { afterEach, describe, expect, test } from "bun:test";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { loadFails, removeTempDirs, tempDir, writeConfig } from "../test/temp-config.ts";
import { loadConfig } from "./index.ts";

afterEach(removeTempDirs);

const full = {
  workspace: "./ws",
  model: { name: "config-model", baseURL: "http://config.example/v1" },
  maxSteps: 7,
  systemPrompt: "Be brief.",
  plugins: [],
};

/** A config folder `app/` (with the file) and a separate working folder `cwd/`. */
async function layout(config: unknown, dotEnv?: string) {
  const root = await tempDir();
  await mkdir(join(root, "app"));
  await mkdir(join(root, "cwd"));
  if (dotEnv !== undefined) await writeFile(join(root, "app/.env"), dotEnv);
  return { root, cwd: join(root, "cwd"), path: await writeConfig(join(root, "app"), config) };
}

describe("precedence: flag > environment > config file > default", () => {
  test("defaults", async () => {
    const { cwd, path } = await layout({ plugins: [] });
    const config = await loadConfig(path, { env: {}, cwd });
    expect(config).toEqual({
      configPath: path,
      workspace: cwd,
      workspaceSource: "default",
      model: { name: "gpt-4.1-mini", baseURL: undefined, apiKey: undefined, dialect: "openai" },
      maxSteps: 20,
      tools: { searchOver: 64, pinned: [] },
      sandbox: "auto",
      systemPrompt: undefined,
      plugins: [],
      policy: { default: "allow", rules: [] },
      hooks: { before: [], after: [] },
      audit: undefined,
      protect: [],
      protectDepth: 8,
      results: { maxBytes: 50_000, maxFileBytes: 64 * 1024 * 1024 },
      limits: { processes: 512, memory: 2 * 1024 ** 3, tmp: 256 * 1024 ** 2 },
      secrets: [],
    });
  });

  test("the config file; its relative workspace is resolved against its own folder", async () => {
    const { root, cwd, path } = await layout(full);
    const config = await loadConfig(path, { env: {}, cwd });
    expect(config.workspace).toBe(join(root, "app/ws"));
    expect(config.workspaceSource).toBe("config");
    expect(config.model).toEqual({ name: "config-model", baseURL: "http://config.example/v1", apiKey: undefined, dialect: "openai" });
    expect(config.maxSteps).toBe(7);
    expect(config.systemPrompt).toBe("Be brief.");
  });

  test("the environment beats the config file", async () => {
    const { cwd, path } = await layout(full);
    const env = { MODEL: "env-model", BASE_URL: "http://env.example/v1", MODEL_API_KEY: "sk-env" };
    const config = await loadConfig(path, { env, cwd });
    expect(config.model).toEqual({ name: "env-model", baseURL: "http://env.example/v1", apiKey: "sk-env", dialect: "openai" });
  });

  test("flags beat the environment; a flag's relative workspace is resolved against cwd", async () => {
    const { cwd, path } = await layout(full);
    const env = { MODEL: "env-model", BASE_URL: "http://env.example/v1" };
    const overrides = { workspace: "here", model: "flag-model", baseURL: "http://flag.example/v1", maxSteps: "3" };
    const config = await loadConfig(path, { env, cwd, overrides });
    expect(config.workspace).toBe(join(cwd, "here"));
    expect(config.workspaceSource).toBe("flag");
    expect(config.model.name).toBe("flag-model");
    expect(config.model.baseURL).toBe("http://flag.example/v1");
    expect(config.maxSteps).toBe(3);
  });

  test("OPENAI_API_KEY and OPENAI_BASE_URL are fallbacks; the Plugboard names win", async () => {
    const { cwd, path } = await layout({ plugins: [] });
    const fallbacks = { OPENAI_API_KEY: "sk-openai", OPENAI_BASE_URL: "http://openai.example/v1" };
    expect((await loadConfig(path, { env: fallbacks, cwd })).model).toEqual({
      name: "gpt-4.1-mini",
      baseURL: "http://openai.example/v1",
      apiKey: "sk-openai",
      dialect: "openai",
    });
    const both = { ...fallbacks, MODEL_API_KEY: "sk-model", BASE_URL: "http://base.example/v1" };
    expect((await loadConfig(path, { env: both, cwd })).model).toMatchObject({ baseURL: "http://base.example/v1", apiKey: "sk-model" });
  });

  test("an empty environment variable counts as unset", async () => {
    const { cwd, path } = await layout(full);
    const config = await loadConfig(path, { env: { MODEL: "", MODEL_API_KEY: "" }, cwd });
    expect(config.model.name).toBe("config-model");
    expect(config.model.apiKey).toBeUndefined();
  });
});

describe("model.dialect", () => {
  test("is gemini by default at Google's hosts, openai elsewhere; the config's wins", async () => {
    const { cwd, path } = await layout({ plugins: [] });
    const at = async (BASE_URL: string) => (await loadConfig(path, { env: { BASE_URL }, cwd })).model.dialect;
    expect(await at("https://generativelanguage.googleapis.com/v1beta/openai/")).toBe("gemini");
    expect(await at("https://us-central1-aiplatform.googleapis.com/v1/projects/p/locations/us-central1/endpoints/openapi")).toBe("gemini");
    expect(await at("https://googleapis.com.example/v1")).toBe("openai");
    const strict = await layout({ model: { dialect: "openai-strict" }, plugins: [] });
    expect((await loadConfig(strict.path, { env: { BASE_URL: "https://generativelanguage.googleapis.com/v1beta/openai/" }, cwd })).model.dialect).toBe("openai-strict");
  });

  test("another value is refused, naming the three", async () => {
    const { cwd, path } = await layout({ model: { dialect: "anthropic" }, plugins: [] });
    await expect(loadConfig(path, { env: {}, cwd })).rejects.toThrow('model.dialect: expected one of openai, openai-strict, gemini, got "anthropic"');
  });
});

describe("the .env file beside the config", () => {
  const dotEnv = '# model settings\nMODEL=dotenv-model\nexport MODEL_API_KEY="sk-dotenv"\nBASE_URL=http://dotenv.example/v1 # local\n';

  test("is read, and beats the config file", async () => {
    const { cwd, path } = await layout(full, dotEnv);
    const config = await loadConfig(path, { env: {}, cwd });
    expect(config.model).toEqual({ name: "dotenv-model", baseURL: "http://dotenv.example/v1", apiKey: "sk-dotenv", dialect: "openai" });
  });

  test("loses to the process environment, variable by variable", async () => {
    const { cwd, path } = await layout(full, dotEnv);
    const config = await loadConfig(path, { env: { MODEL: "env-model" }, cwd });
    expect(config.model).toEqual({ name: "env-model", baseURL: "http://dotenv.example/v1", apiKey: "sk-dotenv", dialect: "openai" });
  });

  test("only the one beside the config is read, not one in cwd", async () => {
    const { cwd, path } = await layout({ plugins: [] });
    await writeFile(join(cwd, ".env"), "MODEL=cwd-model\n");
    expect((await loadConfig(path, { env: {}, cwd })).model.name).toBe("gpt-4.1-mini");
  });

  test("a line that is not KEY=VALUE is skipped, as when Bun loads a .env", async () => {
    const { cwd, path } = await layout({ plugins: [] }, "this is not a setting\nMODEL=x\n");
    expect((await loadConfig(path, { env: {}, cwd })).model.name).toBe("x");
  });

  test("a BASE_URL that is not a URL says where it came from", async () => {
    const { cwd, path, root } = await layout({ plugins: [] }, "BASE_URL=not a url\n");
    const error = await loadFails(path, { env: {}, cwd });
    expect(error.message).toContain(`BASE_URL (from ${join(root, "app/.env")}) must be a URL such as https://api.openai.com/v1`);
  });
});

describe("a model key an HTTP header cannot carry", () => {
  test.each([
    ["a placeholder's ellipsis", "sk-…", `"…" at character 4 of 4`],
    ["a line break", "sk-abc\nsk-def", `"\\n" at character 7 of 13`],
  ])("%s is a config error naming the variable and the fix, not a crash at the first request", async (_case, key, where) => {
    const { cwd, path } = await layout({ plugins: [] });
    const error = await loadFails(path, { env: { MODEL_API_KEY: key }, cwd });
    expect(error.code).toBe("CONFIG_INVALID");
    expect(error.message).toBe(
      `MODEL_API_KEY (from the environment) holds ${where}, which an HTTP header cannot carry, so no request could send the key.\nSet it to the key itself, as the provider gave it (no placeholder, line break or quotes around it), or unset it.`,
    );
  });

  test("one from the .env beside the config says so", async () => {
    const { cwd, path, root } = await layout({ plugins: [] }, 'OPENAI_API_KEY="sk-\u00e9t\u00e9"\n');
    const error = await loadFails(path, { env: {}, cwd });
    expect(error.message).toStartWith(`OPENAI_API_KEY (from ${join(root, "app/.env")}) holds "\u00e9" at character 4 of 6`);
  });

  test("visible ASCII, spaces included, is taken as it is", async () => {
    const { cwd, path } = await layout({ plugins: [] });
    expect((await loadConfig(path, { env: { MODEL_API_KEY: "sk-proj_A1 ~!" }, cwd })).model.apiKey).toBe("sk-proj_A1 ~!");
  });
});

describe("flag values", () => {
  test.each(["0", "1001", "1.5", "ten"])("--max-steps %p is a usage error", async (value) => {
    const { cwd, path } = await layout({ plugins: [] });
    const error = await loadFails(path, { env: {}, cwd, overrides: { maxSteps: value } });
    expect(error.code).toBe("USAGE");
    expect(error.message).toBe(`--max-steps must be a whole number from 1 to 1000, got '${value}'`);
  });

  test("a --base-url that is not a URL is a usage error", async () => {
    const { cwd, path } = await layout({ plugins: [] });
    const error = await loadFails(path, { env: {}, cwd, overrides: { baseURL: "not a url" } });
    expect(error.code).toBe("USAGE");
    expect(error.message).toBe("--base-url must be an http(s) URL such as http://localhost:11434/v1, got 'not a url'");
  });
});
