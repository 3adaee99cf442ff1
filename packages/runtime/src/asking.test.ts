/**
 * What the runtime remembers of "always" answers, and how often it reads a bash line: a fake
 * `bash` tool (the handler only echoes), a policy that asks, approvers that answer as a
 * person would; parses counted by the parser module's own counter.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmod, mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Type } from "@sinclair/typebox";
import { defineTool, textResult, ToolRegistry, Workspace } from "@plugboard/core";
import { type ApprovalAnswer, type ApprovalRequest, type Approver, approveAll } from "./approval.ts";
import type { AuditRecord } from "./audit.ts";
import { DEFAULT_HOOK_TIMEOUT_MS, type Hooks } from "./hooks.ts";
import type { Policy } from "./policy.ts";
import { ToolRuntime } from "./runtime.ts";
import { bashParses } from "./shell-parser.ts";

const bash = defineTool({
  name: "bash",
  description: "Run a command.",
  parameters: Type.Object({ command: Type.String() }),
  handler: async ({ command }) => textResult(`ran ${command}`),
});
const write = defineTool({
  name: "write_file",
  description: "Write.",
  parameters: Type.Object({ path: Type.String(), content: Type.String() }),
  concurrency: { writes: (args) => args.path },
  handler: async ({ path }) => textResult(`Wrote ${path}`),
});

/** Git may be read; every other bash line and every write is asked about. */
const POLICY: Policy = {
  default: "allow",
  rules: [
    { tool: "bash", args: { command: "git status*" }, action: "allow" },
    { tool: "bash", action: "ask" },
    { tool: "write_file", action: "ask" },
  ],
};

let dir = "";
let workspace: Workspace;
beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), "plugboard-asking-")));
  await mkdir(join(dir, "workspace"));
  workspace = await Workspace.open(join(dir, "workspace"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

function runtimeWith(options: { hooks?: Hooks; records?: AuditRecord[] } = {}): ToolRuntime {
  const { hooks, records } = options;
  return new ToolRuntime(new ToolRegistry([bash, write]), {
    workspace,
    policy: POLICY,
    session: "s1",
    ...(hooks ? { hooks } : {}),
    ...(records ? { audit: (record) => records.push(record) } : {}),
  });
}

/** A person who answers `answers` in turn, and what they were asked. */
function person(...answers: ApprovalAnswer[]): { approve: Approver; asked: ApprovalRequest[] } {
  const asked: ApprovalRequest[] = [];
  const approve: Approver = async (request) => {
    asked.push(request);
    return answers[asked.length - 1] ?? { decision: "deny", reason: "asked once too often" };
  };
  return { approve, asked };
}

const run = (runtime: ToolRuntime, command: string, approve?: Approver) =>
  runtime.execute("bash", JSON.stringify({ command }), { callId: "c1", ...(approve ? { approve } : {}) });

describe("an always answer is a rule the runtime remembers", () => {
  test("always for commands like this: the offer comes with the question, and like commands are not asked again", async () => {
    const records: AuditRecord[] = [];
    const runtime = runtimeWith({ records });
    const { approve, asked } = person({ decision: "allow", always: "commands" });
    expect((await run(runtime, "git log --oneline -5 | head -1", approve)).content).toBe("ran git log --oneline -5 | head -1");
    expect(asked[0]?.commands).toEqual({ pattern: "git log *", command: "git log --oneline -5" });
    expect(runtime.remembered()).toEqual([{ tool: "bash", args: { command: "git log *" }, action: "allow" }]);

    expect((await run(runtime, "git log -3", approve)).content).toBe("ran git log -3");
    expect(asked).toHaveLength(1);
    // The remembered rule is judged as the policy judges: command by command.
    expect((await run(runtime, "git log -3; touch x", approve)).content).toBe("Error: Denied by the user: asked once too often");
    expect(asked).toHaveLength(2);
    expect(records.map((record) => record.decision)).toEqual(["ask:yes", "ask:yes", "ask:no"]);
  });

  test("always for this tool: every later call of the tool runs unasked, other tools are still asked", async () => {
    const runtime = runtimeWith();
    const { approve, asked } = person({ decision: "allow", always: "tool" });
    await runtime.execute("write_file", '{"path":"a.txt","content":"a"}', { approve });
    expect((await runtime.execute("write_file", '{"path":"b.txt","content":"b"}', { approve })).content).toBe("Wrote b.txt");
    expect(asked.map((request) => request.tool)).toEqual(["write_file"]);
    expect((await run(runtime, "ls", approve)).isError).toBe(true);
    expect(runtime.remembered()).toEqual([{ tool: "write_file", action: "allow" }]);
  });

  test("commands like `ls -la` include a bare `ls`; a destructive command is remembered exactly", async () => {
    const runtime = runtimeWith();
    const { approve, asked } = person({ decision: "allow", always: "commands" }, { decision: "allow", always: "commands" });
    await run(runtime, "ls -la", approve);
    // Without anyone to ask: only the remembered rule can allow it.
    expect((await run(runtime, "ls")).content).toBe("ran ls");
    await run(runtime, "rm -rf build", approve);
    expect(asked.map((request) => request.commands?.pattern)).toEqual(["ls *", "rm -rf build"]);
    expect((await run(runtime, "rm -rf build", approve)).content).toBe("ran rm -rf build");
    expect((await run(runtime, "rm -rf src", approve)).content).toBe("Error: Denied by the user: asked once too often");
  });

  test("a remembered rule needs no one to ask; it belongs to its session alone", async () => {
    const runtime = runtimeWith();
    await run(runtime, "ls -a", person({ decision: "allow", always: "commands" }).approve);
    expect((await run(runtime, "ls -l")).content).toBe("ran ls -l");
    const other = await runtime.execute("bash", '{"command":"ls -l"}', { session: "s2" });
    expect(other.content).toStartWith("Error: Denied: approval required and no one to ask");
    expect(runtime.remembered("s2")).toEqual([]);
  });

  test("nothing is remembered from a refusal, a plain yes, or commands with no offer", async () => {
    const runtime = runtimeWith();
    await run(runtime, "ls", person({ decision: "deny", always: "tool" }).approve);
    await run(runtime, "ls", person({ decision: "allow" }).approve);
    // `$X` names no command: there is no rule to offer.
    const { approve, asked } = person({ decision: "allow", always: "commands" });
    await run(runtime, '"$X" run', approve);
    expect(asked[0]?.commands).toBeUndefined();
    await runtime.execute("write_file", '{"path":"a.txt","content":"a"}', person({ decision: "allow", always: "commands" }));
    expect(runtime.remembered()).toEqual([]);
  });

  test("calls asking at once are asked one at a time, and an always answer spares the calls waiting behind it", async () => {
    const runtime = runtimeWith();
    let asking = 0;
    let most = 0;
    const asked: string[] = [];
    const approve: Approver = async (request) => {
      asking++;
      most = Math.max(most, asking);
      asked.push(String(request.arguments.path));
      await Bun.sleep(5);
      asking--;
      return { decision: "allow", always: "tool" };
    };
    const write = (path: string) => runtime.execute("write_file", JSON.stringify({ path, content: "x" }), { approve });
    const results = await Promise.all([write("a.txt"), write("b.txt"), write("c.txt")]);
    expect(results.map((result) => result.content)).toEqual(["Wrote a.txt", "Wrote b.txt", "Wrote c.txt"]);
    expect(asked).toEqual(["a.txt"]);
    expect(most).toBe(1);
  });

  test("a call whose turn was cancelled while it waited for an earlier question is not asked about", async () => {
    const runtime = runtimeWith();
    const controller = new AbortController();
    const asked: string[] = [];
    const approve: Approver = async (request) => {
      asked.push(String(request.arguments.path));
      controller.abort();
      return { decision: "allow" };
    };
    const write = (path: string) => runtime.execute("write_file", JSON.stringify({ path, content: "x" }), { approve, signal: controller.signal });
    const [first, second] = await Promise.allSettled([write("a.txt"), write("b.txt")]);
    expect(first).toMatchObject({ status: "fulfilled" });
    expect(second).toMatchObject({ status: "rejected", reason: controller.signal.reason });
    expect(asked).toEqual(["a.txt"]);
  });
});

describe("a bash line is parsed once per call", () => {
  /** The parses `call` makes. */
  async function parses(call: () => Promise<unknown>): Promise<number> {
    const before = bashParses();
    await call();
    return bashParses() - before;
  }

  test("the policy's verdict, the offer and the remembered rules share one reading", async () => {
    const runtime = runtimeWith();
    const { approve, asked } = person({ decision: "allow", always: "commands" });
    // Judged by the policy's command rules, then offered a rule: one parse.
    expect(await parses(() => run(runtime, "git log --oneline | head -1", approve))).toBe(1);
    // Judged by the policy and by the remembered rule: one parse.
    expect(await parses(() => run(runtime, "git log -3 --stat", approve))).toBe(1);
    // Judged by the policy, the remembered rule (which does not allow it), then offered a rule: one parse.
    expect(await parses(() => run(runtime, "npm test", approve))).toBe(1);
    expect(asked.map((request) => request.commands?.pattern)).toEqual(["git log *", "npm test *"]);
  });

  test("with no rule on commands, a line is parsed only to offer a rule", async () => {
    const runtime = new ToolRuntime(new ToolRegistry([bash]), { workspace, policy: { default: "ask", rules: [] } });
    expect(await parses(() => run(runtime, "ls -a", person({ decision: "allow" }).approve))).toBe(1);
    expect(await parses(() => run(runtime, "ls -a"))).toBe(0);
  });

  test("approveAll, which asks no one, is offered nothing: the line is not read; twin: a person's approver is offered a rule, read once", async () => {
    const runtime = new ToolRuntime(new ToolRegistry([bash]), { workspace, policy: { default: "ask", rules: [] } });
    let result: Awaited<ReturnType<typeof run>> | undefined;
    expect(
      await parses(async () => {
        result = await run(runtime, "ls -a", approveAll);
      }),
    ).toBe(0);
    expect(result?.content).toBe("ran ls -a");
    const { approve, asked } = person({ decision: "allow" });
    expect(await parses(() => run(runtime, "ls -a", approve))).toBe(1);
    expect(asked[0]?.commands?.pattern).toBe("ls *");
  });

  test("an approver that asks a person only about tainted calls (--yes at a terminal) is offered nothing for an untainted one: no line read, no diff worked out", async () => {
    const runtime = new ToolRuntime(new ToolRegistry([bash, write]), { workspace, policy: { default: "ask", rules: [] } });
    const asked: ApprovalRequest[] = [];
    const approve: Approver = Object.assign(
      async (request: ApprovalRequest): Promise<ApprovalAnswer> => {
        asked.push(request);
        return { decision: "allow" };
      },
      { asks: "person if tainted" as const },
    );
    expect(await parses(() => run(runtime, "ls -a", approve))).toBe(0);
    await writeFile(join(dir, "workspace", "yes.txt"), "before\n");
    await runtime.execute("write_file", JSON.stringify({ path: "yes.txt", content: "after\n" }), { approve });
    expect(asked.map(({ tool, commands, change }) => ({ tool, commands, change }))).toEqual([
      { tool: "bash", commands: undefined, change: undefined },
      { tool: "write_file", commands: undefined, change: undefined },
    ]);
  });

  test("a line a before hook rewrote is a new line: read once more", async () => {
    const hook = join(dir, "rewrite.sh");
    await writeFile(hook, `#!/bin/sh\necho '{"decision":"allow","args":{"command":"git log -1"}}'\n`);
    await chmod(hook, 0o755);
    const before = [{ tool: "bash", command: [hook], label: "./rewrite.sh", timeoutMs: DEFAULT_HOOK_TIMEOUT_MS, cwd: dir }];
    const runtime = runtimeWith({ hooks: { before, after: [] } });
    const { approve, asked } = person({ decision: "allow" });
    expect(await parses(() => run(runtime, "git status", approve))).toBe(2);
    expect(asked[0]).toMatchObject({ arguments: { command: "git log -1" }, commands: { pattern: "git log *" } });
  });
});

describe("a write's question shows the change", () => {
  test("against the file it replaces, or the head of a new file; a path outside the workspace shows nothing", async () => {
    await writeFile(join(dir, "workspace", "kept.txt"), "alpha\nbeta\n");
    await writeFile(join(dir, "outside.txt"), "secret\n");
    const runtime = runtimeWith();
    const { approve, asked } = person({ decision: "deny" }, { decision: "deny" }, { decision: "deny" });
    await runtime.execute("write_file", JSON.stringify({ path: "kept.txt", content: "alpha\ngamma\n" }), { approve });
    await runtime.execute("write_file", JSON.stringify({ path: "new.txt", content: "one\ntwo\n" }), { approve });
    await runtime.execute("write_file", JSON.stringify({ path: "../outside.txt", content: "x" }), { approve });
    expect(asked.map((request) => request.change)).toEqual([
      {
        kind: "replace",
        rows: [
          { kind: "kept", text: "alpha" },
          { kind: "removed", text: "beta" },
          { kind: "added", text: "gamma" },
        ],
      },
      {
        kind: "create",
        rows: [
          { kind: "added", text: "one" },
          { kind: "added", text: "two" },
        ],
      },
      undefined,
    ]);
  });
});
