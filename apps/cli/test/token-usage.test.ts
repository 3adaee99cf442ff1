/**
 * A turn ends with its token usage when the endpoint reports it (DESIGN.md, "The CLI people
 * live in"): on a terminal a dim `1,234 in · 56 out` after the answer, the turn's requests
 * added up; `run --json`'s final event carries it; nothing when the endpoint reports none.
 */
import { expect, setDefaultTimeout, test } from "bun:test";
import { startScriptedModel } from "@plugboard/testing";
import { plugboard, spawnInTerminal, tempFolder, writeConfig } from "./helpers.ts";

setDefaultTimeout(60_000);

const script = (usage: false | { promptTokens: number; completionTokens: number }, second: typeof usage) => [
  { toolCalls: [{ id: "g1", name: "glob", arguments: { pattern: "*" } }], usage },
  { content: "Nothing here.", usage: second },
];

async function onTerminal(replies: ReturnType<typeof script>) {
  await using folder = await tempFolder({ "workspace/.keep": "" });
  const config = await writeConfig(folder.dir);
  await using model = await startScriptedModel(replies);
  const cli = spawnInTerminal(["run", "--config", config, "--base-url", model.baseURL, "look"], { cwd: folder.dir, env: { NO_COLOR: "" } });
  const code = await cli.exited();
  return { code, screen: cli.screen() };
}

test("on a terminal, the turn ends with its usage, dim, after the answer", async () => {
  const { code, screen } = await onTerminal(script({ promptTokens: 1000, completionTokens: 20 }, { promptTokens: 234, completionTokens: 36 }));
  expect(code).toBe(0);
  expect(screen).toContain("\u001b[2m1,234 in · 56 out\u001b[0m");
  expect(screen.indexOf("1,234 in")).toBeGreaterThan(screen.indexOf("Nothing here."));
});

test("on a terminal, no usage line when the endpoint reports none", async () => {
  const { code, screen } = await onTerminal(script(false, false));
  expect(code).toBe(0);
  expect(screen).toContain("Nothing here.");
  expect(screen).not.toContain(" in · ");
});

test("run --json's final event carries the usage when reported, and no usage field otherwise", async () => {
  await using folder = await tempFolder({ "workspace/.keep": "" });
  const config = await writeConfig(folder.dir);
  const final = async (replies: ReturnType<typeof script>) => {
    await using model = await startScriptedModel(replies);
    const run = await plugboard(["run", "--json", "--config", config, "--base-url", model.baseURL, "look"], { cwd: folder.dir });
    expect(run.code).toBe(0);
    // Piped, the text is only the JSON events: no usage line on stderr either.
    expect(run.stderr).not.toContain(" in · ");
    return JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}");
  };
  expect((await final(script({ promptTokens: 1000, completionTokens: 20 }, { promptTokens: 234, completionTokens: 36 }))).usage).toEqual({ prompt_tokens: 1234, completion_tokens: 56 });
  const none = await final(script(false, false));
  expect(none.type).toBe("final");
  expect(none).not.toHaveProperty("usage");
});
