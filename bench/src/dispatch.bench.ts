/**
 * What the runtime costs per tool call: `runtime.execute` (lookup, JSON parse, compiled
 * TypeBox check, context) against calling the same handler directly with parsed arguments.
 */
import { tmpdir } from "node:os";
import { defineTool, textResult, ToolRegistry, ToolRuntime, Workspace } from "@plugboard/core";
import { Type } from "@sinclair/typebox";
import { bench, do_not_optimize, run, summary } from "mitata";

const echo = defineTool({
  name: "echo",
  description: "Repeat the text.",
  parameters: Type.Object({ text: Type.String(), times: Type.Optional(Type.Integer({ minimum: 1 })) }),
  handler: async ({ text }) => textResult(text),
});

const runtime = new ToolRuntime(new ToolRegistry([echo]), { workspace: await Workspace.open(tmpdir()) });
const raw = '{"text":"hello","times":2}';
const ctx = { workspace: runtime.workspace, signal: new AbortController().signal, callId: "c", options: undefined, logger: console };

summary(() => {
  bench("handler called directly (JSON.parse + call)", async () => {
    do_not_optimize(await echo.handler(JSON.parse(raw), ctx));
  }).baseline(true);
  bench("runtime.execute, valid arguments", async () => {
    do_not_optimize(await runtime.execute("echo", raw, { callId: "c" }));
  });
  bench("runtime.execute, invalid arguments", async () => {
    do_not_optimize(await runtime.execute("echo", '{"text":1,"extra":true}', { callId: "c" }));
  });
});

await run({ colors: process.stdout.isTTY === true });
