/**
 * `bash` rules judged on the parsed line: each row is a command line an attacker (or a
 * model) might send and the decision the policy must reach, with the raw-string matcher's
 * decision beside it where the two differ, so each row shows what the parser changes.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decide, type Policy, type PolicyAction, wildcardMatch } from "./policy.ts";
import { Workspace } from "@plugboard/core";

let root: string;
let workspace: Workspace;
beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "plugboard-command-rules-")));
  workspace = await Workspace.open(root);
});
afterAll(() => rm(root, { recursive: true, force: true }));

const allow = (command: string) => ({ tool: "bash", args: { command }, action: "allow" as const });
const deny = (command: string) => ({ tool: "bash", args: { command }, action: "deny" as const });

const POLICY: Policy = {
  default: "ask",
  rules: [
    deny("rm *"),
    deny("git push*"),
    allow("git status*"),
    allow("git log*"),
    allow("head *"),
    allow("ls*"),
    allow("echo *"),
    allow("cat *"),
    allow("find *"),
    allow("wc *"),
  ],
};

/** The first rule whose pattern matches the raw string, as the policy matched before it parsed lines. */
function rawDecision(line: string): PolicyAction {
  return POLICY.rules.find((rule) => wildcardMatch(rule.args?.command ?? "*", line))?.action ?? POLICY.default;
}

// [line, decision]: what the policy decides for a `bash` call with this command.
const TABLE: readonly (readonly [string, PolicyAction])[] = [
  // one command, as the rules name it
  ["git status", "allow"],
  ["git status --short", "allow"],
  ["touch x", "ask"],
  ["rm -rf ~", "deny"],
  // lists and pipelines: every command must be allowed, any denied one denies the line
  ["git status -s | head -1", "allow"],
  ["git log --oneline | head -5 | wc -l", "allow"],
  ["git status |& head -1", "allow"],
  ["git status; touch x", "ask"],
  ["git status && touch x", "ask"],
  ["git status || touch x", "ask"],
  ["git status & touch x", "ask"],
  ["git status\ntouch x", "ask"],
  ["git status; rm -rf ~", "deny"],
  ["git status | rm -rf ~", "deny"],
  ["touch x && nice -n 5 git push --force", "deny"],
  // subshells, groups, control flow
  ["(git status; touch x)", "ask"],
  ["{ git status; touch x; }", "ask"],
  ["if git status; then touch x; fi", "ask"],
  ["for f in *; do git log -- $f; done", "allow"],
  ["! git status", "allow"],
  ["[[ -f x ]] && git status", "allow"],
  // command and process substitutions run too
  ["git status $(touch x)", "ask"],
  ["git status `touch x`", "ask"],
  ['git status "$(rm -rf x)"', "deny"],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion, not a template
  ["echo ${X:-$(touch y)}", "ask"],
  ["echo $((1 + $(rm x)))", "deny"],
  ["cat <(touch x)", "ask"],
  ["echo >(rm x)", "deny"],
  // heredocs: an unquoted one expands substitutions; a shell runs its body
  ["cat <<EOF\n$(touch x)\nEOF", "ask"],
  ["cat -n <<'EOF'\n$(touch x)\nEOF", "allow"],
  ["bash <<'EOF'\ntouch x\nEOF", "ask"],
  ["bash <<'EOF'\ngit status\nEOF", "allow"],
  ["bash <<< 'rm -rf x'", "deny"],
  // nested shells: the script is read when it is written in the line
  ["sh -c 'git status'", "allow"],
  ["sh -c 'git status; touch x'", "ask"],
  ['bash -lc "rm -rf ~"', "deny"],
  ["echo 'rm -rf x' | bash", "ask"],
  ["git status | sh", "ask"],
  ['sh -c "$SCRIPT"', "ask"],
  // quotes: a quoted separator is an argument, a quoted name is the name
  ['git "status"', "allow"],
  ["git status '; touch x'", "allow"],
  ["git status \\; touch x", "allow"],
  ["git status # ; touch x", "allow"],
  ["'rm' -rf x", "deny"],
  ['r"m" -rf x', "deny"],
  // eval and source
  ['eval "$CMD"', "ask"],
  ["eval 'git status'", "allow"],
  ["eval 'rm -rf x'", "deny"],
  ['source "$F"', "ask"],
  [". $(echo x)", "ask"],
  // wrappers are seen through; variables set for a command may change what it runs
  ["env git status", "allow"],
  ["env X=1 git status", "ask"],
  ["GIT_PAGER='touch x' git log", "ask"],
  ["env rm -rf x", "deny"],
  ["command git status", "allow"],
  ["builtin echo hi", "allow"],
  ["exec git status", "allow"],
  ["nohup git log", "allow"],
  ["time git status", "allow"],
  ["timeout 5 git status", "allow"],
  ["xargs rm < files.txt", "deny"],
  ["xargs -Z git status", "ask"],
  ["ls | xargs git status", "allow"],
  ["env -S 'rm -rf x'", "ask"],
  // paths: a system folder's program is its name; any other path is not the program named
  ["/usr/bin/git status", "allow"],
  ["/bin/rm -rf x", "deny"],
  ["./git status", "ask"],
  ["./rm x", "deny"],
  // names that are not in the line
  ["$X status", "ask"],
  ["$(echo git) status", "ask"],
  ["gi? status", "ask"],
  // what an allowed command does besides running
  ["git status > notes.txt", "ask"],
  ["git status >> ~/.bashrc", "ask"],
  ["git status 2>&1 >/dev/null", "allow"],
  ["export PATH=.:$PATH; git status", "ask"],
  ["find . -name '*.ts'", "allow"],
  ["find . -exec touch {} \\;", "ask"],
  ["find . -name x -exec rm {} +", "deny"],
  ["find . -delete", "ask"],
  // functions: the body runs when called; a function may shadow an allowed name
  ["f() { touch x; }; f", "ask"],
  ["git() { rm -rf x; }; git status", "deny"],
  ["alias git='touch x'; git status", "ask"],
  // a line bash cannot read is asked about, unless its raw text is denied
  ["git status; (touch x", "ask"],
  ['git status && echo "unterminated', "ask"],
  ["rm -rf x (", "deny"],
];

describe("a bash line is judged command by command", () => {
  test("the table is big enough to mean something", () => {
    expect(TABLE.length).toBeGreaterThanOrEqual(40);
  });

  test.each(TABLE)("%p is %p", async (command, expected) => {
    expect((await decide(POLICY, "bash", { command }, workspace)).action).toBe(expected);
  });

  test("the raw-string matcher would have allowed lines the parser does not", () => {
    const widened = TABLE.filter(([line, expected]) => rawDecision(line) === "allow" && expected !== "allow").map(([line]) => line);
    expect(widened).toEqual(expect.arrayContaining(["git status; touch x", "git status; rm -rf ~", "git status $(touch x)", "echo >(rm x)"]));
  });
});

describe("what a verdict says", () => {
  test("a denied line names the denying rule and each command's verdict", async () => {
    const verdict = await decide(POLICY, "bash", { command: "git status && rm -rf x" }, workspace);
    expect(verdict).toMatchObject({ action: "deny", rule: deny("rm *") });
    expect(verdict.commands).toEqual([
      { command: "git status", action: "allow", rule: allow("git status*") },
      { command: "rm -rf x", action: "deny", rule: deny("rm *") },
    ]);
  });

  test("an ask says why", async () => {
    expect(await decide(POLICY, "bash", { command: "git status > out.txt" }, workspace)).toMatchObject({
      action: "ask",
      reason: "writes out.txt (>)",
    });
    expect((await decide(POLICY, "bash", { command: "$X" }, workspace)).reason).toBe("its name comes from `$X`");
    expect((await decide(POLICY, "bash", { command: "(" }, workspace)).reason).toBe("bash cannot read the line as written (a syntax error)");
  });
});

describe("which policies read the line", () => {
  test("without a command pattern for bash, rules judge the call as before (nothing is parsed)", async () => {
    const policy: Policy = { default: "allow", rules: [{ tool: "bash", args: { timeout_ms: "1*" }, action: "deny" }] };
    expect((await decide(policy, "bash", { command: "(", timeout_ms: 5 }, workspace)).action).toBe("allow");
    expect((await decide({ default: "allow", rules: [] }, "bash", { command: "git status > x; (" }, workspace)).action).toBe("allow");
  });

  test("an allow without a command pattern (or by the default) covers redirections and variables", async () => {
    const policy: Policy = { default: "allow", rules: [deny("rm *")] };
    expect((await decide(policy, "bash", { command: "X=1 git status > out.txt" }, workspace)).action).toBe("allow");
    expect((await decide(policy, "bash", { command: "git status; rm x" }, workspace)).action).toBe("deny");
  });

  test("no allow covers a command the line does not name, not even one without a pattern", async () => {
    const policy: Policy = { default: "allow", rules: [deny("rm *"), { tool: "bash", action: "allow" }] };
    expect((await decide(policy, "bash", { command: '"$TOOL" -rf x' }, workspace)).action).toBe("ask");
  });

  test("a rule's other arguments still have to match", async () => {
    const policy: Policy = { default: "deny", rules: [{ tool: "bash", args: { command: "ls*", timeout_ms: "1000" }, action: "allow" }] };
    expect((await decide(policy, "bash", { command: "ls | ls", timeout_ms: 1000 }, workspace)).action).toBe("allow");
    expect((await decide(policy, "bash", { command: "ls | ls", timeout_ms: 2000 }, workspace)).action).toBe("deny");
  });

  test("other tools' `command` arguments are matched as strings", async () => {
    const policy: Policy = { default: "ask", rules: [{ tool: "*", args: { command: "git status*" }, action: "allow" }] };
    expect((await decide(policy, "my_runner", { command: "git status; touch x" }, workspace)).action).toBe("allow");
    expect((await decide(policy, "bash", { command: "git status; touch x" }, workspace)).action).toBe("ask");
  });
});
