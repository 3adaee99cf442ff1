/**
 * Suite 3 — parallel tool calls: one model response proposing 8 independent read-only calls
 * of a tool that waits 50 ms (a stand-in for a slow read: a network fetch, a big file),
 * against a response proposing one such call, each through the whole loop over HTTP to the
 * scripted server; then two `edit_file` calls on the same file in one response (the second
 * edit needs the first's text) against two on different files, with the real plugin.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { defineTool, textResult, Type, Workspace, ToolRegistry } from "@plugboard/core";
import { runAgentLoop } from "@plugboard/agent";
import { ToolRuntime } from "@plugboard/runtime";
import { type ScriptedModel, type ScriptedReply, startScriptedModel } from "@plugboard/testing";
import OpenAI from "openai";
import { realTools } from "../dispatch/real-tools.ts";
import type { FigureLog } from "../harness/figures.ts";
import { summarize, timingFigure } from "../harness/measure.ts";
import type { RunMode } from "../harness/mode.ts";
import { withTempDir } from "../harness/temp.ts";

/** The group's name in every report. */
export const PARALLEL_GROUP = "Parallel tool calls";

/** How long one slow read takes. */
export const LATENCY_MS = 50;
/** How many reads the wide response proposes. */
export const WIDTH = 8;

/** A read-only tool that takes `LATENCY_MS` (bench only). */
const slowRead = defineTool({
  name: "slow_read",
  description: "Read a record (takes 50 ms).",
  parameters: Type.Object({ key: Type.String() }),
  concurrency: "read-only",
  handler: async ({ key }, ctx) => {
    await Bun.sleep(LATENCY_MS);
    ctx.signal.throwIfAborted();
    return textResult(`record ${key}`);
  },
});

/** Measures both comparisons and records their ratios. */
export async function parallelCalls(mode: RunMode, log: FigureLog): Promise<void> {
  const samples = mode.quick ? 5 : 15;
  await withTempDir("parallel", async (folder) => {
    const workspace = await Workspace.open(folder);
    mode.progress(`parallel calls: ${WIDTH} reads of ${LATENCY_MS} ms in one response, and one read, × ${samples}`);
    const reads = new ToolRuntime(new ToolRegistry([slowRead]), { workspace });
    const readCalls = (count: number) =>
      Array.from({ length: count }, (_, index) => ({ id: `call_${index + 1}`, name: "slow_read", arguments: JSON.stringify({ key: `k${index}` }) }));
    const [wide = [], one = []] = await alternate(samples, [
      () => turn(reads, readCalls(WIDTH), (messages) => expectResults(messages, WIDTH)),
      () => turn(reads, readCalls(1), (messages) => expectResults(messages, 1)),
    ]);
    const wideValue = log.add(timingFigure(PARALLEL_GROUP, `${WIDTH} reads of ${LATENCY_MS} ms in one response`, summarize(wide), "ms", 1e6, "the whole turn over HTTP: two model requests, the calls between them"));
    const oneValue = log.add(timingFigure(PARALLEL_GROUP, `1 read of ${LATENCY_MS} ms in one response`, summarize(one), "ms", 1e6, "the same turn with one call"));
    log.ratio(PARALLEL_GROUP, `${WIDTH} reads / 1 read`, wideValue, oneValue, { op: "<=", limit: 1.5 }, `in series they would take ${WIDTH}×${LATENCY_MS} ms`);

    mode.progress(`parallel calls: two edits of one file, and of two files, × ${samples}`);
    const edits = new ToolRuntime(new ToolRegistry(realTools(workspace)), { workspace });
    const [a, b] = [join(folder, "a.txt"), join(folder, "b.txt")];
    let inOrder = 0;
    let turns = 0;
    const [same = [], different = []] = await alternate(samples, [
      async () => {
        await writeFile(a, "version 1\n");
        // The second edit matches only the first's result: run out of order, it finds nothing to replace.
        const calls = [edit("a.txt", "version 1", "version 2", 1), edit("a.txt", "version 2", "version 3", 2)];
        const elapsed = await turn(edits, calls, (messages) => expectResults(messages, 2));
        turns++;
        if ((await readFile(a, "utf8")) === "version 3\n") inOrder++;
        return elapsed;
      },
      async () => {
        await Promise.all([writeFile(a, "version 1\n"), writeFile(b, "version 1\n")]);
        return turn(edits, [edit("a.txt", "version 1", "version 2", 1), edit("b.txt", "version 1", "version 2", 2)], (messages) =>
          expectResults(messages, 2),
        );
      },
    ]);
    log.add(timingFigure(PARALLEL_GROUP, "two edit_file calls on one file", summarize(same), "ms", 1e6, "the second edits the first's result: in order"));
    log.add(timingFigure(PARALLEL_GROUP, "two edit_file calls on two files", summarize(different), "ms", 1e6, "may overlap"));
    log.ratio(PARALLEL_GROUP, "turns whose two edits of one file applied in order / turns", inOrder, turns, { op: ">=", limit: 1 }, `${inOrder} of ${turns} turns`);
  });
}

/** One `edit_file` call replacing `from` with `to` in `path`. */
function edit(path: string, from: string, to: string, index: number) {
  return { id: `call_${index}`, name: "edit_file", arguments: JSON.stringify({ path, old_text: from, new_text: to }) };
}

type Call = { readonly id: string; readonly name: string; readonly arguments: string };

/**
 * One turn through `runAgentLoop` over HTTP: the model proposes `calls`, then answers.
 * Returns the turn's wall time in ns; the server is started and closed outside it.
 */
async function turn(runtime: ToolRuntime, calls: readonly Call[], check: (messages: readonly unknown[]) => void): Promise<number> {
  const replies: ScriptedReply[] = [{ toolCalls: calls.map((call) => ({ ...call })) }, { content: "Done." }];
  const server: ScriptedModel = await startScriptedModel(replies);
  try {
    const client = new OpenAI({ apiKey: "bench", baseURL: server.baseURL, maxRetries: 0 });
    const messages: Parameters<typeof runAgentLoop>[0]["messages"] = [{ role: "user", content: "Go." }];
    const started = Bun.nanoseconds();
    const result = await runAgentLoop({ messages, runtime, client, model: "bench-model", maxSteps: 2 });
    const elapsed = Bun.nanoseconds() - started;
    if (result.status !== "answered") throw new Error(`the turn ended ${result.status}`);
    check(messages);
    return elapsed;
  } finally {
    await server.close();
  }
}

/** Throws unless the turn answered `count` calls, none with an error. */
function expectResults(messages: readonly unknown[], count: number): void {
  const results = messages.filter((message): message is { role: "tool"; content: string } => (message as { role?: string }).role === "tool");
  const errors = results.filter((result) => result.content.startsWith("Error:"));
  if (results.length !== count || errors.length > 0) throw new Error(`expected ${count} results without errors, got ${JSON.stringify(results)}`);
}

/** Runs each contender `samples` times, in turn, after one untimed run each; ns per run. */
async function alternate(samples: number, contenders: readonly (() => Promise<number>)[]): Promise<number[][]> {
  for (const run of contenders) await run();
  const times = contenders.map((): number[] => []);
  for (let sample = 0; sample < samples; sample++) {
    for (const [index, run] of contenders.entries()) times[index]?.push(await run());
  }
  return times;
}
