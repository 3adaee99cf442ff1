/**
 * Governance — what the runtime's own steps add to a call: `runtime.execute` of a tool that
 * returns 50 kB, without the steps (the twin), with the redaction step (the app's secrets and
 * the key formats taken out of the result), and with redaction and the session's taint (the
 * tool an untrusted source in a tainted session: each call judged against the taint and its
 * result's provenance recorded), sampled in turns so that load hits all alike; and the
 * redaction step alone on the same text.
 */
import { readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineTool, textResult, ToolRegistry, Workspace } from "@plugboard/core";
import { type AuditRecord, type ExecuteOptions, Redactor, type Secret, ToolRuntime } from "@plugboard/runtime";
import { Type } from "@sinclair/typebox";
import { do_not_optimize } from "mitata";
import { type FigureLog, meets, type Target } from "../harness/figures.ts";
import { type Timing, timeFast, timeInRounds, timeRuns, timingFigure } from "../harness/measure.ts";
import type { RunMode } from "../harness/mode.ts";
import { REPO_ROOT } from "../harness/paths.ts";

/** The group's name in every report. */
export const GOVERNANCE_GROUP = "Governance, a call with a 50 kB result";

/** The most taint and redaction together may add to a call. */
export const GOVERNANCE_TARGET_MS = 0.2;

/** The bytes of the result. */
const RESULT_BYTES = 50_000;

/** An app's secrets, as bootstrap hands them in: the model key, three `.env` values, an MCP header's. */
const SECRETS: readonly Secret[] = [
  { name: "OPENAI_API_KEY", value: `sk-proj-${"Ab3dE5fG7h".repeat(5)}` },
  { name: "DB_PASSWORD", value: "correct-horse-battery-staple" },
  { name: "STRIPE_SECRET", value: "whsec_0123456789abcdefghij" },
  { name: "SESSION_TOKEN", value: "tok-9f8e7d6c5b4a39281706" },
  { name: "remote Authorization header", value: "Bearer abcdefgh12345678abcdefgh" },
];

/**
 * 50 kB of what a tool returns: the runtime's own sources, as read_file would return them,
 * with two secrets among them (one of the app's, one key format), so the replacing is measured too.
 */
function resultText(): string {
  const folder = join(REPO_ROOT, "packages/runtime/src");
  const sources = readdirSync(folder).filter((name) => name.endsWith(".ts") && !name.endsWith(".test.ts")).sort();
  // ASCII only, so that characters are bytes.
  const text = sources.map((name) => readFileSync(join(folder, name), "utf8")).join("\n").replace(/[^\t\n\r -~]/g, "?");
  const middle = RESULT_BYTES / 2;
  const secrets = `\nDB_PASSWORD=correct-horse-battery-staple\nAWS_ACCESS_KEY_ID=AKIA${"QWERTYUIOP234567"}\n`;
  return `${text.slice(0, middle)}${secrets}${text.slice(middle, RESULT_BYTES - secrets.length)}`;
}

/** Measures the call with and without redaction, and the step alone. */
export async function governance(mode: RunMode, log: FigureLog): Promise<void> {
  const text = resultText();
  if (Buffer.byteLength(text) !== RESULT_BYTES) throw new Error(`the result is ${Buffer.byteLength(text)} bytes, not ${RESULT_BYTES}`);
  const tool = defineTool({ name: "read", description: "Returns 50 kB.", parameters: Type.Object({}), handler: async () => textResult(text) });
  const workspace = await Workspace.open(tmpdir());
  // Every runtime records each call, as an app with an audit log does: the taint adds its fields to the record.
  const audit = (record: AuditRecord) => do_not_optimize(record);
  const plain = new ToolRuntime(new ToolRegistry([tool]), { workspace, audit, secrets: SECRETS });
  const followed = new ToolRuntime(new ToolRegistry([tool]), { workspace, audit, secrets: SECRETS, taint: { untrusted: ["read"], sendOut: ["post"] } });
  // Tainted from the start; only a way out (another tool) would be asked about: this call runs, judged and recorded.
  followed.restoreTaint({ by: "read" });
  const redacted = await plain.execute("read", "{}");
  if (redacted.redactions !== 2 || (await plain.execute("read", "{}", { redact: false })).content !== text) throw new Error(`expected 2 redactions and the twin's result whole, got ${redacted.redactions}`);
  const both = await followed.execute("read", "{}");
  if (both.redactions !== 2 || both.isError) throw new Error("the tainted session's call did not run with its result redacted");

  mode.progress("governance: runtime.execute of a 50 kB result, without the steps, with redaction, with redaction and taint, in turns");
  const calls = (runtime: ToolRuntime, options: ExecuteOptions) => (samples: number) => timeRuns(async () => do_not_optimize(await runtime.execute("read", "{}", options)), { samples, warmup: 50 });
  const timings = await timeInRounds([calls(plain, { callId: "c", redact: false }), calls(plain, { callId: "c" }), calls(followed, { callId: "c" })], {
    rounds: mode.quick ? 3 : 10,
    perRound: mode.quick ? 200 : 1000,
  });
  const [without, redacting, tainted] = timings;
  if (without === undefined || redacting === undefined || tainted === undefined) return;
  const ms = (name: string, timing: Timing, note?: string) => log.add(timingFigure(GOVERNANCE_GROUP, name, timing, "ms/call", 1e6, note));
  const off = ms("runtime.execute, redaction off, no taint (the twin)", without, "the same secrets, the call's redact: false");
  const on = ms("runtime.execute, redaction on", redacting, "5 app secrets and the 10 key formats; 2 found and replaced");
  const all = ms("runtime.execute, redaction on, an untrusted source in a tainted session", tainted, "as above, the taint judged and the provenance recorded");
  log.add({ group: GOVERNANCE_GROUP, name: "added by redaction (medians' difference)", value: on - off, unit: "ms/call" });
  const added = all - off;
  const target: Target = { op: "<=", limit: GOVERNANCE_TARGET_MS };
  log.add({ group: GOVERNANCE_GROUP, name: "added by taint and redaction (medians' difference)", value: added, unit: "ms/call", target, met: meets(added, target) });

  mode.progress("governance: the redaction step alone on the same 50 kB");
  const redactor = new Redactor(SECRETS);
  log.add(timingFigure(GOVERNANCE_GROUP, "the redaction step alone", await timeFast(() => do_not_optimize(redactor.redact(text)), mode.quick ? 200 : 1000), "ms/call", 1e6, "Redactor.redact on the 50 kB text"));
}
