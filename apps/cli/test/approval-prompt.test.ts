/**
 * The approval prompt as a person meets it: the real CLI in a pseudo-terminal, answered key
 * by key, against the scripted model; what the model read comes from its recorded requests.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type ScriptedModel, startScriptedModel } from "@plugboard/testing";
import { plugboard, spawnInTerminal, tempFolder, toolResults, writeConfig } from "./helpers.ts";

// Each test runs one to three CLI processes: a busy machine can outlast bun's default 5 s.
setDefaultTimeout(30_000);

// The taint is off: unconfined, bash's first result taints the session (taint.test.ts), and these turns are about the prompt.
const ASK = { default: "allow", taint: "off", rules: [{ tool: "bash", action: "ask" }, { tool: "write_file", action: "ask" }, { tool: "edit_file", action: "ask" }] };
const KEYS = "[y] yes  [a] always";

async function setup() {
  const folder = await tempFolder({ "workspace/notes.txt": "alpha\nbeta\n" });
  const config = await writeConfig(folder.dir, { policy: ASK });
  const run = (model: ScriptedModel) => spawnInTerminal(["run", "--config", config, "--base-url", model.baseURL, "go"], { cwd: folder.dir });
  return { folder, config, run, workspace: join(folder.dir, "workspace") };
}

describe("the approval prompt (run, on a terminal)", () => {
  test("shows the command in full; y runs it once", async () => {
    const { folder, run, workspace } = await setup();
    await using _ = folder;
    await using model = await startScriptedModel([
      { toolCalls: [{ id: "c1", name: "bash", arguments: { command: "echo approved > out.txt && echo done" } }] },
      { content: "ok" },
    ]);
    const cli = run(model);
    await cli.waitFor(KEYS);
    expect(cli.screen()).toContain("allow bash?\r\n  $ echo approved > out.txt && echo done\r\n");
    expect(existsSync(join(workspace, "out.txt"))).toBe(false);
    cli.type("y");
    expect(await cli.exited()).toBe(0);
    expect(await readFile(join(workspace, "out.txt"), "utf8")).toBe("approved\n");
    expect(toolResults(model, 1).c1).toContain("done");
  });

  test("n refuses, and the reason typed after it reaches the model", async () => {
    const { folder, run, workspace } = await setup();
    await using _ = folder;
    await using model = await startScriptedModel([
      { toolCalls: [{ id: "w1", name: "write_file", arguments: { path: "plan.md", content: "one\ntwo\n" } }] },
      { content: "understood" },
    ]);
    const cli = run(model);
    await cli.waitFor(KEYS);
    expect(cli.screen()).toContain("allow write_file?\r\n  write plan.md (8 bytes, 3 lines), a new file\r\n  + one\r\n  + two\r\n[y]");
    cli.type("n");
    await cli.waitFor("reason for the model");
    cli.type("keep the plan in notes.txt\r");
    expect(await cli.exited()).toBe(0);
    expect(toolResults(model, 1).w1).toBe("Error: Denied by the user: keep the plan in notes.txt");
    expect(existsSync(join(workspace, "plan.md"))).toBe(false);
  });

  test("an edit shows its diff; Ctrl-C at the prompt cancels the turn and nothing runs", async () => {
    const { folder, run, workspace } = await setup();
    await using _ = folder;
    await using model = await startScriptedModel([
      { toolCalls: [{ id: "e1", name: "edit_file", arguments: { path: "notes.txt", old_text: "beta", new_text: "gamma" } }] },
      { content: "never asked for" },
    ]);
    const cli = run(model);
    await cli.waitFor(KEYS);
    expect(cli.screen()).toContain("allow edit_file?\r\n  edit notes.txt\r\n  - beta\r\n  + gamma\r\n");
    cli.type("\u0003");
    expect(await cli.exited()).toBe(130);
    expect(cli.screen()).toContain("interrupted");
    expect(model.requests).toHaveLength(1);
    expect(await readFile(join(workspace, "notes.txt"), "utf8")).toBe("alpha\nbeta\n");
  });

  test("a write over a file shows the diff against it, with the lines around the change", async () => {
    const { folder, run, workspace } = await setup();
    await using _ = folder;
    await using model = await startScriptedModel([
      { toolCalls: [{ id: "w1", name: "write_file", arguments: { path: "notes.txt", content: "alpha\ngamma\n" } }] },
      { content: "ok" },
    ]);
    const cli = run(model);
    await cli.waitFor(KEYS);
    expect(cli.screen()).toContain("allow write_file?\r\n  write notes.txt (12 bytes, 3 lines)\r\n    alpha\r\n  - beta\r\n  + gamma\r\n[y]");
    cli.type("y");
    expect(await cli.exited()).toBe(0);
    expect(await readFile(join(workspace, "notes.txt"), "utf8")).toBe("alpha\ngamma\n");
  });

  test("a write over a large file shows at most 40 rows of the diff and how many more", async () => {
    const { folder, run, workspace } = await setup();
    await using _ = folder;
    const old = Array.from({ length: 5000 }, (_, i) => `line ${i + 1}`);
    await writeFile(join(workspace, "big.txt"), `${old.join("\n")}\n`);
    const content = `${old.map((line, i) => (i % 10 === 0 ? line.toUpperCase() : line)).join("\n")}\n`;
    await using model = await startScriptedModel([
      { toolCalls: [{ id: "w1", name: "write_file", arguments: { path: "big.txt", content } }] },
      { content: "ok" },
    ]);
    const cli = run(model);
    await cli.waitFor(KEYS);
    const shown = cli.screen().slice(cli.screen().indexOf("allow write_file?"), cli.screen().indexOf(KEYS)).split("\r\n");
    expect(shown.slice(0, 4)).toEqual(["allow write_file?", `  write big.txt (${Buffer.byteLength(content)} bytes, 5001 lines)`, "  - line 1", "  + LINE 1"]);
    expect(shown).toHaveLength(2 + 40 + 2);
    expect(shown.at(-2)).toMatch(/^ {2}… \d+ more lines of the diff$/);
    cli.type("n");
    await cli.waitFor("reason for the model");
    cli.type("\r");
    expect(await cli.exited()).toBe(0);
  });

  test("a new file shows its first 20 lines and how many more, its terminal escapes written out", async () => {
    const { folder, run } = await setup();
    await using _ = folder;
    const lines = Array.from({ length: 50 }, (_, i) => `line ${i + 1}`);
    lines[1] = "\u001b[2Kline 2";
    await using model = await startScriptedModel([
      { toolCalls: [{ id: "w1", name: "write_file", arguments: { path: "long.txt", content: `${lines.join("\n")}\n` } }] },
      { content: "ok" },
    ]);
    const cli = run(model);
    await cli.waitFor(KEYS);
    const shown = cli.screen().slice(cli.screen().indexOf("allow write_file?"));
    expect(shown).toStartWith("allow write_file?\r\n  write long.txt (395 bytes, 51 lines), a new file\r\n  + line 1\r\n  + \\x1b[2Kline 2\r\n  + line 3\r\n");
    expect(shown).toContain("  + line 20\r\n  … 30 more lines\r\n[y]");
    expect(shown).not.toContain("line 21");
    cli.type("n");
    await cli.waitFor("reason for the model");
    cli.type("\r");
    expect(await cli.exited()).toBe(0);
  });

  test("terminal escapes in a command are shown, not obeyed", async () => {
    const { folder, run } = await setup();
    await using _ = folder;
    // A carriage return and an erase-line sequence would otherwise overwrite the real command.
    const command = "rm -rf notes.txt\r\u001b[2K$ ls";
    await using model = await startScriptedModel([{ toolCalls: [{ id: "c1", name: "bash", arguments: { command } }] }, { content: "ok" }]);
    const cli = run(model);
    await cli.waitFor(KEYS);
    expect(cli.screen()).toContain("  $ rm -rf notes.txt\\x0d\\x1b[2K$ ls\r\n");
    cli.type("n");
    await cli.waitFor("reason for the model");
    cli.type("\r");
    expect(await cli.exited()).toBe(0);
    expect(toolResults(model, 1).c1).toBe("Error: Denied by the user");
  });
});

describe("calls that ask at the same time", () => {
  test("are asked one after the other, and each answer goes to its own call", async () => {
    const { folder, run, workspace } = await setup();
    await using _ = folder;
    // Writes to different paths may run concurrently: both ask at once.
    await using model = await startScriptedModel([
      {
        toolCalls: [
          { id: "w1", name: "write_file", arguments: { path: "one.txt", content: "1" } },
          { id: "w2", name: "write_file", arguments: { path: "two.txt", content: "22" } },
        ],
      },
      { content: "ok" },
    ]);
    const cli = run(model);
    await cli.waitFor(KEYS);
    // The calls run concurrently, so either may ask first; the other waits its turn.
    expect(cli.screen().split(KEYS)).toHaveLength(2);
    const firstIsOne = cli.screen().includes("write one.txt (1 bytes");
    const [allowed, refused] = firstIsOne ? (["one.txt", "two.txt"] as const) : (["two.txt", "one.txt"] as const);
    cli.type("y");
    await cli.waitFor(KEYS, 2);
    expect(cli.screen().indexOf(`write ${refused}`)).toBeGreaterThan(cli.screen().indexOf("› yes"));
    cli.type("n");
    await cli.waitFor("reason for the model");
    cli.type("\r");
    expect(await cli.exited()).toBe(0);
    const results = toolResults(model);
    expect(results[allowed === "one.txt" ? "w1" : "w2"]).toStartWith(`Wrote `);
    expect(results[refused === "one.txt" ? "w1" : "w2"]).toBe("Error: Denied by the user");
    expect(existsSync(join(workspace, allowed))).toBe(true);
    expect(existsSync(join(workspace, refused))).toBe(false);
  });
});

describe("the approval prompt (interactive session)", () => {
  test("a allows the tool for the rest of the session; the next call is not asked", async () => {
    const { folder, config, workspace } = await setup();
    await using _ = folder;
    await using model = await startScriptedModel([
      { toolCalls: [{ id: "w1", name: "write_file", arguments: { path: "a.txt", content: "a" } }] },
      { content: "first done" },
      { toolCalls: [{ id: "w2", name: "write_file", arguments: { path: "b.txt", content: "b" } }] },
      { content: "second done" },
    ]);
    const cli = spawnInTerminal(["--config", config, "--base-url", model.baseURL], { cwd: folder.dir });
    await cli.waitFor("plugboard >> ");
    cli.type("write a\r");
    await cli.waitFor(KEYS);
    cli.type("a");
    await cli.waitFor("first done");
    await cli.waitFor("plugboard >> ", 2);
    cli.type("write b\r");
    await cli.waitFor("second done");
    await cli.waitFor("plugboard >> ", 3);
    cli.type("q\r");
    expect(await cli.exited()).toBe(0);
    expect(cli.screen().split(KEYS).length - 1).toBe(1);
    expect(existsSync(join(workspace, "a.txt")) && existsSync(join(workspace, "b.txt"))).toBe(true);
  });
});

describe("always for commands like this", () => {
  // A config with comments, written by hand: saving a rule must keep them.
  const CONFIG = `{
  // My project's config.
  "workspace": "./workspace",
  "sandbox": "off",
  "plugins": [{ "package": "@plugboard/plugin-bash", "permissions": ["process.spawn", "fs.read", "fs.write"] }],
  "policy": {
    "default": "allow", "taint": "off", // unconfined, bash taints the session (taint.test.ts): not what these turns are about
    "rules": [
      { "tool": "bash", "args": { "command": "rm *" }, "action": "deny" }, // never
      { "tool": "bash", "action": "ask" }
    ]
  }
}
`;

  async function commandsSetup() {
    const folder = await tempFolder({ "plugboard.config.json": CONFIG, "workspace/notes/a.txt": "a" });
    return { folder, config: join(folder.dir, "plugboard.config.json") };
  }

  test("c offers the rule from the command's leading words, shown before it is kept; s keeps it for the session only", async () => {
    const { folder, config } = await commandsSetup();
    await using _ = folder;
    await using model = await startScriptedModel([
      { toolCalls: [{ id: "l1", name: "bash", arguments: { command: "ls -a notes" } }] },
      { content: "first done" },
      { toolCalls: [{ id: "l2", name: "bash", arguments: { command: "ls -l notes | ls notes" } }] },
      { content: "second done" },
      { toolCalls: [{ id: "t1", name: "bash", arguments: { command: "ls notes; touch x" } }] },
      { content: "third done" },
    ]);
    const cli = spawnInTerminal(["--config", config, "--base-url", model.baseURL], { cwd: folder.dir });
    await cli.waitFor("plugboard >> ");
    cli.type("list\r");
    await cli.waitFor("[c] always commands like ls *");
    cli.type("c");
    await cli.waitFor('rule: { "tool": "bash", "args": { "command": "ls *" }, "action": "allow" }');
    await cli.waitFor("[s] this session  [p] save to ");
    cli.type("s");
    await cli.waitFor("first done");
    cli.type("list again\r");
    await cli.waitFor("second done");
    // touch x is not like ls: asked again, and refused.
    cli.type("and touch\r");
    await cli.waitFor("[c] always commands like", 2);
    cli.type("n");
    await cli.waitFor("reason for the model");
    cli.type("\r");
    await cli.waitFor("third done");
    cli.type("q\r");
    expect(await cli.exited()).toBe(0);
    expect(cli.screen().split(KEYS).length - 1).toBe(2);
    expect(toolResults(model, 3).l2).toContain("a.txt");
    expect(toolResults(model, 5).t1).toStartWith("Error: Denied by the user");
    expect(await readFile(config, "utf8")).toBe(CONFIG);
  });

  test("the offer fits the command: a destructive one exactly, a program by its name, one with subcommands by its subcommand", async () => {
    const { folder, run } = await setup();
    await using _ = folder;
    await using model = await startScriptedModel([
      { toolCalls: [{ id: "r1", name: "bash", arguments: { command: "rm -rf build" } }] },
      { toolCalls: [{ id: "e1", name: "bash", arguments: { command: "echo hi" } }] },
      { toolCalls: [{ id: "g1", name: "bash", arguments: { command: "git log --oneline" } }] },
      { content: "done" },
    ]);
    const cli = run(model);
    for (const [times, offer] of [[1, "rm -rf build"], [2, "echo *"], [3, "git log *"]] as const) {
      await cli.waitFor(KEYS, times);
      expect(cli.screen().split(KEYS)[times]?.split("\r\n")[0]).toBe(` bash this session  [c] always commands like ${offer}  [n] no › `);
      cli.type("n");
      await cli.waitFor("reason for the model", times);
      cli.type("\r");
    }
    expect(await cli.exited()).toBe(0);
  });

  test("commands like `ls -la` include a bare `ls`: it runs in the same session without asking", async () => {
    const { folder, run } = await setup();
    await using _ = folder;
    await using model = await startScriptedModel([
      { toolCalls: [{ id: "l1", name: "bash", arguments: { command: "ls -la" } }] },
      { toolCalls: [{ id: "l2", name: "bash", arguments: { command: "ls" } }] },
      { content: "listed twice" },
    ]);
    const cli = run(model);
    await cli.waitFor("[c] always commands like ls *");
    cli.type("c");
    await cli.waitFor("[s] this session");
    cli.type("s");
    await cli.waitFor("listed twice");
    expect(await cli.exited()).toBe(0);
    expect(cli.screen().split(KEYS)).toHaveLength(2);
    expect(toolResults(model).l2).toContain("notes.txt");
  });

  test("p saves the rule to the config, before the rule that asked, comments and layout kept; the next session does not ask", async () => {
    const { folder, config } = await commandsSetup();
    await using _ = folder;
    await using model = await startScriptedModel([
      { toolCalls: [{ id: "g1", name: "bash", arguments: { command: "git log --oneline -1" } }] },
      { content: "done" },
    ]);
    const cli = spawnInTerminal(["run", "--config", config, "--base-url", model.baseURL, "go"], { cwd: folder.dir });
    await cli.waitFor("[c] always commands like git log *");
    cli.type("c");
    await cli.waitFor(`[p] save to ${config}`);
    cli.type("p");
    expect(await cli.exited()).toBe(0);
    expect(cli.screen()).toContain(`saved to ${config}`);
    expect(await readFile(config, "utf8")).toBe(
      CONFIG.replace(
        '      { "tool": "bash", "action": "ask" }',
        '      { "tool": "bash", "args": { "command": "git log *" }, "action": "allow" },\n      { "tool": "bash", "action": "ask" }',
      ),
    );
    // Without a terminal no one could be asked: the saved rule allows it.
    const explain = await plugboard(["policy", "explain", "--config", config, "bash", '{"command":"git log -3"}'], { cwd: folder.dir });
    expect(explain.stdout).toContain('decision: allow\nrule:     { "tool": "bash", "args": { "command": "git log *" }, "action": "allow" } (plugboard.config.json:10)');
  });
});
