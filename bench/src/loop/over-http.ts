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
import { type Sampler, timeInRounds, timeRunsWithSetup, timingFigure } from "../harness/measure.ts";
import type { RunMode } from "../harness/mode.ts";
import { httpAgent, runAgentsLoop } from "./agents-loop.ts";
import { runFetchFloorLoop } from "./fetch-floor-loop.ts";
import { runFloorLoop } from "./floor-loop.ts";
import { loopRuntime, runPlugboardLoop } from "./plugboard-loop.ts";
import { checkOutcome, conversation, type LoopOutcome, type ScriptStep } from "./script.ts";
import { runVercelLoop, vercelHttpModel } from "./vercel-loop.ts";

/** The group's name in every report. */
export const HTTP_GROUP = "Loop over HTTP";

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
    mode.progress(`loop over HTTP: ${keys.length} loops in rounds (N = ${steps})`);
    const samplers: Sampler[] = keys.map((key) => {
      const loop = loops[key];
      return (count) => timeRunsWithSetup(loop.setup, (input) => loop.run(input as never), { samples: count });
    });
    const timings = await timeInRounds(samplers, { rounds, perRound });
    const value: Record<string, number> = {};
    for (const [index, key] of keys.entries()) {
      const timing = timings[index];
      if (!timing) throw new Error(`no timing for ${key}`);
      value[key] = log.add(timingFigure(group, HTTP_LOOPS[key], timing, "µs/step", steps * 1e3, NOTES[key]));
    }
    const ratio = (name: string, a: keyof typeof HTTP_LOOPS, b: keyof typeof HTTP_LOOPS, limit?: number) =>
      log.ratio(group, name, value[a] ?? Number.NaN, value[b] ?? Number.NaN, limit === undefined ? undefined : { op: "<", limit });
    ratio("Plugboard / floor on the openai SDK", "plugboard", "floor");
    ratio("Plugboard / floor on fetch", "plugboard", "fetchFloor", 1);
    ratio("Plugboard / Vercel AI SDK", "plugboard", "vercel", 1);
    ratio("Plugboard / OpenAI Agents SDK", "plugboard", "agents", 1);
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

function scriptedReply(step: ScriptStep): ScriptedReply {
  if (step.kind === "answer") return { content: step.text };
  return { toolCalls: [{ id: step.id, name: step.name, arguments: step.arguments }] };
}
