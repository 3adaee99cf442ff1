/**
 * Suite 2 — the loop over HTTP: every loop against `@plugboard/testing`'s scripted server on
 * 127.0.0.1 (in this process), with the same script: Plugboard and the hand-written floor on
 * the `openai` SDK, the floor on plain `fetch`, the Vercel AI SDK through its OpenAI-compatible
 * provider and the OpenAI Agents SDK through its chat completions model. Each sample gets a
 * fresh server, so recorded requests never pile up.
 */
import { tmpdir } from "node:os";
import { Workspace } from "@plugboard/core";
import { type ScriptedModel, type ScriptedReply, startScriptedModel } from "@plugboard/testing";
import OpenAI from "openai";
import type { FigureLog } from "../harness/figures.ts";
import { type Sampler, summarize, type Timing, timeInRounds, timingFigure } from "../harness/measure.ts";
import type { RunMode } from "../harness/mode.ts";
import { httpAgent, runAgentsLoop } from "./agents-loop.ts";
import { runFetchFloorLoop } from "./fetch-floor-loop.ts";
import { runFloorLoop } from "./floor-loop.ts";
import { loopRuntime, runPlugboardLoop } from "./plugboard-loop.ts";
import { checkOutcome, conversation, type LoopOutcome, type ScriptStep } from "./script.ts";
import { runVercelLoop, vercelHttpModel } from "./vercel-loop.ts";

/** The groups' names in every report. */
export const HTTP_GROUP = "Loop over HTTP";
export const HTTP_CPU_GROUP = "Loop over HTTP, CPU time";

/** The loops, by the names the report uses. */
export const HTTP_LOOPS = {
  floor: "hand-written loop on the openai SDK (floor)",
  fetchFloor: "hand-written loop on fetch",
  plugboard: "Plugboard (runAgentLoop + ToolRuntime)",
  vercel: "Vercel AI SDK (generateText)",
  agents: "OpenAI Agents SDK (run)",
} as const;

/** Measures the loops over HTTP and records µs per step and the ratios. */
export async function httpLoop(mode: RunMode, log: FigureLog): Promise<void> {
  const steps = 200;
  const perRound = mode.quick ? 2 : 5;
  const rounds = mode.quick ? 2 : 3;
  const script = conversation(steps);
  const replies = script.map(scriptedReply);
  const runtime = loopRuntime(await Workspace.open(tmpdir()));
  let server: ScriptedModel | undefined;
  // Fresh server per sample; the previous one is closed outside the timing.
  const fresh = async () => {
    await server?.close();
    server = await startScriptedModel(replies);
    return server.baseURL;
  };
  const client = (baseURL: string) => new OpenAI({ apiKey: "bench", baseURL, maxRetries: 0 });
  const loops: Record<keyof typeof HTTP_LOOPS, { setup: () => Promise<unknown>; run: (input: never) => Promise<LoopOutcome> }> = {
    floor: { setup: async () => client(await fresh()), run: (openai: OpenAI) => runFloorLoop(openai, steps) },
    fetchFloor: { setup: fresh, run: (baseURL: string) => runFetchFloorLoop(baseURL, steps) },
    plugboard: { setup: async () => client(await fresh()), run: (openai: OpenAI) => runPlugboardLoop(openai, runtime, steps) },
    vercel: { setup: async () => vercelHttpModel(await fresh()), run: (model: ReturnType<typeof vercelHttpModel>) => runVercelLoop(model, steps) },
    agents: { setup: async () => httpAgent(client(await fresh())), run: (agent: ReturnType<typeof httpAgent>) => runAgentsLoop(agent, steps) },
  };
  const keys = Object.keys(HTTP_LOOPS) as (keyof typeof HTTP_LOOPS)[];
  try {
    for (const key of keys) {
      const loop = loops[key];
      checkOutcome(`${HTTP_LOOPS[key]} over HTTP`, script, await loop.run((await loop.setup()) as never));
    }
    const group = `${HTTP_GROUP} (N = ${steps})`;
    const cpuGroup = `${HTTP_CPU_GROUP} (N = ${steps})`;
    mode.progress(`loop over HTTP: ${keys.length} loops in rounds (N = ${steps})`);
    // Wall and CPU time of each sample (this process: the loop and the server, alike for every loop).
    const cpuSamples = keys.map((): number[] => []);
    const samplers: Sampler[] = keys.map((key, index) => async (count) => {
      const loop = loops[key];
      const wall: number[] = [];
      for (let sample = 0; sample < count; sample++) {
        const input = (await loop.setup()) as never;
        const cpu = process.cpuUsage();
        const started = Bun.nanoseconds();
        await loop.run(input);
        wall.push(Bun.nanoseconds() - started);
        const used = process.cpuUsage(cpu);
        cpuSamples[index]?.push((used.user + used.system) * 1e3);
      }
      return summarize(wall);
    });
    const timings = await timeInRounds(samplers, { rounds, perRound });
    const record = (groupName: string, timing: (index: number) => Timing | undefined) => {
      const value = {} as Record<keyof typeof HTTP_LOOPS, number>;
      for (const [index, key] of keys.entries()) {
        const measured = timing(index);
        if (!measured) throw new Error(`no timing for ${key}`);
        value[key] = log.add(timingFigure(groupName, HTTP_LOOPS[key], measured, "µs/step", steps * 1e3, NOTES[key]));
      }
      return value;
    };
    const wall = record(group, (index) => timings[index]);
    ratios(log, group, wall, true);
    const cpu = record(cpuGroup, (index) => summarize(cpuSamples[index] ?? []));
    ratios(log, cpuGroup, cpu, false);
  } finally {
    await server?.close();
  }
}

const NOTES: Record<keyof typeof HTTP_LOOPS, string> = {
  floor: "openai SDK (chat.completions.create) over HTTP",
  fetchFloor: "JSON.stringify + fetch + json(); no SDK",
  plugboard: "the openai SDK, the same server and script",
  vercel: "@ai-sdk/openai-compatible chat model; zod input schemas",
  agents: "OpenAIChatCompletionsModel on the openai SDK; zod parameters; tracing off",
};

/**
 * A loop's per-step overhead is its time per step beyond the floor on fetch, which does
 * only what any loop must (encode, send, parse, call). With `targets`, Plugboard's must be
 * below each peer's and Plugboard within 1.05× of the hand-written loop on the same SDK.
 */
function ratios(log: FigureLog, group: string, value: Record<keyof typeof HTTP_LOOPS, number>, targets: boolean): void {
  const below = targets ? { op: "<" as const, limit: 1 } : undefined;
  const overhead = (key: keyof typeof HTTP_LOOPS) => value[key] - value.fetchFloor;
  for (const key of ["plugboard", "floor", "vercel", "agents"] as const) {
    log.add({ group, name: `${HTTP_LOOPS[key]}: overhead per step`, value: overhead(key), unit: "µs/step", note: "beyond the floor on fetch" });
  }
  log.ratio(group, "Plugboard / floor on the openai SDK", value.plugboard, value.floor, targets ? { op: "<=", limit: 1.05 } : undefined);
  log.ratio(group, "Plugboard / floor on fetch", value.plugboard, value.fetchFloor);
  log.ratio(group, "overhead per step: Plugboard / Vercel AI SDK", overhead("plugboard"), overhead("vercel"), below);
  log.ratio(group, "overhead per step: Plugboard / OpenAI Agents SDK", overhead("plugboard"), overhead("agents"), below);
  log.ratio(group, "overhead per step: Plugboard / floor on the openai SDK", overhead("plugboard"), overhead("floor"), below);
}

function scriptedReply(step: ScriptStep): ScriptedReply {
  if (step.kind === "answer") return { content: step.text };
  return { toolCalls: [{ id: step.id, name: step.name, arguments: step.arguments }] };
}
