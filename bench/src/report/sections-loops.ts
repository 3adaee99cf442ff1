/**
 * BENCHMARKS.md sections 1–3 (the loops and dispatch): what exactly is measured, and a
 * reading of the figures that says, for a missed target, by how much, why, and what would
 * close it.
 */
import { DISPATCH_GROUP, VALIDATION_GROUP } from "../dispatch/dispatch.ts";
import { formatNumber as n } from "../harness/format.ts";
import { IN_PROCESS_GROUP } from "../loop/in-process.ts";
import { HTTP_GROUP } from "../loop/over-http.ts";
import type { Environment } from "./environment.ts";
import { type FigureIndex, percentOver } from "./lookup.ts";
import type { Section } from "./section.ts";

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
      `Every loop pays for the growing history. On the openai SDK that cost is encoding the request body: \`chat.completions.create\` encodes it with \`JSON.stringify\` and a replacer function (the SDK watches the \`stream\` key through it), which costs ${n(replacer)} µs per step on this run's bodies against ${n(plain)} µs for a plain \`JSON.stringify\` — ${Math.round((100 * replacer) / floor)}% of the floor's ${n(floor)} µs step. Plugboard's own work per step (the TypeBox check, the events, the messages it builds) is its difference from the floor: ${n(own)} µs${own <= 0 ? ", that is, within the run-to-run spread" : ""}.`,
    ];
    if (index.missed(g, "Plugboard / floor")) {
      paragraphs.push(
        `**Missed: Plugboard / floor ≤ 1.5×**, by ${percentOver(plugboard / floor / 1.5)}. Compare the dispatch figures (section 3): the runtime's cost per call is far below this difference, so look for the cause in the loop's message handling, and profile with \`bun --cpu-prof-md\`.`,
      );
    }
    if (index.missed(g, "Plugboard / Vercel")) {
      paragraphs.push(
        `**Missed: Plugboard below the Vercel AI SDK**, by ${percentOver(plugboard / vercel)}${index.overlap(g, "Plugboard (", "Vercel AI SDK (") ? " — and the two rows' spreads overlap, so at this precision the two are level" : ""}. The AI SDK's mock model receives the prompt as objects and encodes nothing, while Plugboard's in-memory transport sits behind the openai SDK's encoder, like the floor's: the floor, which validates nothing at all, is at ${n(floor / vercel)}× the AI SDK. What would close it lies in the transport, not in Plugboard's loop: a body encoder without the replacer (an openai SDK change) would take about ${n(replacer - plain)} µs off each step, leaving Plugboard near ${n(plugboard - (replacer - plain))} µs against the AI SDK's ${n(vercel)}.`,
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
  groups: [HTTP_GROUP],
  measured: () =>
    [
      "N = 200 steps of the same script through the real `openai` SDK over HTTP (keep-alive) to `startScriptedModel`",
      "from `@plugboard/testing` on 127.0.0.1, in the same process (the server parses and records every request).",
      "Each sample gets a fresh server and client, set up outside the timing; Plugboard and the hand-written loop",
      "are measured in alternating rounds so that a change in the machine's load hits both alike.",
    ].join(" "),
  reading: (index: FigureIndex) => {
    const g = HTTP_GROUP;
    const floor = index.value(g, "hand-written loop");
    const plugboard = index.value(g, "Plugboard (");
    const perCall = index.value(DISPATCH_GROUP, "runtime.execute, valid") - index.value(DISPATCH_GROUP, "handler called directly");
    const paragraphs = [
      `Over HTTP a step costs ${n(floor)} µs by hand and ${n(plugboard)} µs with Plugboard: the difference, ${n(plugboard - floor)} µs, is to be read against the runtime's own cost per call measured in section 3 (${n(perCall)} ns) and against the spread of each row.`,
    ];
    if (index.missed(g, "Plugboard / floor")) {
      paragraphs.push(
        `**Missed: within 1.05× of the hand-written loop**, by ${percentOver(plugboard / floor / 1.05)}${index.overlap(g, "Plugboard (", "hand-written loop") ? " (the two rows' spreads overlap)" : ""}. The runtime's work per step is a few microseconds at most, so a miss of this size comes from the per-request work both loops share (HTTP, the server, the SDK's encoder over the growing history) varying between samples; compare the two rows' spreads, and re-run on an idle machine before looking for a cause in the loop.`,
      );
    }
    return paragraphs;
  },
};

const dispatch: Section = {
  title: "3. Dispatch and validation",
  groups: [DISPATCH_GROUP, VALIDATION_GROUP],
  measured: () =>
    [
      "mitata micro-benchmarks (batched samples). *Dispatch*: `runtime.execute` on a one-line `echo` tool, valid and",
      "invalid arguments, against calling its handler directly after `JSON.parse`; and `runtime.execute` refusing invalid",
      "arguments for each of the five real tools. *Validation*: the five real tools' parameter schemas (built by their",
      "plugins with default options; the registry's compiled, closed TypeBox checks) against valibot twins written in the",
      "bench with the same fields, constraints and closedness, and against the JSON parse alone; each sample checks one",
      "valid (or invalid) argument string per tool, and the figures are per call. Both libraries are checked to accept",
      "every valid and refuse every invalid string before timing.",
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

/** Sections 1–3, in order. */
export const LOOP_SECTIONS: readonly Section[] = [inProcess, overHttp, dispatch];
