/**
 * `plugboard call TOOL [JSON]`: one tool call through the app's runtime, without a model. The
 * result is printed with its control characters written out (`\x1b`), as a person reads it;
 * `--json` carries it exactly.
 */
import { visible } from "@plugboard/core/internal";
import { trace } from "@plugboard/core/trace";
import type { ParsedArgs } from "../args.ts";
import { abortOnInterrupt } from "../interrupt.ts";
import type { Io } from "../io.ts";
import { approveAll } from "@plugboard/runtime";
import { createElicitation } from "../elicitation.ts";
import { loadApp } from "../load-app.ts";
import { jsonLine } from "../output.ts";

/** Executes the call and prints its result; 1 for an error result, 130 / 143 / 129 when interrupted by SIGINT / SIGTERM / SIGHUP. */
export async function callCommand(parsed: ParsedArgs, io: Io): Promise<number> {
  const [tool = "", json = "{}"] = parsed.args;
  // The tool's host (when it runs confined) starts while the rest of the app is built.
  const elicitation = createElicitation(io);
  const app = await loadApp(parsed, io, { announceWorkspace: true, warm: [tool], elicit: elicitation.elicit });
  using interrupt = abortOnInterrupt();
  using _asking = elicitation.during({ pause() {}, resume() {} }, interrupt.signal);
  trace("call: executing");
  // The person's own call: no model reads its result, so its secrets are left in.
  const result = await app.runtime.execute(tool, json, { callId: "direct", signal: interrupt.signal, approve: approveAll, redact: false });
  trace("call: result");
  // Printed once, without Node's stdout stream: making it costs a one-shot call more than its printing.
  if (parsed.flags.json) {
    await io.print(jsonLine({ type: "tool_result", id: "direct", is_error: result.isError, content: result.content }));
  } else {
    const shown = visible(result.content);
    await io.print(shown.endsWith("\n") ? shown : `${shown}\n`);
  }
  return interrupt.exitCode(result.isError ? 1 : 0);
}
