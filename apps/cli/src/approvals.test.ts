/**
 * The CLI session's approvals against a real runtime, keys typed into a stand-in terminal:
 * an "always" answer is passed back and the runtime remembers it; the session's approvals
 * hold no rule of their own. (The prompt as a person meets it, in a real pseudo-terminal, is
 * test/approval-prompt.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Writable } from "node:stream";
import { defineTool, textResult, ToolRegistry, Workspace } from "@plugboard/core";
import { type Policy, ToolRuntime } from "@plugboard/runtime";
import { waitFor } from "@plugboard/test-helpers";
import { Type } from "@sinclair/typebox";
import { approverFor, createApprovals } from "./approvals.ts";
import type { Io } from "./io.ts";
import { createStyle } from "./output.ts";

const bash = defineTool({
  name: "bash",
  description: "Run a command.",
  parameters: Type.Object({ command: Type.String() }),
  handler: async ({ command }) => textResult(`ran ${command}`),
});
const POLICY: Policy = { default: "allow", rules: [{ tool: "bash", action: "ask" }] };

let dir = "";
let workspace: Workspace;
beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), "plugboard-cli-approvals-")));
  workspace = await Workspace.open(dir);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** A terminal the test types into; `screen()` is what the prompts wrote. */
function terminal() {
  const stdin = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => stdin });
  let written = "";
  const stderr = Object.assign(
    new Writable({
      write(chunk, _encoding, done) {
        written += String(chunk);
        done();
      },
    }),
    { isTTY: true },
  );
  const io = { stdin, stderr, stdout: stderr, env: {}, cwd: dir, style: createStyle({}, {}) } as unknown as Io;
  return { io, type: (keys: string) => stdin.write(keys), screen: () => written };
}

const SCREEN = { pause() {}, resume() {} };
const call = (runtime: ToolRuntime, command: string, approve: ReturnType<typeof approverFor>) =>
  runtime.execute("bash", JSON.stringify({ command }), { callId: "c1", ...(approve ? { approve } : {}) });
const prompts = (screen: string) => screen.split("[y] yes  [a] always").length - 1;

describe("an always answer in the CLI session", () => {
  test("c then s: the runtime remembers the rule it offered, the next like call is not asked, and the session keeps no rule", async () => {
    const runtime = new ToolRuntime(new ToolRegistry([bash]), { workspace, policy: POLICY });
    const { io, type, screen } = terminal();
    const approvals = createApprovals(false, io);
    const first = call(runtime, "ls -a notes", approverFor(approvals, io, SCREEN, {}));
    await waitFor("the prompt offering commands like ls", () => screen().includes("[c] always commands like ls *"));
    type("c");
    await waitFor("the rule shown before it is kept", () => screen().includes("[s] this session"));
    expect(screen()).toContain('rule: { "tool": "bash", "args": { "command": "ls *" }, "action": "allow" }');
    type("s");
    expect((await first).content).toBe("ran ls -a notes");
    expect(approvals).toEqual({ mode: "terminal" });
    expect(runtime.remembered()).toEqual([{ tool: "bash", args: { command: "ls *" }, action: "allow" }]);

    // The next turn's approver: not asked.
    expect((await call(runtime, "ls -l", approverFor(approvals, io, SCREEN, {}))).content).toBe("ran ls -l");
    expect(prompts(screen())).toBe(1);

    // The same session's approvals on a runtime that remembers nothing: asked again.
    const fresh = new ToolRuntime(new ToolRegistry([bash]), { workspace, policy: POLICY });
    const asked = call(fresh, "ls -l", approverFor(approvals, io, SCREEN, {}));
    await waitFor("the second prompt", () => prompts(screen()) === 2);
    type("y");
    expect((await asked).content).toBe("ran ls -l");
  });

  test("a: the runtime remembers the tool, and no call of it is asked again", async () => {
    const runtime = new ToolRuntime(new ToolRegistry([bash]), { workspace, policy: POLICY });
    const { io, type, screen } = terminal();
    const approvals = createApprovals(false, io);
    const first = call(runtime, "touch x", approverFor(approvals, io, SCREEN, {}));
    await waitFor("the prompt", () => prompts(screen()) === 1);
    type("a");
    await first;
    expect(screen()).toContain("always (bash, until the session ends)");
    expect(runtime.remembered()).toEqual([{ tool: "bash", action: "allow" }]);
    expect((await call(runtime, "rm y", approverFor(approvals, io, SCREEN, {}))).content).toBe("ran rm y");
    expect(prompts(screen())).toBe(1);
    expect(approvals).toEqual({ mode: "terminal" });
  });
});

describe("whom each approver asks, as the runtime reads it", () => {
  test("a terminal: a person; --yes at a terminal: a person only for a tainted call; --yes piped: no one; no terminal: none at all", () => {
    const { io } = terminal();
    const piped = { ...io, stdin: Object.assign(new PassThrough(), { isTTY: false }) } as unknown as Io;
    const asks = (yes: boolean, at: Io) => {
      const approve = approverFor(createApprovals(yes, at), at, SCREEN, {});
      return approve === undefined ? "none" : (approve.asks ?? "person");
    };
    expect([asks(false, io), asks(true, io), asks(true, piped), asks(false, piped)]).toEqual(["person", "person if tainted", "no one", "none"]);
  });
});
