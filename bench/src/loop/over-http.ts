/**
 * Suite 2 — the loop over HTTP: the real `openai` SDK against `@plugboard/testing`'s
 * scripted server on 127.0.0.1 (in this process), Plugboard against the hand-written loop.
 * Each sample gets a fresh server, so recorded requests never pile up.
 */
import { tmpdir } from "node:os";
import { Workspace } from "@plugboard/core";
import { type ScriptedModel, type ScriptedReply, startScriptedModel } from "@plugboard/testing";
import OpenAI from "openai";
import type { FigureLog } from "../harness/figures.ts";
import { timeInRounds, timeRunsWithSetup, timingFigure } from "../harness/measure.ts";
import type { RunMode } from "../harness/mode.ts";
import { runFloorLoop } from "./floor-loop.ts";
import { loopRuntime, runPlugboardLoop } from "./plugboard-loop.ts";
import { checkOutcome, conversation, type ScriptStep } from "./script.ts";

/** The group's name in every report. */
export const HTTP_GROUP = "Loop over HTTP";

/** Measures both loops over HTTP and records µs per step and their ratio. */
export async function httpLoop(mode: RunMode, log: FigureLog): Promise<void> {
  const steps = 200;
  const samples = mode.quick ? 3 : 5;
  const script = conversation(steps);
  const replies = script.map(scriptedReply);
  const runtime = loopRuntime(await Workspace.open(tmpdir()));
  let server: ScriptedModel | undefined;
  // Fresh server and client per sample; the previous server is closed outside the timing.
  const setup = async () => {
    await server?.close();
    server = await startScriptedModel(replies);
    return new OpenAI({ apiKey: "bench", baseURL: server.baseURL, maxRetries: 0 });
  };
  try {
    checkOutcome("the floor over HTTP", script, await runFloorLoop(await setup(), steps));
    checkOutcome("Plugboard over HTTP", script, await runPlugboardLoop(await setup(), runtime, steps));

    const group = `${HTTP_GROUP} (N = ${steps})`;
    mode.progress(`loop over HTTP: floor and Plugboard, interleaved (N = ${steps})`);
    const [floor, plugboard] = await timeInRounds(
      [
        (count) => timeRunsWithSetup(setup, (client) => runFloorLoop(client, steps), { samples: count }),
        (count) => timeRunsWithSetup(setup, (client) => runPlugboardLoop(client, runtime, steps), { samples: count }),
      ],
      { rounds: mode.quick ? 1 : 3, perRound: samples },
    );
    if (!floor || !plugboard) throw new Error("missing timings");
    const floorValue = log.add(
      timingFigure(group, "hand-written loop (floor)", floor, "µs/step", steps * 1e3, "openai SDK over HTTP to the scripted server"),
    );
    const plugboardValue = log.add(
      timingFigure(group, "Plugboard (runAgentLoop + ToolRuntime)", plugboard, "µs/step", steps * 1e3, "the same SDK, server and script"),
    );
    log.ratio(group, "Plugboard / floor", plugboardValue, floorValue, { op: "<=", limit: 1.05 });
  } finally {
    await server?.close();
  }
}

function scriptedReply(step: ScriptStep): ScriptedReply {
  if (step.kind === "answer") return { content: step.text };
  return { toolCalls: [{ id: step.id, name: step.name, arguments: step.arguments }] };
}
