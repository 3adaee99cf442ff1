import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdir, mkdtemp, realpath, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decide, describeRule, type Policy, wildcardMatch } from "./policy.ts";
import { Workspace } from "@plugboard/core";

let root: string;
let workspace: Workspace;
beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "plugboard-policy-")));
  await mkdir(join(root, "notes"));
  await mkdir(join(root, "secrets"));
  await symlink(join(root, "secrets"), join(root, "notes/hidden"));
  workspace = await Workspace.open(root);
});
afterAll(() => rm(root, { recursive: true, force: true }));

describe("wildcardMatch", () => {
  test.each([
    ["git status*", "git status", true],
    ["git status*", "git status --short", true],
    ["git status*", "echo && git status", false],
    ["secrets/*", "secrets/a/b", true],
    ["secrets/*", "notes/secrets/a", false],
    ["?.txt", "a.txt", true],
    ["?.txt", "ab.txt", false],
    ["a.c", "abc", false],
    ["rm -rf*", "rm -rf /", true],
    ["(x)+[y]", "(x)+[y]", true],
    ["*", "two\nlines", true],
    // `X *` also matches `X` alone, and only as a whole word
    ["ls *", "ls", true],
    ["ls *", "ls -la", true],
    ["ls *", "lsblk", false],
    ["ls*", "lsblk", true],
    ["git log *", "git log", true],
    ["git log *", "git", false],
  ])("%p against %p is %p", (pattern, text, expected) => {
    expect(wildcardMatch(pattern, text)).toBe(expected);
  });
});

describe("decide", () => {
  const policy: Policy = {
    default: "ask",
    rules: [
      { tool: "bash", args: { command: "git status*" }, action: "allow" },
      { tool: "bash", action: "deny" },
      { tool: "write_file", args: { path: "secrets/*" }, action: "deny" },
      { tool: "*_file", action: "allow" },
    ],
  };

  test("the first rule that matches decides", async () => {
    expect(await decide(policy, "bash", { command: "git status -s" }, workspace)).toMatchObject({ action: "allow", rule: policy.rules[0] });
    expect(await decide(policy, "bash", { command: "rm x" }, workspace)).toMatchObject({ action: "deny", rule: policy.rules[1] });
    expect(await decide(policy, "write_file", { path: "secrets/k", content: "" }, workspace)).toMatchObject({ action: "deny", rule: policy.rules[2] });
    expect(await decide(policy, "write_file", { path: "notes/k", content: "" }, workspace)).toMatchObject({ action: "allow", rule: policy.rules[3] });
  });

  test("no match falls to the default, with no rule", async () => {
    expect(await decide(policy, "glob", { pattern: "*" }, workspace)).toEqual({ action: "ask" });
  });

  test("a rule's argument must be present", async () => {
    const only: Policy = { default: "allow", rules: [{ tool: "*", args: { path: "*" }, action: "deny" }] };
    expect((await decide(only, "glob", { pattern: "*" }, workspace)).action).toBe("allow");
    expect((await decide(only, "glob", { pattern: "*", path: "." }, workspace)).action).toBe("deny");
  });

  test.each([
    "./secrets/x",
    "notes/../secrets/x",
    "./notes/../secrets/x",
    "secrets//x",
    "notes/hidden/x", // a symlink into secrets/
  ])("path %p is normalised relative to the workspace before matching", async (path) => {
    expect((await decide(policy, "write_file", { path, content: "" }, workspace)).rule).toBe(policy.rules[2]);
  });

  test("an absolute path inside the workspace is normalised too", async () => {
    expect((await decide(policy, "write_file", { path: join(root, "secrets/x"), content: "" }, workspace)).action).toBe("deny");
  });

  test("only path arguments are normalised; other values are matched as written", async () => {
    const p: Policy = { default: "allow", rules: [{ tool: "bash", args: { command: "secrets/*" }, action: "deny" }] };
    expect((await decide(p, "bash", { command: "./secrets/x" }, workspace)).action).toBe("allow");
    const n: Policy = { default: "allow", rules: [{ tool: "bash", args: { timeout_ms: "1?" }, action: "deny" }] };
    expect((await decide(n, "bash", { command: "x", timeout_ms: 15 }, workspace)).action).toBe("deny");
  });
});

test("describeRule writes a rule as the config does", () => {
  expect(describeRule({ tool: "write_file", args: { path: "secrets/*" }, action: "deny" })).toBe("write_file path=secrets/*");
  expect(describeRule({ tool: "bash", action: "ask" })).toBe("bash");
});
