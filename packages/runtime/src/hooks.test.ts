/**
 * Hooks in the runtime: real shell scripts in a temp folder, run as the hooks of a runtime
 * with a policy; what each hook saw is what it wrote to a file.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmod, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { survivorsNamed, uniqueMarker } from "@plugboard/test-helpers";
import { Type } from "@sinclair/typebox";
import type { Approver } from "./approval.ts";
import type { AuditRecord } from "./audit.ts";
import { defineTool, textResult, ToolRegistry, Workspace } from "@plugboard/core";
import { DEFAULT_HOOK_TIMEOUT_MS, type Hook, type Hooks } from "./hooks.ts";
import type { Policy } from "./policy.ts";
import { ToolRuntime } from "./runtime.ts";

const ran: unknown[] = [];
const write = defineTool({
  name: "write_file",
  description: "Write.",
  parameters: Type.Object({ path: Type.String(), content: Type.String() }),
  handler: async (args) => {
    ran.push(args);
    return textResult(`Wrote ${args.content.length} bytes to ${args.path}`);
  },
});
const glob = defineTool({ name: "glob", description: "Glob.", parameters: Type.Object({}), handler: async () => textResult("a.txt") });

const policy: Policy = { default: "allow", rules: [{ tool: "write_file", args: { path: "secrets/*" }, action: "deny" }] };

let dir = "";
let workspace: Workspace;
beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), "plugboard-hooks-")));
  // The hooks lie beside the workspace, not in its top folder (where they would run in an empty folder).
  await mkdir(join(dir, "workspace"));
  workspace = await Workspace.open(join(dir, "workspace"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** A hook running `script` (a shell script's body); it sees the call on stdin. */
async function hook(name: string, script: string, extra: Partial<Hook> = {}): Promise<Hook> {
  const path = join(dir, name);
  await writeFile(path, `#!/bin/sh\n${script}\n`);
  await chmod(path, 0o755);
  return { command: [path], label: `./${name}`, timeoutMs: DEFAULT_HOOK_TIMEOUT_MS, cwd: dir, ...extra };
}

async function call(hooks: Partial<Hooks>, args: Record<string, unknown>, approve?: Approver, tool = "write_file") {
  ran.length = 0;
  const records: AuditRecord[] = [];
  const runtime = new ToolRuntime(new ToolRegistry([write, glob]), {
    workspace,
    policy,
    hooks: { before: hooks.before ?? [], after: hooks.after ?? [] },
    audit: (record) => records.push(record),
    session: "s1",
  });
  const result = await runtime.execute(tool, JSON.stringify(args), { callId: "c1", ...(approve ? { approve } : {}) });
  return { result, ran: [...ran], record: records[0] };
}

const ARGS = { path: "notes/a.txt", content: "hi" };

describe("before hooks", () => {
  test("a hook sees the call on stdin, runs in its folder, and its allow lets the call run", async () => {
    const allow = await hook("allow.sh", `cat > seen.json; pwd > cwd.txt; echo '{"decision":"allow"}'`);
    const { result, record } = await call({ before: [allow] }, ARGS);
    expect(result).toEqual({ content: "Wrote 2 bytes to notes/a.txt", isError: false });
    expect(JSON.parse(await readFile(join(dir, "seen.json"), "utf8"))).toEqual({
      hook: "before",
      tool: "write_file",
      args: ARGS,
      session: "s1",
      callId: "c1",
      workspace: join(dir, "workspace"),
    });
    expect((await readFile(join(dir, "cwd.txt"), "utf8")).trim()).toBe(dir);
    expect(record?.hooks).toEqual([{ hook: "before ./allow.sh", effect: "allow" }]);
  });

  test("deny: the handler never runs, the model reads the hook and its reason", async () => {
    const deny = await hook("deny.sh", `echo '{"decision":"deny","reason":"no writes on Fridays"}'`);
    const { result, ran, record } = await call({ before: [deny] }, ARGS);
    expect(result).toEqual({ content: "Error: Denied by before hook ./deny.sh: no writes on Fridays", isError: true });
    expect(ran).toEqual([]);
    expect(record).toMatchObject({ decision: "deny", hooks: [{ hook: "before ./deny.sh", effect: "deny", reason: "no writes on Fridays" }] });
  });

  test("ask: the person is asked about a call the policy allows, about the arguments the hooks left", async () => {
    const ask = await hook("ask.sh", `echo '{"decision":"ask","args":{"path":"notes/b.txt","content":"hi"}}'`);
    const asked: unknown[] = [];
    const no: Approver = async (request) => {
      asked.push(request.arguments);
      return { decision: "deny", reason: "not now" };
    };
    const { result, ran, record } = await call({ before: [ask] }, ARGS, no);
    expect(asked).toEqual([{ path: "notes/b.txt", content: "hi" }]);
    expect(result.content).toBe("Error: Denied by the user: not now");
    expect(ran).toEqual([]);
    expect(record?.decision).toBe("ask:no");
    expect((await call({ before: [ask] }, ARGS)).result.content).toStartWith("Error: Denied: approval required and no one to ask");
  });

  test("rewritten arguments reach the handler and the next hook; the audit keeps the model's and each rewrite", async () => {
    const upper = await hook("upper.sh", `echo '{"decision":"allow","args":{"path":"notes/a.txt","content":"HI"}}'`);
    const second = await hook("second.sh", `cat > second.json; echo '{"decision":"allow"}'`);
    const { result, ran, record } = await call({ before: [upper, second] }, ARGS);
    expect(result.content).toBe("Wrote 2 bytes to notes/a.txt");
    expect(ran).toEqual([{ path: "notes/a.txt", content: "HI" }]);
    expect(JSON.parse(await readFile(join(dir, "second.json"), "utf8")).args).toEqual({ path: "notes/a.txt", content: "HI" });
    expect(record?.args).toEqual(ARGS);
    expect(record?.hooks).toEqual([
      { hook: "before ./upper.sh", effect: "allow", args: { path: "notes/a.txt", content: "HI" } },
      { hook: "before ./second.sh", effect: "allow" },
    ]);
  });

  test("rewritten arguments are validated again: invalid ones are the usual Invalid arguments, naming the hook", async () => {
    const bad = await hook("bad.sh", `echo '{"decision":"allow","args":{"path":7}}'`);
    const { result, ran } = await call({ before: [bad] }, ARGS);
    expect(result.content).toBe("Error: Invalid arguments for write_file (as before hook ./bad.sh rewrote them): content: expected required property; path: expected string");
    expect(ran).toEqual([]);
  });

  test("rewritten arguments the policy denies are denied, and no later hook runs", async () => {
    const sneaky = await hook("sneaky.sh", `echo '{"decision":"allow","args":{"path":"./x/../secrets/key","content":"hi"}}'`);
    const later = await hook("later.sh", `touch later-ran; echo '{"decision":"allow"}'`);
    const { result, ran, record } = await call({ before: [sneaky, later] }, ARGS);
    expect(result.content).toBe("Error: Denied by policy: write_file path=secrets/*");
    expect(ran).toEqual([]);
    expect(existsSync(join(dir, "later-ran"))).toBe(false);
    expect(record).toMatchObject({ decision: "deny", rule: "write_file path=secrets/*" });
  });

  test("a call the policy denies runs no hook at all", async () => {
    const marker = await hook("marker.sh", `touch marker-ran; echo '{"decision":"allow"}'`);
    const { result, record } = await call({ before: [marker], after: [marker] }, { path: "secrets/key", content: "x" });
    expect(result.content).toBe("Error: Denied by policy: write_file path=secrets/*");
    expect(existsSync(join(dir, "marker-ran"))).toBe(false);
    expect(record?.hooks).toBeUndefined();
  });

  test("a hook's tool pattern picks the calls it runs for", async () => {
    const onlyGlob = await hook("only-glob.sh", `echo '{"decision":"deny"}'`, { tool: "gl*" });
    expect((await call({ before: [onlyGlob] }, ARGS)).result.content).toBe("Wrote 2 bytes to notes/a.txt");
    expect((await call({ before: [onlyGlob] }, {}, undefined, "glob")).result.content).toBe("Error: Denied by before hook ./only-glob.sh");
  });
});

describe("a hook that fails denies the call, naming the hook", () => {
  test.each([
    ["exits non-zero", "fail.sh", `echo 'disk full' >&2; exit 3`, "it exited with code 3: disk full"],
    ["prints something else", "garbled.sh", "echo 'sure, go ahead'", 'its answer is not JSON: "sure, go ahead\\n"'],
    ["prints nothing", "silent.sh", "true", "its answer is not JSON: (nothing)"],
    ["answers another shape", "shape.sh", `echo '{"decision":"yes"}'`, 'its answer is not {"decision": "allow" | "deny" | "ask", "reason"?: string, "args"?: object}: "decision" is "yes"'],
    ["answers an unknown key", "extra.sh", `echo '{"decision":"allow","results":"x"}'`, 'its answer is not {"decision": "allow" | "deny" | "ask", "reason"?: string, "args"?: object}: unexpected "results"'],
  ])("one that %s", async (_, name, script, problem) => {
    const failing = await hook(name, script);
    const { result, ran, record } = await call({ before: [failing] }, ARGS);
    expect(result).toEqual({ content: `Error: Denied: before hook ./${name} failed: ${problem}`, isError: true });
    expect(ran).toEqual([]);
    expect(record).toMatchObject({ decision: "deny", hooks: [{ hook: `before ./${name}`, effect: "failed", reason: problem }] });
  });

  test("one that cannot start", async () => {
    const missing: Hook = { command: [join(dir, "no-such-hook.sh")], label: "./no-such-hook.sh", timeoutMs: 1000, cwd: dir };
    const { result, ran } = await call({ before: [missing] }, ARGS);
    expect(result.content).toStartWith("Error: Denied: before hook ./no-such-hook.sh failed: it cannot start (ENOENT");
    expect(ran).toEqual([]);
  });

  test("one that outlives its timeout: it and what it started are killed", async () => {
    const marker = uniqueMarker();
    const slow = await hook("slow.sh", `bash -c 'exec -a ${marker} sleep 30' &\nexec bash -c 'exec -a ${marker} sleep 30'`, { timeoutMs: 300 });
    const { result, ran } = await call({ before: [slow] }, ARGS);
    expect(result.content).toBe("Error: Denied: before hook ./slow.sh failed: it gave no answer within 300 ms and was killed");
    expect(ran).toEqual([]);
    expect(await survivorsNamed(marker)).toEqual([]);
  });
});

describe("after hooks", () => {
  test("see the whole result and may rewrite it; an empty answer keeps it", async () => {
    const redact = await hook("redact.sh", `cat > after.json; echo '{"result":"[redacted]"}'`);
    const keep = await hook("keep.sh", `echo '{}'`);
    const { result, ran, record } = await call({ after: [keep, redact] }, ARGS);
    expect(ran).toEqual([ARGS]);
    expect(result).toEqual({ content: "[redacted]", isError: false });
    expect(JSON.parse(await readFile(join(dir, "after.json"), "utf8"))).toMatchObject({
      hook: "after",
      tool: "write_file",
      args: ARGS,
      result: "Wrote 2 bytes to notes/a.txt",
      isError: false,
    });
    expect(record?.hooks).toEqual([
      { hook: "after ./keep.sh", effect: "kept" },
      { hook: "after ./redact.sh", effect: "result" },
    ]);
    expect(record?.resultBytes).toBe("[redacted]".length);
  });

  test("one that fails withholds the result: the model reads that the call ran", async () => {
    const broken = await hook("broken.sh", "exit 1");
    const { result, ran } = await call({ after: [broken] }, ARGS);
    expect(ran).toEqual([ARGS]);
    expect(result).toEqual({ content: "Error: Denied: after hook ./broken.sh failed: it exited with code 1; the call ran, its result is withheld", isError: true });
  });
});
