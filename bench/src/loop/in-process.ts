/**
 * Suite 1 — loop overhead per step, in process: the same script and the same two tools
 * through Plugboard, the hand-written floor and the two peers, with no HTTP. Plugboard and
 * the floor use the real `openai` client over the same in-memory `fetch`; the peers use
 * their own in-memory model interfaces.
 */
import { tmpdir } from "node:os";
import { Workspace } from "@plugboard/core";
import OpenAI from "openai";
import type { FigureLog } from "../harness/figures.ts";
import { type Timing, timeInRounds, timeRuns, timeRunsWithSetup, timingFigure } from "../harness/measure.ts";
import type { RunMode } from "../harness/mode.ts";
import { agentsOutputs, runAgentsLoop, scriptedAgent } from "./agents-loop.ts";
import { runFloorLoop } from "./floor-loop.ts";
import { MemoryFetch } from "./memory-fetch.ts";
import { loopRuntime, runPlugboardLoop } from "./plugboard-loop.ts";
import { checkOutcome, conversation, type LoopOutcome } from "./script.ts";
import { encodeAll, requestBodies } from "./request-bodies.ts";
import { runVercelLoop, vercelModel, vercelResults } from "./vercel-loop.ts";

/** The group's name in every report. */
export const IN_PROCESS_GROUP = "Loop overhead, in process";

/** Measures the four loops and records µs per step and the ratios. */
export async function inProcessLoop(mode: RunMode, log: FigureLog): Promise<void> {
  const steps = mode.quick ? 200 : 1000;
  const rounds = mode.quick ? 1 : 2;
  const perRound = mode.quick ? 3 : 5;
  const samples = rounds * perRound;
  // Each sample of the Agents SDK takes seconds at N = 1000, so it gets fewer.
  const peerSamples = mode.quick ? 3 : 5;
  const script = conversation(steps);
  const transport = new MemoryFetch(script);
  const client = new OpenAI({ apiKey: "bench", baseURL: "http://in-memory.invalid/v1", fetch: transport.fetch, maxRetries: 0 });
  const runtime = loopRuntime(await Workspace.open(tmpdir()));
  const results = vercelResults(script);
  const outputs = agentsOutputs(script);

  const checked = (label: string, outcome: LoopOutcome) => checkOutcome(label, script, outcome);
  const rewound = <T>(run: () => Promise<T>) => () => {
    transport.rewind();
    return run();
  };
  checked("the floor", await rewound(() => runFloorLoop(client, steps))());
  checked("Plugboard", await rewound(() => runPlugboardLoop(client, runtime, steps))());
  checked("the Vercel AI SDK", await runVercelLoop(vercelModel(results), steps));
  checked("the OpenAI Agents SDK", await runAgentsLoop(scriptedAgent(outputs), steps));

  const group = `${IN_PROCESS_GROUP} (N = ${steps})`;
  const perStep = (name: string, timing: Timing, note: string) =>
    log.add(timingFigure(group, name, timing, "µs/step", steps * 1e3, note));

  // Taken in alternating rounds: measured one after the other, whichever runs first pays
  // for warming up the shared openai SDK paths, which is enough to tilt a 1.5× comparison.
  mode.progress(`loop in process: floor, Plugboard and the Vercel AI SDK in rounds (N = ${steps})`);
  const [floorTiming, plugboardTiming, vercelTiming] = await timeInRounds(
    [
      (count) => timeRuns(rewound(() => runFloorLoop(client, steps)), { samples: count }),
      (count) => timeRuns(rewound(() => runPlugboardLoop(client, runtime, steps)), { samples: count }),
      (count) => timeRunsWithSetup(() => vercelModel(results), (model) => runVercelLoop(model, steps), { samples: count }),
    ],
    { rounds, perRound },
  );
  if (!floorTiming || !plugboardTiming || !vercelTiming) throw new Error("missing timings");
  const floor = perStep("hand-written loop (floor)", floorTiming, "openai SDK + in-memory fetch; JSON.parse and call, no validation");
  const plugboard = perStep(
    "Plugboard (runAgentLoop + ToolRuntime)",
    plugboardTiming,
    "openai SDK + the same in-memory fetch; TypeBox-validated dispatch",
  );
  const vercel = perStep("Vercel AI SDK (generateText)", vercelTiming, "ai/test MockLanguageModelV4; zod input schemas");
  mode.progress("loop in process: OpenAI Agents SDK");
  const agents = perStep(
    "OpenAI Agents SDK (run)",
    await timeRunsWithSetup(() => scriptedAgent(outputs), (agent) => runAgentsLoop(agent, steps), { samples: peerSamples }),
    "scripted Model implementation; zod parameters; tracing off",
  );

  mode.progress("loop in process: request encoding alone");
  const bodies = requestBodies(script);
  perStep(
    "request bodies alone: plain JSON.stringify",
    await timeRuns(() => encodeAll(bodies, false), { samples }),
    "the N request bodies of a run, encoded without a loop",
  );
  perStep(
    "request bodies alone: JSON.stringify with a replacer",
    await timeRuns(() => encodeAll(bodies, true), { samples }),
    "as the openai SDK's chat.completions.create encodes them",
  );

  log.ratio(group, "Plugboard / floor", plugboard, floor, { op: "<=", limit: 1.5 });
  log.ratio(group, "Vercel AI SDK / floor", vercel, floor);
  log.ratio(group, "OpenAI Agents SDK / floor", agents, floor);
  log.ratio(group, "Plugboard / Vercel AI SDK", plugboard, vercel, { op: "<", limit: 1 });
  log.ratio(group, "Plugboard / OpenAI Agents SDK", plugboard, agents, { op: "<", limit: 1 });
}
