/**
 * `plugboard policy explain` and `plugboard policy test`, end to end: real CLI processes
 * reading a config with comments, whose rules are named by their text, file and line.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { plugboard, tempFolder } from "./helpers.ts";

setDefaultTimeout(30_000);

// Line numbers matter: the tests below name them.
const CONFIG = `{
  // The team's policy: commands that only look run, deleting never does.
  "workspace": "./workspace",
  "sandbox": "off",
  "plugins": [{ "package": "@plugboard/plugin-bash", "permissions": ["process.spawn", "fs.read", "fs.write"] }, { "package": "@plugboard/plugin-write-file", "permissions": ["fs.write"] }],
  "policy": {
    "default": "ask",
    "rules": [
      { "tool": "bash", "args": { "command": "rm *" }, "action": "deny" },
      { "tool": "bash", "args": { "command": "git status*" }, "action": "allow" },
      { "tool": "write_file", "args": { "path": "secrets/*" }, "action": "deny" }
    ]
  },
  "hooks": {
    "before": [{ "tool": "bash", "command": ["./check.sh"] }],
    "after": [{ "command": ["./redact.sh", "--all"] }]
  }
}
`;

let folder: Awaited<ReturnType<typeof tempFolder>>;
beforeAll(async () => {
  // The hooks' programs exist (a config naming a missing one is refused), though nothing here runs them.
  folder = await tempFolder({ "plugboard.config.json": CONFIG, "check.sh": "", "redact.sh": "", "workspace/.keep": "" });
});
afterAll(() => folder[Symbol.asyncDispose]());

const policy = (args: string[]) => plugboard(["policy", ...args], { cwd: folder.dir });

const GIT_STATUS = '{ "tool": "bash", "args": { "command": "git status*" }, "action": "allow" } (plugboard.config.json:10)';
const RM = '{ "tool": "bash", "args": { "command": "rm *" }, "action": "deny" } (plugboard.config.json:9)';
const DEFAULT = "the default, ask (plugboard.config.json:7)";

describe("plugboard policy explain", () => {
  test("names the deciding rule as written, with its file and line, each command of a bash line, and the hooks", async () => {
    const result = await policy(["explain", "bash", '{"command":"git status; touch x"}']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      [
        'bash {"command":"git status; touch x"}',
        "decision: ask",
        `rule:     ${DEFAULT}`,
        "commands:",
        "  allow  git status",
        `         by ${GIT_STATUS}`,
        "  ask    touch x",
        `         by ${DEFAULT}`,
        "hooks:    before ./check.sh (plugboard.config.json:15)",
        "          after ./redact.sh --all (plugboard.config.json:16)",
        // Without the sandbox, bash can reach the network whatever it is granted: a source and a way out.
        "taint:    ask (the default, not set in plugboard.config.json): once a result from outside (an untrusted source) entered the conversation, a call that can send data out is asked about, even when allowed, --yes included",
        "          untrusted sources: bash (@plugboard/plugin-bash, runs programs without the sandbox)",
        "          can send data out: bash (@plugboard/plugin-bash, runs programs without the sandbox)",
        "          bash: its results are untrusted, it can send data out",
        "",
      ].join("\n"),
    );
  });

  test("a deny names its rule and runs no hook; a path is judged as the tool will use it", async () => {
    const denied = await policy(["explain", "bash", '{"command":"git status && rm -rf x"}']);
    expect(denied.stdout).toContain(`decision: deny\nrule:     ${RM}\n`);
    expect(denied.stdout).toContain("hooks:    none run (a call the policy denies runs no hook)");
    const write = await policy(["explain", "write_file", '{"path":"./notes/../secrets/key","content":""}']);
    expect(write.stdout).toContain('rule:     { "tool": "write_file", "args": { "path": "secrets/*" }, "action": "deny" } (plugboard.config.json:11)');
  });

  test("a pattern `X *` matches `X` alone: `rm *` denies a bare `rm`, in explain and in test", async () => {
    const explained = await policy(["explain", "bash", '{"command":"rm"}']);
    expect(explained.stdout).toContain(`decision: deny\nrule:     ${RM}\n`);
    await writeFile(join(folder.dir, "bare.json"), '[{ "tool": "bash", "args": { "command": "rm" }, "expect": "deny" }]');
    expect(await policy(["test", "bare.json"])).toMatchObject({ code: 0, stdout: '✓ 1. bash {"command":"rm"} → deny\n1 case, all match plugboard.config.json\'s policy\n' });
  });

  test("says why an allowed command still asks", async () => {
    const result = await policy(["explain", "bash", '{"command":"git status > out.txt"}']);
    expect(result.stdout).toContain(`decision: ask\nrule:     ${GIT_STATUS}\nwhy:      writes out.txt (>)\n`);
  });

  test("without a config in the folder it explains the shipped one", async () => {
    await using empty = await tempFolder();
    const result = await plugboard(["policy", "explain", "read_file", '{"path":"README.md"}'], { cwd: empty.dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^rule: {5}\{ "tool": "read_file", "action": "allow" \} \(.*plugboard\.config\.json:\d+\)$/m);
  });

  test("arguments that are not a JSON object are a usage error, with how to write them", async () => {
    const result = await policy(["explain", "bash", "git status"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      "plugboard: The arguments are not JSON: git status. Write them as one JSON object, e.g. '{\"command\":\"git status\"}' (see plugboard policy explain --help)\n",
    );
  });
});

describe("plugboard policy test", () => {
  async function cases(name: string, text: string): Promise<string> {
    await writeFile(join(folder.dir, name), text);
    return name;
  }

  test("every case matching exits 0", async () => {
    const file = await cases(
      "ok.json",
      `[
        // comments are fine
        { "tool": "bash", "args": { "command": "git status -s" }, "expect": "allow" },
        { "tool": "bash", "args": { "command": "git status; rm -rf ~" }, "expect": "deny" },
        { "tool": "read_file", "expect": "ask" }
      ]`,
    );
    const result = await policy(["test", file]);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(result.stdout).toBe(
      [
        '✓ 1. bash {"command":"git status -s"} → allow',
        '✓ 2. bash {"command":"git status; rm -rf ~"} → deny',
        "✓ 3. read_file {} → ask",
        "3 cases, all match plugboard.config.json's policy",
        "",
      ].join("\n"),
    );
  });

  test("exits 1 naming each mismatching case, the decision it got and the rule that made it", async () => {
    const file = await cases(
      "bad.json",
      JSON.stringify([
        { tool: "bash", args: { command: "git status; touch x" }, expect: "allow" },
        { tool: "bash", args: { command: "git status" }, expect: "allow" },
        { tool: "bash", args: { command: "rm x" }, expect: "ask" },
      ]),
    );
    const result = await policy(["test", file]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe(
      [
        `✗ 1. bash {"command":"git status; touch x"}: expected allow, got ask, by ${DEFAULT}`,
        '✓ 2. bash {"command":"git status"} → allow',
        `✗ 3. bash {"command":"rm x"}: expected ask, got deny, by ${RM}`,
        "2 of 3 cases do not match plugboard.config.json's policy",
        "",
      ].join("\n"),
    );
  });

  const EXAMPLE = 'Write a JSON list of cases, each { "tool": "bash", "args": { "command": "git status" }, "expect": "allow" } ("args" may be left out).';

  test.each([
    ["not-json.json", "[{ tool: 1 }]", "line 1, column 4: unexpected text, found \"tool\""],
    ["object.json", '{ "tool": "bash" }', "expected a JSON list of cases"],
    ["expect.json", '[{ "tool": "bash", "args": {}, "expect": "yes" }]', 'case 1: "expect" must be "allow", "ask" or "deny", got "yes"'],
    ["tool.json", '[{ "args": {}, "expect": "allow" }]', 'case 1: "tool" must be a tool name, such as "bash"'],
    ["args.json", '[{ "tool": "bash", "args": "ls", "expect": "allow" }]', "case 1: \"args\" must be an object of the call's arguments"],
    ["extra.json", '[{ "tool": "bash", "expected": "allow" }]', 'case 1: unknown key "expected"'],
  ])("a malformed file (%s) exits 2 with what to fix", async (name, text, problem) => {
    const result = await policy(["test", await cases(name, text)]);
    expect(result).toMatchObject({ code: 2, stdout: "" });
    expect(result.stderr).toBe(`plugboard: Invalid policy test file ${name}: ${problem}\n${EXAMPLE}\n`);
  });

  test("a missing file exits 2", async () => {
    const result = await policy(["test", "nowhere.json"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toStartWith("plugboard: Cannot read the policy test file nowhere.json:");
  });
});
