/**
 * A terminal that goes away (its holder, `script`, killed: as a closed tmux pane or ssh
 * session) ends the turn and the process as SIGHUP does: exit 129, no plugin host left.
 * Plugboard either is the terminal's session leader (the kernel sends it SIGHUP, and its read
 * ends) or is not (no signal: only its read ends).
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { killAll, processesWhere, waitFor } from "@plugboard/test-helpers";
import { startScriptedModel } from "@plugboard/testing";
import { spawnUnderScript, tempFolder, writeConfig } from "./helpers.ts";

// Each test starts the CLI and a confined plugin host: generous on a busy machine.
setDefaultTimeout(30_000);

const KEYS = "[y] yes  [a] always";
const ASK = { default: "allow", rules: [{ tool: "bash", action: "ask" }] };

async function setup() {
  const folder = await tempFolder({ "workspace/.keep": "" });
  // Confined, so that each run has plugin hosts that must not outlive it.
  const config = await writeConfig(folder.dir, { sandbox: "auto", policy: ASK });
  // Plugboard, its shell and its hosts: each names the folder in its arguments.
  const left = () => processesWhere((process) => process.argv.some((arg) => arg.includes(folder.dir)));
  return { folder, config, left };
}

/** Kills the terminal's holder and waits until nothing of the run is left; what is left after the deadline is killed. */
async function hangUp(cli: ReturnType<typeof spawnUnderScript>, left: () => number[]): Promise<void> {
  cli.holder.kill("SIGKILL");
  await cli.holder.exited;
  try {
    await waitFor("plugboard and its plugin hosts ended after the terminal went away", () => left().length === 0, { timeoutMs: 10_000 });
  } finally {
    killAll(left());
  }
}

describe.each([
  ["not the session leader (no SIGHUP, the read ends)", false],
  ["the session leader (SIGHUP, and the read ends)", true],
] as const)("plugboard on a terminal that goes away, %s", (_, leader) => {
  test("run, at the approval prompt: the turn ends, the process exits 129, no host is left", async () => {
    const { folder, config, left } = await setup();
    await using _folder = folder;
    await using model = await startScriptedModel([{ toolCalls: [{ id: "c1", name: "bash", arguments: { command: "echo ran" } }] }, { content: "never" }]);
    const cli = spawnUnderScript(["run", "--config", config, "--base-url", model.baseURL, "go"], { cwd: folder.dir, leader });
    await cli.waitFor(KEYS);
    expect(left().length).toBeGreaterThan(1);
    await hangUp(cli, left);
    if (!leader) expect(await cli.code()).toBe(129);
    expect(model.requests).toHaveLength(1);
  });

  test("run, at the prompt for a refusal's reason: the turn ends, the process exits 129, no host is left", async () => {
    const { folder, config, left } = await setup();
    await using _folder = folder;
    await using model = await startScriptedModel([{ toolCalls: [{ id: "c1", name: "bash", arguments: { command: "echo ran" } }] }, { content: "never" }]);
    const cli = spawnUnderScript(["run", "--config", config, "--base-url", model.baseURL, "go"], { cwd: folder.dir, leader });
    await cli.waitFor(KEYS);
    cli.type("n");
    await cli.waitFor("reason for the model");
    await hangUp(cli, left);
    if (!leader) expect(await cli.code()).toBe(129);
    expect(model.requests).toHaveLength(1);
  });

  test("the interactive session, at its prompt: exits 129, no host is left", async () => {
    const { folder, config, left } = await setup();
    await using _folder = folder;
    await using model = await startScriptedModel([{ content: "never" }]);
    const cli = spawnUnderScript(["--config", config, "--base-url", model.baseURL], { cwd: folder.dir, leader });
    await cli.waitFor("plugboard >> ");
    await waitFor("the session started its plugin host", () => left().length > 1, { timeoutMs: 10_000 });
    await hangUp(cli, left);
    if (!leader) expect(await cli.code()).toBe(129);
    expect(model.requests).toHaveLength(0);
  });

  test("the interactive session, at the approval prompt: the turn ends, exits 129, no host is left", async () => {
    const { folder, config, left } = await setup();
    await using _folder = folder;
    await using model = await startScriptedModel([{ toolCalls: [{ id: "c1", name: "bash", arguments: { command: "echo ran" } }] }, { content: "never" }]);
    const cli = spawnUnderScript(["--config", config, "--base-url", model.baseURL], { cwd: folder.dir, leader });
    await cli.waitFor("plugboard >> ");
    cli.type("go\r");
    await cli.waitFor(KEYS);
    await hangUp(cli, left);
    if (!leader) expect(await cli.code()).toBe(129);
    expect(model.requests).toHaveLength(1);
  });
});

describe("plugboard started on a terminal that is already gone (not the session leader)", () => {
  // Its first write fails with EIO: no reader is left, as for a closed pipe, and the command ends as it would have.
  test.each([
    ["--help (printed)", ["--help"]],
    ["plugin new (Node's stream)", ["plugin", "new", "notes", "--dir", "scaffold"]],
  ] as const)("%s: exit 0, as when its output has no reader", async (_name, args) => {
    await using folder = await tempFolder();
    const cli = spawnUnderScript(args, { cwd: folder.dir, startAfter: 0.5 });
    // The shell runs (its trap set) before the terminal's holder goes; plugboard starts after.
    await Bun.sleep(150);
    cli.holder.kill("SIGKILL");
    await cli.holder.exited;
    await waitFor("plugboard ended on the terminal that went away", async () => (await cli.code()) !== undefined, { timeoutMs: 10_000 });
    expect(await cli.code()).toBe(0);
  });
});
