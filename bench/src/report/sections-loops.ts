/**
 * BENCHMARKS.md sections 1, 2 and 4 (the loops and dispatch): what exactly is measured, and a
 * reading of the figures that says, for a missed target, by how much, why, and what would
 * close it.
 */
import { DISPATCH_GROUP, HOOK_GROUP, VALIDATION_GROUP } from "../dispatch/dispatch.ts";
import { formatNumber as n } from "../harness/format.ts";
import { IN_PROCESS_GROUP } from "../loop/in-process.ts";
import { HTTP_CPU_GROUP, HTTP_GROUP, HTTP_LOOPS } from "../loop/over-http.ts";
import type { Environment } from "./environment.ts";
import { type FigureIndex, percentOver } from "./lookup.ts";
import type { Section } from "./section.ts";
import { parallelSection } from "./sections-parallel.ts";

const inProcess: Section = {
  title: "1. Loop overhead per step, in process",
  groups: [IN_PROCESS_GROUP],
  measured: (env: Environment) =>
    [
      "One sample is one whole conversation of N model requests: requests 1 … N−1 each return one tool call",
      "(alternating `echo {text}` and `add {a, b}`, the same two tools everywhere), request N returns the answer.",
      "µs/step is the sample's wall time divided by N; the history grows, so request k carries 2k−1 messages.",
      `**Plugboard**: \`runAgentLoop\` + \`ToolRuntime\` (TypeBox-checked dispatch) on the \`openai\` client (${env.packages.openai})`,
      "whose `fetch` option answers from memory with pre-serialized chat completions (the request body is not read).",
      "**Floor**: a hand-written loop on the same client and `fetch`: `JSON.parse` and a direct call, no validation, no events;",
      "it keeps only role, content and tool calls of each assistant message, as Plugboard does.",
      `**Vercel AI SDK** (\`ai\` ${env.packages.ai}): \`generateText\` with \`MockLanguageModelV4\` from \`ai/test\`,`,
      "zod input schemas, `stopWhen: stepCountIs(N)`.",
      `**OpenAI Agents SDK** (\`@openai/agents\` ${env.packages["@openai/agents"]}): \`run(agent, prompt, { maxTurns: N })\``,
      "with a minimal scripted `Model` (it records nothing) and zod parameters; tracing is disabled.",
      "Each loop's outcome (requests, tool results, last result, answer) is checked against the script before timing.",
      "The two *request bodies alone* rows encode the N request bodies of a run without any loop, to show what the",
      "growing history costs on the openai SDK. The Agents SDK gets fewer samples (each takes seconds at N = 1000).",
    ].join(" "),
  reading: (index: FigureIndex) => {
    const g = IN_PROCESS_GROUP;
    const floor = index.value(g, "hand-written loop");
    const plugboard = index.value(g, "Plugboard (");
    const vercel = index.value(g, "Vercel AI SDK (");
    const agents = index.value(g, "OpenAI Agents SDK (");
    const plain = index.value(g, "request bodies alone: plain");
    const replacer = index.value(g, "request bodies alone: JSON.stringify with");
    const own = plugboard - floor;
    const paragraphs = [
      `Every loop pays for the growing history. On the openai SDK that cost is encoding the request body: \`chat.completions.create\` encodes it with \`JSON.stringify\` and a replacer function (the SDK watches the \`stream\` key through it), which costs ${n(replacer)} µs per step on this run's bodies against ${n(plain)} µs for a plain \`JSON.stringify\` — ${Math.round((100 * replacer) / floor)}% of the floor's ${n(floor)} µs step. Plugboard does not pay it: each message its loop appends is sealed and encoded once, and the body is joined from those encodings and sent through the SDK's \`post\` (section 2). Its difference from the floor, ${n(own)} µs per step, is that saving less its own work (the TypeBox check, the policy, the events, the messages it builds).`,
    ];
    if (index.missed(g, "Plugboard / floor")) {
      paragraphs.push(
        `**Missed: Plugboard / floor ≤ 1.5×**, by ${percentOver(plugboard / floor / 1.5)}. Compare the dispatch figures (section 4): the runtime's cost per call is far below this difference, so look for the cause in the loop's message handling, and profile with \`bun --cpu-prof-md\`.`,
      );
    }
    if (index.missed(g, "Plugboard / Vercel")) {
      paragraphs.push(
        `**Missed: Plugboard below the Vercel AI SDK**, by ${percentOver(plugboard / vercel)}${index.overlap(g, "Plugboard (", "Vercel AI SDK (") ? " — and the two rows' spreads overlap, so at this precision the two are level" : ""}. The AI SDK's mock model receives the prompt as objects and encodes nothing, while Plugboard's in-memory transport sits behind the openai SDK (headers, the \`fetch\` call, the response parsed from text): the like-for-like comparison is section 2, where every loop goes over the same wire.`,
      );
    }
    if (index.missed(g, "Plugboard / OpenAI Agents")) {
      paragraphs.push(`**Missed: Plugboard below the OpenAI Agents SDK**, by ${percentOver(plugboard / agents)}.`);
    }
    paragraphs.push(
      `The OpenAI Agents SDK is ${n(agents / floor)}× the floor: per turn it rebuilds its run state from the whole history; a CPU profile (\`bun --cpu-prof-md\`) of this setup spends about half its time in \`JSON.stringify\` and \`structuredClone\` of the conversation items, and the share grows with N.`,
    );
    return paragraphs;
  },
};

const overHttp: Section = {
  title: "2. The loop over HTTP",
  groups: [HTTP_GROUP, HTTP_CPU_GROUP],
  measured: (env: Environment) =>
    [
      "N = 200 steps of the same script, every loop against the same server: `startScriptedModel` from `@plugboard/testing`",
      "on 127.0.0.1, in the bench's process (it parses and records every request), answering the same scripted chat",
      "completions over HTTP (keep-alive). **Plugboard** and the **floor on the openai SDK** use the real `openai` client",
      `(${env.packages.openai}); the **floor on fetch** is the same hand-written loop without any SDK (\`JSON.stringify\`, \`fetch\`,`,
      "`json()`); the **Vercel AI SDK** runs `generateText` on its OpenAI-compatible provider",
      `(\`@ai-sdk/openai-compatible\` ${env.packages["@ai-sdk/openai-compatible"]}), the **OpenAI Agents SDK** \`run\` on its`,
      "`OpenAIChatCompletionsModel` over the `openai` client (no instructions, so every loop sends the same messages;",
      "tracing off). Each sample gets a fresh server, set up outside the timing; the loops are taken in turn, round after",
      "round. A loop's *overhead per step* is its time per step beyond the floor on fetch, which does only what every",
      "loop must do (encode the request, send it, parse the answer, call the tool). The CPU rows are this process's user +",
      "system time during the sample (the loop and the server, alike for all), steadier than wall time on a loaded machine.",
    ].join(" "),
  reading: (index: FigureIndex) => {
    const paragraphs: string[] = [];
    for (const [g, kind] of [
      [HTTP_GROUP, "wall"],
      [HTTP_CPU_GROUP, "CPU"],
    ] as const) {
      const value = (name: string) => index.value(g, name);
      const overhead = (name: string) => index.value(g, `${name}: overhead per step`);
      paragraphs.push(
        `In ${kind} time, a step costs ${n(value(HTTP_LOOPS.fetchFloor))} µs on the floor on fetch; beyond it, Plugboard adds ${n(overhead(HTTP_LOOPS.plugboard))} µs, the hand-written loop on the openai SDK ${n(overhead(HTTP_LOOPS.floor))} µs, the Vercel AI SDK ${n(overhead(HTTP_LOOPS.vercel))} µs and the OpenAI Agents SDK ${n(overhead(HTTP_LOOPS.agents))} µs: Plugboard's overhead is ${n(index.value(g, "overhead per step: Plugboard / Vercel"))}× the AI SDK's and ${n(index.value(g, "overhead per step: Plugboard / OpenAI Agents"))}× the Agents SDK's.`,
      );
    }
    paragraphs.push(
      "Plugboard is below even the hand-written loop on the same SDK because it does not let the SDK encode the request: `chat.completions.create` encodes the whole body, the growing history included, with `JSON.stringify` and a replacer function at every step (section 1 measures that alone), while Plugboard's loop seals each message it appends (deeply frozen, so it cannot change), keeps its JSON, and sends the joined body through the SDK's `post` (packages/core/src/request-body.ts) — the SDK's headers, retries, errors and stream parsing stay. What remains of its overhead over the floor on fetch is the SDK's request machinery (headers, URL and log handling, the promise around each response) and Plugboard's own per-step work (validation, policy and audit hooks, events); the floor on fetch has neither retries nor error classification.",
    );
    for (const [name, label] of [
      ["overhead per step: Plugboard / Vercel", "the Vercel AI SDK"],
      ["overhead per step: Plugboard / OpenAI Agents", "the OpenAI Agents SDK"],
      ["Plugboard / floor on the openai SDK", "the hand-written loop on the openai SDK (≤ 1.05×)"],
    ] as const) {
      if (index.missed(HTTP_GROUP, name)) {
        paragraphs.push(
          `**Missed, in wall time: Plugboard below ${label}**, by ${percentOver(index.value(HTTP_GROUP, name))}; in CPU time the same ratio is ${n(index.value(HTTP_CPU_GROUP, name))}×.`,
        );
      }
    }
    return paragraphs;
  },
};

const dispatch: Section = {
  title: "4. Dispatch and validation",
  groups: [DISPATCH_GROUP, VALIDATION_GROUP, HOOK_GROUP],
  measured: () =>
    [
      "mitata micro-benchmarks (batched samples). *Dispatch*: `runtime.execute` on a one-line `echo` tool, valid and",
      "invalid arguments, against calling its handler directly after `JSON.parse`; almost-JSON arguments (a trailing comma) repaired; and `runtime.execute` refusing invalid",
      "arguments for each of the five real tools. *Validation*: the five real tools' parameter schemas (built by their",
      "plugins with default options; the registry's compiled, closed TypeBox checks) against valibot twins written in the",
      "bench with the same fields, constraints and closedness, and against the JSON parse alone; each sample checks one",
      "valid (or invalid) argument string per tool, and the figures are per call. Both libraries are checked to accept",
      "every valid and refuse every invalid string before timing. *Hooks*: the echo call through one before hook, a shell",
      "script answering allow (whole samples: a process is started, fed and ended per call).",
    ].join(" "),
  reading: (index: FigureIndex) => {
    const g = DISPATCH_GROUP;
    const direct = index.value(g, "handler called directly");
    const valid = index.value(g, "runtime.execute, valid");
    const v = VALIDATION_GROUP;
    const errors = index.value(v, "invalid: TypeBox / valibot");
    return [
      `\`runtime.execute\` adds ${n(valid - direct)} ns to a valid call (lookup, parse, compiled check, context); refusing a call costs more because every failing field is described with its path, which only happens when the model made a mistake. On the five real schemas the compiled TypeBox check costs ${n(index.value(v, "valid: TypeBox / JSON.parse"))}× the parse alone and valibot ${n(index.value(v, "valid: valibot / JSON.parse"))}×; describing errors, TypeBox's \`Errors\` costs ${n(errors)}× valibot's issues. Either way validation is nanoseconds against the microseconds of a step (sections 1 and 2).`,
    ];
  },
};

/** Sections 1–4, in order. */
export const LOOP_SECTIONS: readonly Section[] = [inProcess, overHttp, parallelSection, dispatch];
