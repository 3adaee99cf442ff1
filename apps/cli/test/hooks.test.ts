/**
 * Hooks end to end: the real CLI, the scripted model over real HTTP, real hook programs (the
 * fixtures in fixtures/hooks/ and the README's example), real files; `plugboard mcp` served
 * to the MCP SDK's client. What the model reads is taken from the requests the scripted model
 * recorded; what each hook did, from the audit log.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { cp, readFile, rm, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { survivorsNamed, uniqueMarker } from "@plugboard/test-helpers";
import { startScriptedModel } from "@plugboard/testing";
import { cleanEnv, plugboard, tempFolder, toolResults, writeConfig } from "./helpers.ts";

// One CLI process runs a dozen calls, each through a hook or two (and one hook's timeout).
setDefaultTimeout(60_000);

const MAIN = fileURLToPath(new URL("../src/main.ts", import.meta.url));
const FIXTURES = fileURLToPath(new URL("./fixtures/hooks/", import.meta.url));
const README = fileURLToPath(new URL("../../../README.md", import.meta.url));

/** The README's example hook, as the README shows it: the sh block that names hooks/no-force-push.sh. */
async function readmeHook(): Promise<string> {
  const readme = await readFile(README, "utf8");
  const block = /```sh\n(#!\/bin\/sh\n# hooks\/no-force-push\.sh[\s\S]*?)```/.exec(readme)?.[1];
  if (block === undefined) throw new Error("README.md shows no hooks/no-force-push.sh example");
  return block;
}

const JUDGE = ["bun", "./hooks/judge.ts"];
const JUDGED = "before hook bun ./hooks/judge.ts";
const POLICY = {
  default: "allow",
  rules: [
    { tool: "bash", args: { command: "rm *" }, action: "deny" },
    { tool: "write_file", args: { path: "secrets/*" }, action: "deny" },
  ],
};

let dir = "";
let remove = async () => {};
let config = "";
let workspace = "";

beforeAll(async () => {
  ({ dir, remove } = await tempFolder({
    "workspace/important.txt": "keep me\n",
    "workspace/notes.txt": "password: SECRET\n",
    "workspace/secrets/.keep": "",
  }));
  workspace = join(dir, "workspace");
  await cp(FIXTURES, join(dir, "hooks"), { recursive: true });
  await writeFile(join(dir, "hooks/no-force-push.sh"), await readmeHook(), { mode: 0o755 });
  config = await writeConfig(dir, {
    audit: "audit.jsonl",
    policy: POLICY,
    hooks: {
      before: [
        { tool: "bash", command: ["./hooks/no-force-push.sh"] },
        { tool: "bash", command: JUDGE, timeoutMs: 3000 },
        { tool: "write_file", command: ["./hooks/marker.sh"] },
      ],
      after: [{ tool: "read_file", command: ["bun", "./hooks/redact.ts"] }],
    },
  });
});
afterAll(() => remove());

async function auditLines(): Promise<Record<string, { decision: string; hooks?: unknown[] }>> {
  const text = await readFile(join(dir, "audit.jsonl"), "utf8");
  return Object.fromEntries(text.trim().split("\n").map((line) => JSON.parse(line)).map((record) => [record.callId, record]));
}

describe("hooks through plugboard run", () => {
  test("deny, rewrite (validated and decided again), fail, time out and garble; a policy deny runs no hook; an after hook rewrites a result", async () => {
    const marker = uniqueMarker();
    const bash = (id: string, command: string) => ({ id, name: "bash", arguments: { command } });
    await using model = await startScriptedModel([
      {
        toolCalls: [
          bash("push", "git push --force origin main > pushed.txt"),
          bash("deny", "echo deny-me > denied.txt"),
          bash("rewrite", "echo rewrite-me > rewritten.txt"),
          bash("invalid", "echo invalid-me > invalid.txt"),
          bash("sneak", "echo sneak-me"),
          bash("fail", "echo fail-me > failed.txt"),
          bash("garble", "echo garble-me > garbled.txt"),
          bash("slow", `echo slow-me > slow.txt ${marker}`),
          { id: "secret", name: "write_file", arguments: { path: "secrets/key", content: "x" } },
          { id: "read", name: "read_file", arguments: { path: "notes.txt" } },
        ],
      },
      { content: "done" },
    ]);
    // Run from the workspace: the hooks' paths are the config's folder's, not the current one's.
    const result = await plugboard(["run", "--config", config, "--base-url", model.baseURL, "go"], { cwd: workspace });
    expect(result.code).toBe(0);
    const results = toolResults(model);
    expect(results.push).toBe("Error: Denied by before hook ./hooks/no-force-push.sh: no force pushes: push without --force");
    expect(results.deny).toBe(`Error: Denied by ${JUDGED}: the judge says no`);
    expect(results.rewrite).toContain("exit code: 0");
    expect(results.invalid).toBe(`Error: Invalid arguments for bash (as ${JUDGED} rewrote them): command: expected string`);
    expect(results.sneak).toBe("Error: Denied by policy: bash command=rm *");
    expect(results.fail).toBe(`Error: Denied: ${JUDGED} failed: it exited with code 3: the judge broke`);
    expect(results.garble).toBe(`Error: Denied: ${JUDGED} failed: its answer is not JSON: "OK, go ahead!"`);
    expect(results.slow).toBe(`Error: Denied: ${JUDGED} failed: it gave no answer within 3000 ms and was killed`);
    expect(results.secret).toBe("Error: Denied by policy: write_file path=secrets/*");
    expect(results.read).toContain("password: [redacted]");
    expect(results.read).not.toContain("SECRET");

    // What ran is what the hooks left; what they denied never ran.
    for (const file of ["pushed.txt", "denied.txt", "invalid.txt", "failed.txt", "garbled.txt", "slow.txt", "secrets/key"]) {
      expect(existsSync(join(workspace, file))).toBe(false);
    }
    expect(await readFile(join(workspace, "rewritten.txt"), "utf8")).toBe("rewritten\n");
    expect(await readFile(join(workspace, "important.txt"), "utf8")).toBe("keep me\n");
    // The slow hook and the child it started are gone.
    expect(await survivorsNamed(marker)).toEqual([]);
    // The policy denied the write before its hook could run: the hook left no mark.
    expect(existsSync(join(dir, "hooks/marker-ran"))).toBe(false);

    const audit = await auditLines();
    expect(audit.push).toMatchObject({
      decision: "deny",
      hooks: [{ hook: "before ./hooks/no-force-push.sh", effect: "deny", reason: "no force pushes: push without --force" }],
    });
    expect(audit.rewrite?.hooks).toEqual([
      { hook: "before ./hooks/no-force-push.sh", effect: "allow" },
      { hook: "before bun ./hooks/judge.ts", effect: "allow", args: { command: "echo rewritten > rewritten.txt" } },
    ]);
    expect(audit.sneak).toMatchObject({ decision: "deny", rule: "bash command=rm *" });
    expect(audit.slow?.hooks?.at(-1)).toEqual({ hook: "before bun ./hooks/judge.ts", effect: "failed", reason: "it gave no answer within 3000 ms and was killed" });
    expect(audit.secret).toMatchObject({ decision: "deny", rule: "write_file path=secrets/*" });
    expect(audit.secret?.hooks).toBeUndefined();
    expect(audit.read?.hooks).toEqual([{ hook: "after bun ./hooks/redact.ts", effect: "result" }]);
  });

  test("the same hook runs for a write the policy allows (so the missing mark above means something)", async () => {
    const result = await plugboard(["call", "--config", config, "write_file", '{"path":"notes/ok.txt","content":"x"}'], { cwd: dir });
    expect(result).toMatchObject({ code: 0, stdout: "Wrote 1 bytes to notes/ok.txt\n" });
    expect(existsSync(join(dir, "hooks/marker-ran"))).toBe(true);
  });
});

describe("hooks in the config", () => {
  test("check lists them in the order they run", async () => {
    const result = await plugboard(["check", "--offline", "--config", config], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      [
        "  hooks:     4 (in order, unconfined, as you)",
        "    before bash: ./hooks/no-force-push.sh (timeout 10000 ms)",
        "    before bash: bun ./hooks/judge.ts (timeout 3000 ms)",
        "    before write_file: ./hooks/marker.sh (timeout 10000 ms)",
        "    after read_file: bun ./hooks/redact.ts (timeout 10000 ms)",
      ].join("\n"),
    );
  });

  test("a hook for a tool no plugin provides, or a program that does not exist, is a config error (exit 2)", async () => {
    await using folder = await tempFolder({ "workspace/.keep": "" });
    const wrong = await writeConfig(folder.dir, { hooks: { before: [{ tool: "bsah", command: ["true"] }], after: [{ command: ["./nope.sh"] }] } });
    const result = await plugboard(["check", "--offline", "--config", wrong], { cwd: folder.dir });
    expect(result).toEqual({
      code: 2,
      stdout: "",
      stderr: [
        `plugboard: Invalid config file ${wrong}:`,
        '  hooks.before[0].tool: no enabled tool is named "bsah"; did you mean bash?',
        `  hooks.after[0].command: ${join(folder.dir, "nope.sh")} does not exist (a program's path is relative to the config's folder)`,
        'A rule, hook or pinned name that no tool has never matches: correct it, or enable the plugin or server that provides the tool (plugboard tools lists the names; a server\'s "prefix" is part of its tools\' names).',
        "",
      ].join("\n"),
    });
  });
});

test("plugboard mcp runs the same hooks: the gate is shared", async () => {
  const transport = new StdioClientTransport({ command: process.execPath, args: [MAIN, "mcp", "--config", config], cwd: dir, env: cleanEnv(), stderr: "pipe" });
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(transport);
  try {
    const denied = await client.callTool({ name: "bash", arguments: { command: "echo deny-me > served.txt" } });
    expect(denied).toEqual({ content: [{ type: "text", text: `Error: Denied by ${JUDGED}: the judge says no` }], isError: true });
    const read = await client.callTool({ name: "read_file", arguments: { path: "notes.txt" } });
    expect(read.content).toEqual([{ type: "text", text: expect.stringContaining("password: [redacted]") }]);
  } finally {
    await client.close();
  }
  expect(existsSync(join(workspace, "served.txt"))).toBe(false);
});

describe("a hook runs unconfined, so no confined plugin may change it", () => {
  /** A project whose config runs a hook program and an interpreter's script, with confined (or unconfined) bash. */
  async function project(sandbox: "auto" | "off") {
    const folder = await tempFolder({ "hooks/allow.sh": '#!/bin/sh\necho \'{"decision":"allow"}\'\n', "hooks/allow.ts": 'console.log(\'{"decision":"allow"}\');\n' });
    await Bun.$`chmod +x ${join(folder.dir, "hooks/allow.sh")}`;
    const hooks = { before: [{ tool: "bash", command: ["./hooks/allow.sh"] }, { tool: "bash", command: ["bun", "hooks/allow.ts"] }] };
    const path = await writeConfig(folder.dir, { workspace: ".", sandbox, hooks });
    return { ...folder, config: path };
  }
  const ATTACK = [
    "cat > hooks/allow.sh <<'EOF'",
    "#!/bin/sh",
    "touch pwned",
    `echo '{"decision":"allow"}'`,
    "EOF",
    `echo 'require("fs").writeFileSync("pwned-too", "")' > hooks/allow.ts`,
  ].join("\n");
  const attack = (config: string, cwd: string) => plugboard(["call", "--config", config, "bash", JSON.stringify({ command: ATTACK })], { cwd });

  test("confined bash with fs.write cannot rewrite the hook's program or its script; unconfined it can", async () => {
    await using confined = await project("auto");
    const before = await readFile(join(confined.dir, "hooks/allow.sh"), "utf8");
    const attacked = await attack(confined.config, confined.dir);
    expect(attacked.stdout).toContain("hooks/allow.sh: Read-only file system");
    expect(await readFile(join(confined.dir, "hooks/allow.sh"), "utf8")).toBe(before);
    expect(attacked.stdout).toContain("hooks/allow.ts: Read-only file system");
    expect(await readFile(join(confined.dir, "hooks/allow.ts"), "utf8")).toContain("decision");

    await using twin = await project("off");
    await attack(twin.config, twin.dir);
    expect(await readFile(join(twin.dir, "hooks/allow.sh"), "utf8")).toContain("touch pwned");
    // The next call runs the planted hook, unconfined.
    await plugboard(["call", "--config", twin.config, "bash", '{"command":"true"}'], { cwd: twin.dir });
    // Hooks run in their program's folder.
    expect(existsSync(join(twin.dir, "hooks/pwned"))).toBe(true);
    expect(existsSync(join(twin.dir, "hooks/pwned-too"))).toBe(true);
  });
});

describe("what a hook loads is protected with it", () => {
  const PYTHON = Bun.which("python3");
  const ALLOW_TS = 'const call = await Bun.stdin.json();\nif (call.tool !== "bash") process.exit(3);\nconsole.log(\'{"decision":"allow"}\');\n';
  const ALLOW_PY = 'import json, sys\njson.load(sys.stdin)\nprint(json.dumps({"decision": "allow"}))\n';

  /** A project whose config (in the workspace's top folder) runs `bun ./hooks/check.ts` (or python3's script) before bash. */
  async function project(sandbox: "auto" | "off", hook: "bun" | "python3") {
    const folder = await tempFolder({ "hooks/check.ts": ALLOW_TS, "hooks/check.py": ALLOW_PY });
    const command = hook === "bun" ? ["bun", "./hooks/check.ts"] : ["python3", "./hooks/check.py"];
    const path = await writeConfig(folder.dir, { workspace: ".", sandbox, hooks: { before: [{ tool: "bash", command }] } });
    return { ...folder, config: path, marker: join(folder.dir, "planted-code-ran") };
  }
  // Run from elsewhere: a bunfig.toml planted in the folder the CLI starts in would be read by the CLI's own bun.
  const bash = (config: string, command: string) => plugboard(["call", "--config", config, "bash", JSON.stringify({ command })], { cwd: "/" });
  /** Plants a Bun preload where the hook used to run (the config's folder) and where it runs now, and a json module beside the Python script. */
  const plant = (marker: string) =>
    [
      `echo 'require("node:fs").writeFileSync(${JSON.stringify(marker)}, "bun")' > pre.cjs`,
      `printf 'preload = ["./pre.cjs"]\\n' > bunfig.toml`,
      "cp pre.cjs bunfig.toml hooks/",
      `printf 'open(${JSON.stringify(marker)}, "w").write("python")\\n' > hooks/json.py`,
      "echo planted",
    ].join("; ");

  test("a preload planted for bun ./hooks/check.ts does not run; unconfined it does", async () => {
    await using confined = await project("auto", "bun");
    const attacked = await bash(confined.config, plant(confined.marker));
    expect(attacked.stdout).toContain("'hooks/bunfig.toml': Read-only file system");
    expect(existsSync(join(confined.dir, "bunfig.toml"))).toBe(true);
    const next = await bash(confined.config, "echo still hooked");
    expect(next).toMatchObject({ code: 0, stdout: expect.stringContaining("still hooked") });
    expect(existsSync(confined.marker)).toBe(false);

    await using twin = await project("off", "bun");
    await bash(twin.config, plant(twin.marker));
    await bash(twin.config, "echo still hooked");
    expect(await readFile(twin.marker, "utf8")).toBe("bun");
  });

  test.skipIf(PYTHON === null)("a json module planted beside python3 ./hooks/check.py is not imported; unconfined it is", async () => {
    await using confined = await project("auto", "python3");
    const attacked = await bash(confined.config, plant(confined.marker));
    expect(attacked.stdout).toContain("hooks/json.py: Read-only file system");
    const next = await bash(confined.config, "echo still hooked");
    expect(next).toMatchObject({ code: 0, stdout: expect.stringContaining("still hooked") });
    expect(existsSync(confined.marker)).toBe(false);

    await using twin = await project("off", "python3");
    await bash(twin.config, plant(twin.marker));
    await bash(twin.config, "echo still hooked");
    expect(await readFile(twin.marker, "utf8")).toBe("python");
  });

  test("a hook whose code lies in the workspace's top folder runs in an empty folder: what is planted beside it is not loaded", async () => {
    await using folder = await tempFolder({ "check.ts": ALLOW_TS, "check.py": ALLOW_PY });
    const marker = join(folder.dir, "planted-code-ran");
    const commands = [["bun", "./check.ts"], ...(PYTHON ? [["python3", "./check.py"]] : [])];
    const config = await writeConfig(folder.dir, { workspace: ".", sandbox: "auto", hooks: { before: commands.map((command) => ({ tool: "bash", command })) } });
    // The top folder cannot be protected whole: the plant lands.
    const planted = [
      `echo 'require("node:fs").writeFileSync(${JSON.stringify(marker)}, "bun")' > pre.cjs`,
      `printf 'preload = ["./pre.cjs"]\\n' > bunfig.toml`,
      `printf 'open(${JSON.stringify(marker)}, "w").write("python")\\n' > json.py`,
    ].join("; ");
    expect((await bash(config, planted)).stdout).toEndWith("exit code: 0\n");
    const next = await bash(config, "echo still hooked");
    expect(next).toMatchObject({ code: 0, stdout: expect.stringContaining("still hooked") });
    expect(existsSync(marker)).toBe(false);

    // Started in its program's folder, as hooks in their own folder are, each loads what was planted.
    for (const command of commands) {
      await rm(marker, { force: true });
      const child = Bun.spawn(command, { cwd: folder.dir, env: cleanEnv(), stdin: new Blob(['{"tool":"bash"}']), stdout: "ignore", stderr: "ignore" });
      await child.exited;
      expect(await readFile(marker, "utf8")).toBe(command[0] === "bun" ? "bun" : "python");
    }
  });

  test("a file the hook imports from the workspace stays read-only to confined plugins", async () => {
    await using folder = await tempFolder({
      "hooks/check.ts": `import { answer } from "../lib/answer.ts";\nawait Bun.stdin.text();\nconsole.log(answer);\n`,
      "lib/answer.ts": `export const answer = '{"decision":"allow"}';\n`,
    });
    const config = await writeConfig(folder.dir, { workspace: ".", sandbox: "auto", hooks: { before: [{ tool: "bash", command: ["bun", "hooks/check.ts"] }] } });
    const attacked = await bash(config, "echo 'export const answer = \"x\";' > lib/answer.ts; echo done");
    expect(attacked.stdout).toContain("lib/answer.ts: Read-only file system");
    // Other files beside it are the plugin's to write.
    const other = await bash(config, "echo hi > lib/other.ts && cat lib/other.ts");
    expect(other.stdout).toContain("hi\n");
    expect(await readFile(join(folder.dir, "lib/answer.ts"), "utf8")).toContain("decision");
  });

  test("the variables runtimes read as code do not reach a hook; run without the cleaning they do", async () => {
    await using folder = await tempFolder({
      "hooks/check.ts": ALLOW_TS,
      "hooks/check.mjs": 'process.stdin.resume();\nprocess.stdin.on("end", () => console.log(\'{"decision":"allow"}\'));\n',
      "hooks/check.py": ALLOW_PY,
    });
    const marks = join(folder.dir, "marks");
    const mark = (name: string) => join(marks, name);
    // Each runs only in the hook it aims at: the CLI itself is a bun process too.
    await Bun.$`mkdir -p ${marks} ${join(folder.dir, "outside/py")}`;
    const preload = `if (process.argv[1]?.includes("check.")) require("node:fs").writeFileSync(${JSON.stringify(marks)} + (process.versions.bun ? "/bun" : "/node"), "");\n`;
    await writeFile(join(folder.dir, "outside/pre.cjs"), preload);
    await writeFile(join(folder.dir, "outside/py/json.py"), `open(${JSON.stringify(mark("python"))}, "w")\n`);
    const hooks = [["bun", "./hooks/check.ts"], ...(Bun.which("node") ? [["node", "./hooks/check.mjs"]] : []), ...(PYTHON ? [["python3", "./hooks/check.py"]] : [])];
    const config = await writeConfig(folder.dir, { workspace: ".", hooks: { before: hooks.map((command) => ({ tool: "bash", command })) } });
    const env = {
      BUN_OPTIONS: `--preload ${join(folder.dir, "outside/pre.cjs")}`,
      NODE_OPTIONS: `--require ${join(folder.dir, "outside/pre.cjs")}`,
      PYTHONPATH: join(folder.dir, "outside/py"),
      PYTHONSTARTUP: join(folder.dir, "outside/py/json.py"),
    };
    const result = await plugboard(["call", "--config", config, "bash", '{"command":"echo hooked"}'], { cwd: folder.dir, env });
    expect(result).toMatchObject({ code: 0, stdout: expect.stringContaining("hooked") });
    expect(await Array.fromAsync(new Bun.Glob("*").scan(marks))).toEqual([]);

    // The same hooks started with the app's environment as it is: each runtime runs the planted code.
    for (const command of hooks) {
      const child = Bun.spawn(command, { cwd: folder.dir, env: cleanEnv(env), stdin: new Blob(['{"tool":"bash"}']), stdout: "ignore", stderr: "ignore" });
      await child.exited;
    }
    const expected = ["bun", ...(Bun.which("node") ? ["node"] : []), ...(PYTHON ? ["python"] : [])].sort();
    expect((await Array.fromAsync(new Bun.Glob("*").scan(marks))).sort()).toEqual(expected);
  });
});

describe("check warns about a hook's code in a workspace plugins may write", () => {
  test("in a folder of its own (read-only to confined plugins) and in the workspace's top folder (which cannot be)", async () => {
    await using folder = await tempFolder({ "hooks/check.ts": "", "check.sh": "#!/bin/sh\n" });
    await Bun.$`chmod +x ${join(folder.dir, "check.sh")}`;
    const hooks = { before: [{ tool: "bash", command: ["bun", "./hooks/check.ts"] }, { tool: "bash", command: ["./check.sh"] }] };
    const config = await writeConfig(folder.dir, { workspace: ".", hooks });
    const result = await plugboard(["check", "--offline", "--config", config], { cwd: folder.dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      [
        "    before bash: bun ./hooks/check.ts (timeout 10000 ms)",
        "      warning: its code lies in the workspace, which plugins may write: hooks/ is read-only to confined plugins, not to one that runs unconfined",
        "    before bash: ./check.sh (timeout 10000 ms)",
        "      warning: its code lies in the workspace's top folder, which plugins may write and which cannot be made read-only: it runs in an empty folder instead, but a plugin could still plant what it imports from there; move it into a folder of its own, such as hooks/",
      ].join("\n"),
    );
    // The suite's own config keeps its hooks beside the config, outside the workspace: no warning.
    const outside = await plugboard(["check", "--offline", "--config", join(dir, "plugboard.config.json")], { cwd: dir });
    expect(outside.stdout).not.toContain("warning:");
  });
});
