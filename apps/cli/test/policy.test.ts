/**
 * The policy end to end: real CLI processes, the scripted model over real HTTP, real files.
 * What the model reads is taken from the requests the scripted model recorded.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { wildcardMatch } from "@plugboard/runtime";
import { type ScriptedModel, startScriptedModel } from "@plugboard/testing";
import { plugboard, tempFolder, toolResults, writeConfig } from "./helpers.ts";

// Each test runs one to three CLI processes: a busy machine can outlast bun's default 5 s.
setDefaultTimeout(30_000);

const NO_ONE = "Error: Denied: approval required and no one to ask (allow it in the config's policy, or run with --yes)";

async function setup(policy: unknown, files: Record<string, string> = {}) {
  const folder = await tempFolder({ "workspace/notes/.keep": "", "workspace/secrets/.keep": "", ...files });
  const config = await writeConfig(folder.dir, { policy });
  const run = (args: string[], model: ScriptedModel) =>
    plugboard(["run", "--config", config, "--base-url", model.baseURL, ...args], { cwd: folder.dir });
  const call = (args: string[]) => plugboard(["call", "--config", config, ...args], { cwd: folder.dir });
  return { folder, config, run, call, workspace: join(folder.dir, "workspace") };
}

const SECRETS_DENIED = { default: "allow", rules: [{ tool: "write_file", args: { path: "secrets/*" }, action: "deny" }] };

describe("deny", () => {
  test("a deny rule stops a write, however the path is spelled, and the model reads the rule", async () => {
    const { folder, run, workspace } = await setup(SECRETS_DENIED);
    await using _ = folder;
    await using model = await startScriptedModel([
      {
        toolCalls: [
          { id: "direct", name: "write_file", arguments: { path: "secrets/key", content: "x" } },
          { id: "dotted", name: "write_file", arguments: { path: "./notes/../secrets/x", content: "x" } },
          { id: "fine", name: "write_file", arguments: { path: "notes/ok.txt", content: "x" } },
        ],
      },
      { content: "done" },
    ]);
    const result = await run(["go"], model);
    expect(result.code).toBe(0);
    expect(toolResults(model)).toEqual({
      direct: "Error: Denied by policy: write_file path=secrets/*",
      dotted: "Error: Denied by policy: write_file path=secrets/*",
      fine: "Wrote 1 bytes to notes/ok.txt",
    });
    expect(existsSync(join(workspace, "secrets/key"))).toBe(false);
    expect(existsSync(join(workspace, "secrets/x"))).toBe(false);
    expect(existsSync(join(workspace, "notes/ok.txt"))).toBe(true);
  });

  test("the first rule that matches decides", async () => {
    const rules = [
      { tool: "write_file", args: { path: "notes/*" }, action: "allow" },
      { tool: "write_file", action: "deny" },
      { tool: "write_file", args: { path: "other.txt" }, action: "allow" },
    ];
    const { folder, run, workspace } = await setup({ default: "allow", rules });
    await using _ = folder;
    await using model = await startScriptedModel([
      {
        toolCalls: [
          { id: "a", name: "write_file", arguments: { path: "notes/a.txt", content: "x" } },
          { id: "b", name: "write_file", arguments: { path: "other.txt", content: "x" } },
        ],
      },
      { content: "done" },
    ]);
    await run(["go"], model);
    expect(toolResults(model)).toEqual({ a: "Wrote 1 bytes to notes/a.txt", b: "Error: Denied by policy: write_file" });
    expect(existsSync(join(workspace, "other.txt"))).toBe(false);
  });
});

describe("ask without a terminal", () => {
  const ASK_BASH = { default: "allow", rules: [{ tool: "bash", action: "ask" }, { tool: "write_file", args: { path: "secrets/*" }, action: "deny" }] };
  const script = () => [
    {
      toolCalls: [
        { id: "cmd", name: "bash", arguments: { command: "touch ran.txt" } },
        { id: "secret", name: "write_file", arguments: { path: "secrets/k", content: "x" } },
      ],
    },
    { content: "done" },
  ];

  test("is refused with the text that says how to allow it, and the command does not run", async () => {
    const { folder, run, workspace } = await setup(ASK_BASH);
    await using _ = folder;
    await using model = await startScriptedModel(script());
    const result = await run(["go"], model);
    expect(result.code).toBe(0);
    expect(toolResults(model).cmd).toBe(NO_ONE);
    expect(existsSync(join(workspace, "ran.txt"))).toBe(false);
  });

  test.each([["--yes"], ["-y"]])("%s runs it, and never overrides a deny", async (flag) => {
    const { folder, run, workspace } = await setup(ASK_BASH);
    await using _ = folder;
    await using model = await startScriptedModel(script());
    await run([flag, "go"], model);
    const results = toolResults(model);
    expect(results.cmd).toContain("exit code: 0");
    expect(results.secret).toBe("Error: Denied by policy: write_file path=secrets/*");
    expect(existsSync(join(workspace, "ran.txt"))).toBe(true);
    expect(existsSync(join(workspace, "secrets/k"))).toBe(false);
  });

  test("plugboard call is the person's own call: ask counts as approved, deny still applies", async () => {
    const { folder, call, workspace } = await setup(ASK_BASH);
    await using _ = folder;
    const asked = await call(["bash", '{"command":"touch ran.txt"}']);
    expect(asked.code).toBe(0);
    expect(existsSync(join(workspace, "ran.txt"))).toBe(true);
    const denied = await call(["--yes", "write_file", '{"path":"secrets/k","content":"x"}']);
    expect(denied).toMatchObject({ code: 1, stdout: "Error: Denied by policy: write_file path=secrets/*\n" });
    expect(existsSync(join(workspace, "secrets/k"))).toBe(false);
  });
});

describe("a bash rule reads the command line", () => {
  const GIT_STATUS = { default: "ask", rules: [{ tool: "bash", args: { command: "git status*" }, action: "allow" }] };

  test("`git status; touch x` under an allowed `git status*` is not allowed, and no x appears", async () => {
    // The raw-string glob the policy matched before it parsed lines would have allowed the whole line.
    expect(wildcardMatch("git status*", "git status; touch x")).toBe(true);
    const { folder, run, workspace } = await setup(GIT_STATUS);
    await using _ = folder;
    await using model = await startScriptedModel([
      {
        toolCalls: [
          { id: "chained", name: "bash", arguments: { command: "git status; touch x" } },
          { id: "substituted", name: "bash", arguments: { command: "git status $(touch y)" } },
          { id: "alone", name: "bash", arguments: { command: "git status --short" } },
        ],
      },
      { content: "done" },
    ]);
    const result = await run(["go"], model);
    expect(result.code).toBe(0);
    const results = toolResults(model);
    expect(results.chained).toBe(NO_ONE);
    expect(results.substituted).toBe(NO_ONE);
    // Allowed, so it ran (and git says the workspace is not a repository).
    expect(results.alone).toContain("not a git repository");
    expect(existsSync(join(workspace, "x"))).toBe(false);
    expect(existsSync(join(workspace, "y"))).toBe(false);
  });
});

describe("the shipped config", () => {
  test("reads without asking, and asks before a write (refused here: no terminal)", async () => {
    await using folder = await tempFolder({ "README.md": "# Hello\n" });
    const read = await plugboard(["run", "read README.md"], { cwd: folder.dir });
    expect(read.code).toBe(0);
    expect(read.stdout).toContain("# Hello");
    const write = await plugboard(["run", "write hi to x.txt"], { cwd: folder.dir });
    expect(write.stderr).toContain(NO_ONE);
    expect(existsSync(join(folder.dir, "x.txt"))).toBe(false);
    const check = await plugboard(["check"], { cwd: folder.dir });
    expect(check.stdout).toContain(
      [
        "  policy:    5 rules (the first that matches decides), else ask",
        "    1. read_file → allow",
        "    2. glob → allow",
        "    3. bash → ask",
        "    4. write_file → ask",
        "    5. edit_file → ask",
        "  audit:     (none)",
      ].join("\n"),
    );
  });
});
