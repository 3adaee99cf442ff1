/**
 * Suite 3 — dispatch: what `runtime.execute` costs over calling the handler directly
 * (a trivial tool, so only the runtime is measured), and, on the five real tools' schemas,
 * the compiled TypeBox check against valibot twins and against the JSON parse alone.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineTool, silentLogger, textResult, Workspace, ToolRegistry } from "@plugboard/core";
import { ToolRuntime } from "@plugboard/runtime";
import { Type } from "@sinclair/typebox";
import { do_not_optimize } from "mitata";
import * as v from "valibot";
import type { FigureLog } from "../harness/figures.ts";
import { type Timing, timeFast, timeRuns, timingFigure } from "../harness/measure.ts";
import type { RunMode } from "../harness/mode.ts";
import { ARGUMENTS, realRegistry } from "./real-tools.ts";
import { twinOf } from "./valibot-twins.ts";

/** The groups' names in every report. */
export const DISPATCH_GROUP = "Dispatch";
export const VALIDATION_GROUP = "Validation, the five tool schemas";
export const HOOK_GROUP = "Hooks";

const echo = defineTool({
  name: "echo",
  description: "Repeat the text.",
  parameters: Type.Object({ text: Type.String(), times: Type.Optional(Type.Integer({ minimum: 1 })) }),
  handler: async ({ text }) => textResult(text),
});

/** Measures both groups. */
export async function dispatch(mode: RunMode, log: FigureLog): Promise<void> {
  const cpuMs = mode.quick ? 150 : 700;
  const workspace = await Workspace.open(tmpdir());
  await dispatchOverhead(workspace, cpuMs, mode, log);
  await validation(workspace, cpuMs, mode, log);
}

async function dispatchOverhead(workspace: Workspace, cpuMs: number, mode: RunMode, log: FigureLog): Promise<void> {
  mode.progress("dispatch: runtime.execute against the handler");
  const runtime = new ToolRuntime(new ToolRegistry([echo]), { workspace });
  const raw = '{"text":"hello","times":2}';
  const bad = '{"text":1,"extra":true}';
  const ctx = { workspace, signal: new AbortController().signal, callId: "c", options: undefined, logger: silentLogger };
  const group = `${DISPATCH_GROUP} (a one-line echo tool)`;
  const ns = (name: string, timing: Timing, calls = 1, note?: string) =>
    log.add(timingFigure(group, name, timing, "ns/call", calls, note));

  const direct = ns(
    "handler called directly (JSON.parse + call)",
    await timeFast(async () => do_not_optimize(await echo.handler(JSON.parse(raw), ctx)), cpuMs),
  );
  const valid = ns(
    "runtime.execute, valid arguments",
    await timeFast(async () => do_not_optimize(await runtime.execute("echo", raw, { callId: "c" })), cpuMs),
  );
  const invalid = ns(
    "runtime.execute, invalid arguments",
    await timeFast(async () => do_not_optimize(await runtime.execute("echo", bad, { callId: "c" })), cpuMs),
    1,
    "two failing fields, each reported with its path",
  );
  const repaired = ns(
    "runtime.execute, almost-JSON arguments repaired",
    await timeFast(async () => do_not_optimize(await runtime.execute("echo", '{"text":"hello","times":2,}', { callId: "c" })), cpuMs),
    1,
    "a trailing comma: JSON.parse fails, jsonrepair and the check that it invented nothing",
  );
  log.ratio(group, "execute (valid) / direct call", valid, direct);
  log.ratio(group, "execute (repaired) / execute (valid)", repaired, valid);
  log.ratio(group, "execute (invalid) / direct call", invalid, direct);

  const real = new ToolRuntime(realRegistry(workspace), { workspace });
  const calls = Object.entries(ARGUMENTS).map(([name, args]) => [name, args.invalid] as const);
  ns(
    "runtime.execute, the five real tools, invalid arguments",
    await timeFast(async () => {
      for (const [name, args] of calls) do_not_optimize(await real.execute(name, args));
    }, cpuMs),
    calls.length,
    "per call; refused before any handler runs",
  );
  await hookOverhead(workspace, mode, log);
}

/** A call through one before hook (a shell script that answers allow) against the same call without. */
async function hookOverhead(workspace: Workspace, mode: RunMode, log: FigureLog): Promise<void> {
  mode.progress("dispatch: a call through one before hook");
  const folder = await mkdtemp(join(tmpdir(), "plugboard-bench-hook-"));
  try {
    const script = join(folder, "allow.sh");
    await writeFile(script, `#!/bin/sh\ncat > /dev/null\necho '{"decision":"allow"}'\n`, { mode: 0o755 });
    const hook = { command: [script], label: "./allow.sh", timeoutMs: 10_000, cwd: folder };
    const hooked = new ToolRuntime(new ToolRegistry([echo]), { workspace, hooks: { before: [hook], after: [] } });
    const samples = mode.quick ? 30 : 200;
    const timing = await timeRuns(async () => do_not_optimize(await hooked.execute("echo", '{"text":"hello"}', { callId: "c" })), { samples, warmup: 3 });
    log.add(timingFigure(HOOK_GROUP, "runtime.execute through one before hook (sh script answering allow)", timing, "ms/call", 1e6, "spawn, JSON on stdin, answer read, group killed"));
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

async function validation(workspace: Workspace, cpuMs: number, mode: RunMode, log: FigureLog): Promise<void> {
  mode.progress("dispatch: TypeBox against valibot on the five schemas");
  const registry = realRegistry(workspace);
  const cases = registry.names().map((name) => {
    const registered = registry.get(name);
    const args = ARGUMENTS[name];
    if (!registered?.check || !args) throw new Error(`no benchmark arguments for ${name}, or not a TypeBox schema`);
    return { name, check: registered.check, twin: twinOf(name), ...args };
  });
  for (const { name, check, twin, valid, invalid } of cases) {
    const typebox = [valid, invalid].map((raw) => check.Check(JSON.parse(raw)));
    const valibot = [valid, invalid].map((raw) => v.safeParse(twin, JSON.parse(raw)).success);
    if (typebox.join() !== "true,false" || valibot.join() !== "true,false") {
      throw new Error(`${name}: TypeBox says ${typebox}, its valibot twin ${valibot}; both must accept the valid and refuse the invalid`);
    }
  }
  const group = `${VALIDATION_GROUP} (per call)`;
  // Each sample validates all five payloads; figures are per call.
  const ns = async (name: string, run: () => void, note?: string) =>
    log.add(timingFigure(group, name, await timeFast(run, cpuMs), "ns/call", cases.length, note));

  const parse = await ns("valid: JSON.parse only", () => {
    for (const c of cases) do_not_optimize(JSON.parse(c.valid));
  });
  const typebox = await ns("valid: JSON.parse + TypeBox compiled Check", () => {
    for (const c of cases) do_not_optimize(c.check.Check(JSON.parse(c.valid)));
  });
  const valibot = await ns("valid: JSON.parse + valibot safeParse", () => {
    for (const c of cases) do_not_optimize(v.safeParse(c.twin, JSON.parse(c.valid)));
  });
  const typeboxInvalid = await ns(
    "invalid: JSON.parse + TypeBox Check + Errors",
    () => {
      for (const c of cases) {
        const value = JSON.parse(c.invalid);
        if (!c.check.Check(value)) do_not_optimize([...c.check.Errors(value)]);
      }
    },
    "every error, as the runtime collects them",
  );
  const valibotInvalid = await ns(
    "invalid: JSON.parse + valibot safeParse",
    () => {
      for (const c of cases) do_not_optimize(v.safeParse(c.twin, JSON.parse(c.invalid)).issues);
    },
    "every issue",
  );
  log.ratio(group, "valid: TypeBox / JSON.parse", typebox, parse);
  log.ratio(group, "valid: valibot / JSON.parse", valibot, parse);
  log.ratio(group, "valid: TypeBox / valibot", typebox, valibot);
  log.ratio(group, "invalid: TypeBox / valibot", typeboxInvalid, valibotInvalid);
}
