/**
 * A running tool shows the tail of its output under the spinner (DESIGN.md, "The CLI people
 * live in"): bash's output reaches the terminal while the command still runs — in the CLI's
 * process and from a confined host — and gives way to the call's trace line when it ends.
 * The command waits on a FIFO the test opens only once `line1` is on the screen, so the screen
 * can have shown it only while the call was running. Piped, nothing of it is printed.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startScriptedModel } from "@plugboard/testing";
import { FIRST_PARTY, plugboard, spawnInTerminal, tempFolder, writeConfig } from "./helpers.ts";

// A confined host starts in one of them.
setDefaultTimeout(60_000);

const COMMAND = "echo line1; printf 'tab\\there \\033[2J\\n'; read go < release.fifo; echo line2";

async function workspaceWithFifo() {
  const folder = await tempFolder({ "workspace/.keep": "" });
  const fifo = join(folder.dir, "workspace", "release.fifo");
  expect(Bun.spawnSync(["mkfifo", fifo]).exitCode).toBe(0);
  return { folder, fifo };
}

const script = () => [{ toolCalls: [{ id: "b1", name: "bash", arguments: { command: COMMAND } }] }, { content: "Done." }];

describe("a running bash call shows its output under the spinner", () => {
  for (const sandbox of ["off", "auto"] as const) {
    test(`sandbox ${sandbox}: line1 shows while the command waits, then the result line`, async () => {
      const { folder, fifo } = await workspaceWithFifo();
      await using _folder = folder;
      const config = await writeConfig(folder.dir, { sandbox, plugins: [FIRST_PARTY[0]] });
      await using model = await startScriptedModel(script());
      const cli = spawnInTerminal(["run", "--config", config, "--base-url", model.baseURL, "--yes", "count"], { cwd: folder.dir });
      await cli.waitFor("  line1");
      await cli.waitFor("  tab  here \\x1b[2J");
      // Still running: no result yet, and the spinner above the lines.
      expect(cli.screen()).not.toContain("[tool] bash");
      expect(cli.screen()).toContain("running bash");
      expect(cli.screen()).not.toContain("\u001b[2J");
      writeFileSync(fifo, "go\n");
      expect(await cli.exited()).toBe(0);
      const screen = cli.screen();
      expect(screen).toContain("[tool] bash");
      expect(screen).toContain("line1⏎tab\there \\x1b[2J⏎line2");
      // The lines were erased with the spinner before the result line.
      const erased = screen.indexOf("\r\u001b[J", screen.lastIndexOf("  line1"));
      expect(erased).toBeGreaterThan(-1);
      expect(erased).toBeLessThan(screen.indexOf("[tool] bash"));
    });
  }
});

test("piped, nothing of the running output is printed", async () => {
  await using folder = await tempFolder({ "workspace/.keep": "" });
  const config = await writeConfig(folder.dir, { plugins: [FIRST_PARTY[0]] });
  await using model = await startScriptedModel([{ toolCalls: [{ id: "b1", name: "bash", arguments: { command: "echo line1; echo line2" } }] }, { content: "Done." }]);
  const piped = await plugboard(["run", "--config", config, "--base-url", model.baseURL, "--yes", "count"], { cwd: folder.dir });
  expect(piped.code).toBe(0);
  expect(piped.stdout).toBe("Done.\n");
  expect(piped.stderr).not.toContain("  line1");
  expect(piped.stderr).toContain("[tool] bash");
});

describe("an MCP server's progress notifications show under the spinner", () => {
  const SERVER = fileURLToPath(new URL("./fixtures/progress-server/server.js", import.meta.url));

  async function setUp() {
    const folder = await tempFolder({ "workspace/.keep": "" });
    const config = await writeConfig(folder.dir, { plugins: [{ mcp: { command: process.execPath, args: [SERVER] }, name: "progress" }] });
    const release = join(folder.dir, "release");
    const model = await startScriptedModel([{ toolCalls: [{ id: "i1", name: "index", arguments: { release } }] }, { content: "Done." }]);
    return { folder, config, release, model };
  }

  test("on a terminal: each step while the call runs, then the result line", async () => {
    const { folder, config, release, model } = await setUp();
    await using _folder = folder;
    await using _model = model;
    const cli = spawnInTerminal(["run", "--config", config, "--base-url", model.baseURL, "--yes", "index"], { cwd: folder.dir });
    await cli.waitFor("  scanning files (1/3)");
    await cli.waitFor("  hashing files (2/3)");
    await cli.waitFor("  3/3");
    expect(cli.screen()).not.toContain("[tool] index");
    expect(cli.screen()).toContain("running index");
    writeFileSync(release, "");
    expect(await cli.exited()).toBe(0);
    expect(cli.screen()).toContain("[tool] index");
    expect(cli.screen()).toContain("→ indexed");
  });

  test("piped, progress is asked for (each notification keeps the call's timeout going) and none is printed", async () => {
    const { folder, config, release, model } = await setUp();
    await using _folder = folder;
    await using _model = model;
    writeFileSync(release, "");
    const piped = await plugboard(["run", "--config", config, "--base-url", model.baseURL, "--yes", "index"], { cwd: folder.dir });
    expect(piped.code).toBe(0);
    expect(piped.stderr).not.toContain("scanning files");
    expect(piped.stderr).toContain("→ indexed");
    expect(piped.stderr).not.toContain("no progress asked");
  });
});
