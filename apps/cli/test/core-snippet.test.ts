/**
 * README's "Using the core directly" snippet, as written: copied into an app of its own whose
 * node_modules holds the workspace's core, runtime and agent and the app's own `openai` (the
 * agent's peer dependency, so the one the agent uses), typechecked by the repository's
 * TypeScript, then run against the scripted model (`new OpenAI()` reads its base URL and key
 * from the environment, as the SDK documents).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startScriptedModel } from "@plugboard/testing";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const TSC = join(ROOT, "node_modules/.bin/tsc");

/** The first `ts` block of README's "Using the core directly". */
async function coreSnippet(): Promise<string> {
  const readme = await readFile(join(ROOT, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Using the core directly"));
  const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  if (block === undefined) throw new Error("README's 'Using the core directly' has no ts block");
  return block;
}

let app = "";
beforeAll(async () => {
  app = await realpath(await mkdtemp(join(tmpdir(), "plugboard-core-snippet-")));
  const links: Record<string, string> = {
    "@plugboard/core": join(ROOT, "packages/core"),
    "@plugboard/runtime": join(ROOT, "packages/runtime"),
    "@plugboard/agent": join(ROOT, "packages/agent"),
    // The app's own openai, as `bun add openai` would install it beside the agent.
    openai: dirname(await realpath(join(ROOT, "apps/cli/node_modules/openai/package.json"))),
    "bun-types": join(ROOT, "node_modules/bun-types"),
  };
  for (const [name, target] of Object.entries(links)) {
    await mkdir(dirname(join(app, "node_modules", name)), { recursive: true });
    await symlink(target, join(app, "node_modules", name));
  }
  await writeFile(join(app, "package.json"), JSON.stringify({ name: "core-snippet", private: true, type: "module" }));
  await writeFile(join(app, "tsconfig.json"), JSON.stringify({ extends: join(ROOT, "tsconfig.base.json"), include: ["*.ts"] }));
  // What the snippet leaves in `result` and `messages`, for the test to read.
  const report = "\nconsole.log(JSON.stringify({ status: result.status, last: messages.at(-1) }));\n";
  await writeFile(join(app, "main.ts"), `${await coreSnippet()}${report}`);
}, 60_000);
afterAll(() => rm(app, { recursive: true, force: true }));

test("the agent takes openai as a peer dependency: the app's SDK is the one it uses, never a copy of its own", async () => {
  const agent = (await Bun.file(join(ROOT, "packages/agent/package.json")).json()) as Record<string, Record<string, string> | undefined>;
  expect(agent.dependencies?.openai).toBeUndefined();
  expect(agent.peerDependencies?.openai).toStartWith("^");
});

test("README's core snippet typechecks as written, `client: new OpenAI()` included", async () => {
  const checked = Bun.spawn([TSC, "-p", "."], { cwd: app, stdout: "pipe", stderr: "pipe" });
  const [stdout, code] = await Promise.all([new Response(checked.stdout).text(), checked.exited]);
  expect(stdout).toBe("");
  expect(code).toBe(0);
}, 120_000);

test("README's core snippet runs: the model calls the snippet's tool and answers", async () => {
  await using model = await startScriptedModel([{ toolCalls: [{ id: "call_shout", name: "shout", arguments: { text: "hello" } }] }, { content: "It shouted HELLO." }]);
  const child = Bun.spawn(["bun", "main.ts"], {
    cwd: app,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: app, OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: "sk-snippet" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
  expect(JSON.parse(stdout)).toEqual({ status: "answered", last: { role: "assistant", content: "It shouted HELLO." } });
  expect(model.requests[0]?.body.model).toBe("gpt-4.1-mini");
  const toolMessage = model.requests[1]?.body.messages?.find((message) => message.role === "tool");
  expect(String(toolMessage?.content)).toBe("HELLO");
}, 60_000);
