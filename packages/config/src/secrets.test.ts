import { afterEach, describe, expect, test } from "bun:test";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { removeTempDirs, tempDir, writeConfig } from "../test/temp-config.ts";
import { loadConfig } from "./index.ts";

afterEach(removeTempDirs);

describe("the app's secrets, for the runtime to keep from the model", () => {
  test("the model key, .env values named as secrets (8 characters or more), MCP headers and env so named, the workspace's .env", async () => {
    const dir = await tempDir();
    await writeFile(
      join(dir, ".env"),
      ["OPENAI_API_KEY=sk-from-dotenv-0123456789", "DB_PASSWORD=correct-horse-battery", "SHORT_TOKEN=abc", "Auth_Header=x-auth-0123456789", "PORT=80808080"].join("\n"),
    );
    await mkdir(join(dir, "ws"));
    await writeFile(join(dir, "ws/.env"), "STRIPE_SECRET=ws-secret-0123456789\nNAME=not-a-secret-at-all\n");
    const path = await writeConfig(dir, {
      workspace: "./ws",
      plugins: [
        {
          mcp: { url: "https://mcp.example/mcp", headers: { Authorization: "Bearer abcdefgh12345678", Cookie: "session=0123456789", Accept: "application/json" } },
          name: "remote",
          permissions: [],
        },
        { mcp: { command: "server", env: { GITHUB_TOKEN: "ghp-like-value-123456", NODE_ENV: "production" } }, name: "github", permissions: [] },
      ],
    });
    const config = await loadConfig(path, { env: {} });
    expect(config.secrets).toEqual([
      { name: "OPENAI_API_KEY", value: "sk-from-dotenv-0123456789" },
      { name: "DB_PASSWORD", value: "correct-horse-battery" },
      { name: "Auth_Header", value: "x-auth-0123456789" },
      { name: "STRIPE_SECRET", value: "ws-secret-0123456789" },
      { name: "remote Authorization header", value: "Bearer abcdefgh12345678" },
      { name: "remote Authorization header", value: "abcdefgh12345678" },
      { name: "remote Cookie header", value: "session=0123456789" },
      { name: "github GITHUB_TOKEN", value: "ghp-like-value-123456" },
    ]);
  });

  test("the model key from the environment is named by its variable; a workspace .env that is a folder adds nothing", async () => {
    const dir = await tempDir();
    await mkdir(join(dir, "ws/.env"), { recursive: true });
    const path = await writeConfig(dir, { workspace: "./ws", plugins: [] });
    const config = await loadConfig(path, { env: { MODEL_API_KEY: "key-from-the-environment" } });
    expect(config.secrets).toEqual([{ name: "MODEL_API_KEY", value: "key-from-the-environment" }]);
  });
});
