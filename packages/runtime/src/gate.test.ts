import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Type } from "@sinclair/typebox";
import type { ApprovalRequest, Approver } from "./approval.ts";
import type { AuditRecord } from "./audit.ts";
import { defineTool, textResult, ToolRegistry, Workspace } from "@plugboard/core";
import type { Policy } from "./policy.ts";
import { ToolRuntime } from "./runtime.ts";

const ran: string[] = [];
const write = defineTool({
  name: "write_file",
  description: "Write.",
  parameters: Type.Object({ path: Type.String(), content: Type.String() }),
  handler: async ({ path }) => {
    ran.push(path);
    return textResult(`Wrote ${path}`);
  },
});

const policy: Policy = {
  default: "allow",
  rules: [
    { tool: "write_file", args: { path: "secrets/*" }, action: "deny" },
    { tool: "write_file", args: { path: "ask/*" }, action: "ask" },
  ],
};

let root: string;
let runtime: ToolRuntime;
const records: AuditRecord[] = [];
beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "plugboard-gate-")));
  const workspace = await Workspace.open(root);
  runtime = new ToolRuntime(new ToolRegistry([write]), { workspace, policy, audit: (record) => records.push(record), session: "s1" });
});
afterAll(() => rm(root, { recursive: true, force: true }));

async function call(path: string, approve?: Approver) {
  ran.length = 0;
  records.length = 0;
  const result = await runtime.execute("write_file", JSON.stringify({ path, content: "x" }), { callId: "c1", ...(approve ? { approve } : {}) });
  return { result, ran: [...ran], record: records[0] };
}

describe("the policy in the runtime", () => {
  test("deny: the handler never runs and the model reads the rule", async () => {
    const { result, ran, record } = await call("./notes/../secrets/key");
    expect(result).toEqual({ content: "Error: Denied by policy: write_file path=secrets/*", isError: true });
    expect(ran).toEqual([]);
    expect(record).toMatchObject({ decision: "deny", rule: "write_file path=secrets/*", isError: true, tool: "write_file", callId: "c1", session: "s1" });
  });

  test("ask with no one to ask is refused with the text that says how to allow it", async () => {
    const { result, ran, record } = await call("ask/a");
    expect(result.content).toBe("Error: Denied: approval required and no one to ask (allow it in the config's policy, or run with --yes)");
    expect(ran).toEqual([]);
    expect(record?.decision).toBe("ask:no");
  });

  test("ask: the approver sees the call and its answer decides", async () => {
    const seen: ApprovalRequest[] = [];
    const yes = await call("ask/a", async (request) => {
      seen.push(request);
      return { decision: "allow" };
    });
    // A write comes with what it would write: here a new file's head.
    const change = { kind: "create", rows: [{ kind: "added", text: "x" }] } as const;
    expect(seen).toEqual([{ id: "c1", tool: "write_file", arguments: { path: "ask/a", content: "x" }, change }]);
    expect(yes.result.content).toBe("Wrote ask/a");
    expect(yes.record).toMatchObject({ decision: "ask:yes", rule: "write_file path=ask/*", isError: false });

    const no = await call("ask/a", async () => ({ decision: "deny", reason: "not that file" }));
    expect(no.result).toEqual({ content: "Error: Denied by the user: not that file", isError: true });
    expect(no.ran).toEqual([]);
    expect((await call("ask/a", async () => ({ decision: "deny" }))).result.content).toBe("Error: Denied by the user");
  });

  test("allow by default: no rule in the record, every field filled", async () => {
    const { result, record } = await call("notes/a");
    expect(result.isError).toBe(false);
    expect(record).toEqual({
      ts: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      session: "s1",
      callId: "c1",
      tool: "write_file",
      args: { path: "notes/a", content: "x" },
      decision: "allow",
      durationMs: expect.any(Number),
      isError: false,
      resultBytes: Buffer.byteLength("Wrote notes/a"),
    });
  });

  test("an approver that gives up (the turn was cancelled) rejects the call, which is still recorded", async () => {
    const controller = new AbortController();
    controller.abort();
    records.length = 0;
    const giveUp: Approver = async (_request, signal) => {
      throw signal.reason;
    };
    const attempt = runtime.execute("write_file", '{"path":"ask/b","content":"x"}', { signal: controller.signal, approve: giveUp });
    await expect(attempt).rejects.toBe(controller.signal.reason);
    expect(records[0]).toMatchObject({ decision: "ask:no", isError: true, resultBytes: 0 });
  });

  test("calls that fail validation never reach the policy or the log", async () => {
    records.length = 0;
    const result = await runtime.execute("write_file", '{"path":"secrets/x"}');
    expect(result.content).toStartWith("Error: Invalid arguments for write_file");
    expect(records).toEqual([]);
  });
});
