/**
 * `plugboard web`: the web chat from the CLI, with the flags of `bun run web`; a config in any
 * folder naming first-party plugins by package gets the CLI's own copies.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { fileURLToPath } from "node:url";
import { startScriptedModel } from "@plugboard/testing";
import { helpText } from "../src/help.ts";
import { plugboard, spawnPlugboard, STACK_FRAME, tempFolder, writeConfig } from "./helpers.ts";

const CONFIG = JSON.stringify({ plugins: [{ package: "@plugboard/plugin-read-file", permissions: ["fs.read"] }] });

let dir = "";
let remove = async () => {};
beforeAll(async () => {
  ({ dir, remove } = await tempFolder({ "notes.txt": "alpha\nbeta\n", "plugboard.config.json": CONFIG }));
});
afterAll(() => remove());

/** Starts `plugboard web ARGS` in the temp folder; resolves with the process and its URL once it listens. */
async function startWeb(args: readonly string[], env: Record<string, string> = {}) {
  const child = spawnPlugboard(["web", ...args], { cwd: dir, env });
  let stderr = "";
  const url = await new Promise<string>((resolve, reject) => {
    void (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of child.stderr) {
        stderr += decoder.decode(chunk, { stream: true });
        // Read on once it listens: what it says later is the test's too.
        const found = /listening on (http:\/\/\S+)/.exec(stderr)?.[1];
        if (found) resolve(found);
      }
      reject(new Error(`plugboard web exited before listening:\n${stderr}`));
    })();
  });
  return { child, url, stderr: () => stderr };
}

describe("plugboard web", () => {
  test("serves the page and answers a chat with a config naming a first-party plugin by package, in a folder without node_modules", async () => {
    const web = await startWeb(["--port", "0"]);
    try {
      expect(web.stderr()).toContain("offline demo model");
      expect(web.stderr()).toContain(`Workspace: ${dir}`);
      expect(web.stderr()).toContain("Tools: read_file");
      const page = await fetch(web.url);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain("<title>Plugboard chat</title>");
      expect((await fetch(`${web.url}/page.js`)).status).toBe(200);
      const answer = await fetch(`${web.url}/api/chat`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ messages: [{ role: "user", content: "read notes.txt" }] }),
      });
      const body = (await answer.json()) as { reply: string; toolCalls: { name: string; isError: boolean }[] };
      expect(body.toolCalls).toEqual([expect.objectContaining({ name: "read_file", isError: false })]);
      expect(body.reply).toContain("alpha");
    } finally {
      web.child.kill("SIGINT");
    }
    expect(await web.child.exited).toBe(130);
  }, 60_000);

  test("what a plugin in its process throws outside any call (a timer it left) ends it with one message naming the plugin, exit 2, no stack", async () => {
    const stray = fileURLToPath(new URL("./fixtures/stray-error-plugin", import.meta.url));
    await using folder = await tempFolder({ "workspace/.keep": "" });
    const config = await writeConfig(folder.dir, { sandbox: "off", plugins: [{ path: stray, permissions: [] }] });
    // The timer throws while the model is asked again, after the call has answered.
    await using model = await startScriptedModel([{ toolCalls: [{ name: "later", arguments: {} }] }, { hang: true }]);
    const web = await startWeb(["--port", "0", "--config", config], { BASE_URL: model.baseURL, MODEL_API_KEY: "test-key" });
    void fetch(`${web.url}/api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ messages: [{ role: "user", content: "go" }] }),
    }).catch(() => undefined);
    expect(await web.child.exited).toBe(2);
    expect(web.stderr()).toContain(
      "plugboard: plugin stray-error-plugin threw outside any call: TypeError: a bug in a timer of the later tool\nThis is a bug in stray-error-plugin: report it to its author, or remove stray-error-plugin from the config.\n",
    );
    expect(web.stderr()).not.toContain(STACK_FRAME);
  }, 60_000);

  test("a non-loopback --host without a token, and a bad --port, exit 2 with one message", async () => {
    const host = await plugboard(["web", "--port", "0", "--host", "0.0.0.0"], { cwd: dir });
    expect(host.code).toBe(2);
    expect(host.stderr).toContain("0.0.0.0");
    expect(host.stderr).not.toContain(STACK_FRAME);
    const port = await plugboard(["web", "--port", "http"], { cwd: dir });
    expect(port).toMatchObject({ code: 2, stderr: expect.stringContaining("--port must be a whole number from 0 to 65535") });
  }, 60_000);

  test("--port out of range is a usage error with the --help hint, like every argument error", async () => {
    const result = await plugboard(["web", "--port", "99999"], { cwd: dir });
    expect(result).toEqual({ code: 2, stdout: "", stderr: "plugboard: --port must be a whole number from 0 to 65535, got '99999' (see plugboard web --help)\n" });
  });

  test("--help lists the flags of bun run web", async () => {
    const help = await plugboard(["web", "--help"], { cwd: dir });
    expect(help.code).toBe(0);
    for (const flag of ["--port N", "--host H", "--config FILE", "--workspace DIR", "--token TOKEN", "PLUGBOARD_WEB_TOKEN"]) expect(help.stdout).toContain(flag);
    expect(help.stdout).toBe(`${helpText("web")}\n`);
    expect(helpText("interactive")).toContain("plugboard web");
  });
});
