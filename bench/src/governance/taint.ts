/**
 * The session's taint: what its bookkeeping adds to a call. The same tool, returning a 50 kB
 * result, through a runtime that follows no tools and through one that names it an untrusted
 * source and another tool a way out (the session is tainted from the first call on), so each
 * call looks its tool up, judges it against the session's taint and records the result's
 * provenance for the audit.
 */
import { tmpdir } from "node:os";
import { defineTool, textResult, ToolRegistry, Workspace } from "@plugboard/core";
import { type AuditRecord, ToolRuntime } from "@plugboard/runtime";
import { Type } from "@sinclair/typebox";
import { do_not_optimize } from "mitata";
import type { FigureLog } from "../harness/figures.ts";
import { type Timing, timeFast, timingFigure } from "../harness/measure.ts";
import type { RunMode } from "../harness/mode.ts";

/** The group's name in every report. */
export const TAINT_GROUP = "The session's taint, a call with a 50 kB result";

/** The most taint and redaction together may add to a call (the redaction's share is measured beside it). */
const TARGET_MS = 0.2;

const PAGE = "<p>a page from outside</p>\n".repeat(Math.ceil(50_000 / 26)).slice(0, 50_000);

const fetchPage = defineTool({
  name: "fetch_page",
  description: "Fetch a page.",
  parameters: Type.Object({ url: Type.String() }),
  handler: async () => textResult(PAGE),
});

/** Measures a call without taint and with it, and the difference. */
export async function taint(mode: RunMode, log: FigureLog): Promise<void> {
  const cpuMs = mode.quick ? 150 : 700;
  const workspace = await Workspace.open(tmpdir());
  // Both record each call, as an app with an audit log does: the taint adds its fields to the record.
  const audit = (record: AuditRecord) => do_not_optimize(record);
  const runtime = (followed: boolean) =>
    new ToolRuntime(new ToolRegistry([fetchPage]), {
      workspace,
      audit,
      ...(followed ? { taint: { untrusted: ["fetch_page"], sendOut: ["fetch_page", "post"] } } : {}),
    });
  const plain = runtime(false);
  const followed = runtime(true);
  const raw = '{"url":"https://example.com"}';
  // Calls of a way out are asked about once tainted: here the tool only reads, so both runtimes run it.
  followed.restoreTaint({ by: "fetch_page" });
  const call = (on: ToolRuntime) => async () => do_not_optimize(await on.execute("fetch_page", raw, { callId: "c" }));
  mode.progress("taint: a call with a 50 kB result, without and with the taint followed");
  // Both warmed first (the JIT sees each hot), then in turns, the order turning every round, so
  // load on the machine hits both alike; each side's fastest round is kept.
  await timeFast(call(plain), cpuMs / 4);
  await timeFast(call(followed), cpuMs / 4);
  const rounds: (readonly [Timing, Timing])[] = [];
  for (let round = 0; round < 4; round++) {
    if (round % 2 === 0) rounds.push([await timeFast(call(plain), cpuMs / 4), await timeFast(call(followed), cpuMs / 4)]);
    else {
      const second = await timeFast(call(followed), cpuMs / 4);
      rounds.push([await timeFast(call(plain), cpuMs / 4), second]);
    }
  }
  const faster = (side: 0 | 1) => rounds.map((pair) => pair[side]).reduce((best, timing) => (timing.p50 < best.p50 ? timing : best));
  const [without, withTaint] = [faster(0), faster(1)];
  const a = log.add(timingFigure(TAINT_GROUP, "runtime.execute, no tool followed", without, "ms", 1e6, "the fastest round's median"));
  const b = log.add(timingFigure(TAINT_GROUP, "runtime.execute, an untrusted source in a tainted session", withTaint, "ms", 1e6, "the fastest round's median"));
  const added = b - a;
  log.add({ group: TAINT_GROUP, name: "added per call by the taint", value: added, unit: "ms", target: { op: "<=", limit: TARGET_MS }, met: added <= TARGET_MS, note: "with the redaction's share, ≤ 0.2 ms together" });
}
