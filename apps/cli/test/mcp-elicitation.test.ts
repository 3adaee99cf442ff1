/**
 * A mounted MCP server asks the person for input mid-call (elicitation): on a real
 * pseudo-terminal the form is asked field by field and a bad answer asked again; without a
 * terminal the request is declined; a terminal that goes away at the question ends the run
 * as it does at an approval (129). The server runs on the current SDK, in the newest revision.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { killAll, processesWhere, waitFor } from "@plugboard/test-helpers";
import { startScriptedModel } from "@plugboard/testing";
import { plugboard, spawnInTerminal, spawnUnderScript, tempFolder, toolResults, writeConfig } from "./helpers.ts";

// Real processes (plugboard, the server, the model) on a busy machine.
setDefaultTimeout(30_000);

const MODERN = join(import.meta.dir, "../../../packages/mcp/test/modern-server.ts");
const ASKS = "MCP server modern asks: Tell us about yourself";

async function setup() {
  const folder = await tempFolder({ "workspace/.keep": "" });
  const config = await writeConfig(folder.dir, { plugins: [{ mcp: { command: process.execPath, args: [MODERN, folder.dir] }, name: "modern" }] });
  return { folder, config };
}

const script = () => startScriptedModel([{ toolCalls: [{ id: "c1", name: "ask", arguments: {} }] }, { content: "thanks" }]);

describe("a mounted server's request for input", () => {
  test("run on a terminal: each field asked, a bad answer asked again, the answer reaches the server", async () => {
    const { folder, config } = await setup();
    await using _folder = folder;
    await using model = await script();
    const cli = spawnInTerminal(["run", "--config", config, "--base-url", model.baseURL, "ask me"], { cwd: folder.dir });
    await cli.waitFor(ASKS);
    await cli.waitFor("[a] answer  [d] decline  [c] cancel");
    cli.type("a");
    await cli.waitFor("Name (required) › ");
    cli.type("\r");
    await cli.waitFor("name: must be present; try again");
    cli.type("Ada\r");
    await cli.waitFor("Age (integer) › ");
    cli.type("old\r");
    await cli.waitFor("age: must be a number; try again");
    cli.type("-3\r");
    await cli.waitFor("age: must be >= 0; try again");
    cli.type("36\r");
    await cli.waitFor("Favourite colour (required, 1 red, 2 green, 3 blue) › ");
    cli.type("purple\r");
    await cli.waitFor("color: must be one of: red, green, blue; try again");
    cli.type("2\r");
    await cli.waitFor("Subscribe (y/n, default n) › ");
    cli.type("\r");
    expect(await cli.exited()).toBe(0);
    expect(cli.screen()).toContain("thanks");
    expect(toolResults(model)).toEqual({ c1: 'accept {"name":"Ada","age":36,"color":"green","subscribe":false}' });
  });

  test("run on a terminal: the person declines", async () => {
    const { folder, config } = await setup();
    await using _folder = folder;
    await using model = await script();
    const cli = spawnInTerminal(["run", "--config", config, "--base-url", model.baseURL, "ask me"], { cwd: folder.dir });
    await cli.waitFor("[a] answer  [d] decline  [c] cancel");
    cli.type("d");
    expect(await cli.exited()).toBe(0);
    expect(toolResults(model)).toEqual({ c1: "decline" });
  });

  test("run without a terminal: no one to ask, so the request is declined", async () => {
    const { folder, config } = await setup();
    await using _folder = folder;
    await using model = await script();
    const result = await plugboard(["run", "--config", config, "--base-url", model.baseURL, "ask me"], { cwd: folder.dir });
    expect(result).toMatchObject({ code: 0, stdout: "thanks\n" });
    expect(result.stderr).not.toContain("asks:");
    expect(toolResults(model)).toEqual({ c1: "decline" });
  });

  test("a terminal that goes away at the question ends the run (129) and the server", async () => {
    const { folder, config } = await setup();
    await using _folder = folder;
    await using model = await script();
    // Plugboard and the server both name the folder in their arguments.
    const left = () => processesWhere((process) => process.argv.some((arg) => arg.includes(folder.dir)));
    const cli = spawnUnderScript(["run", "--config", config, "--base-url", model.baseURL, "ask me"], { cwd: folder.dir });
    await cli.waitFor("[a] answer  [d] decline  [c] cancel");
    cli.type("a");
    await cli.waitFor("Name (required) › ");
    cli.holder.kill("SIGKILL");
    await cli.holder.exited;
    try {
      await waitFor("plugboard and the server ended after the terminal went away", () => left().length === 0, { timeoutMs: 10_000 });
    } finally {
      killAll(left());
    }
    expect(await cli.code()).toBe(129);
    expect(model.requests).toHaveLength(1);
  });
});
