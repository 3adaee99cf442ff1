/**
 * Schema dialects with 500 mounted tools: what rewriting every tool's schema for a dialect
 * costs when an app starts (core's `rewriteSchema`, once per tool, as the registry does), and
 * that a model request costs the same in every dialect (the rewritten tools are the
 * registry's, made at start: nothing is rewritten per request).
 */
import type { App } from "@plugboard/bootstrap";
import { type Dialect, rewriteSchema, ToolRegistry } from "@plugboard/core";
import { runAgentLoop } from "@plugboard/agent";
import { ToolRuntime } from "@plugboard/runtime";
import type { ScriptedModel } from "@plugboard/testing";
import type OpenAI from "openai";
import { type FigureLog, meets, type Target } from "../harness/figures.ts";
import { timeFast, timeInRounds, timeRuns, timingFigure } from "../harness/measure.ts";
import type { RunMode } from "../harness/mode.ts";

/** The group's name in every report. */
export const DIALECTS_GROUP = "Schema dialects, 500 mounted tools";

/** The most the rewrite of every tool may take at start, in ms. */
const START_TARGET: Target = { op: "<=", limit: 5 };

/** Measures the rewrite at start, per dialect, and a model request in gemini against openai. */
export async function dialects(app: App, model: ScriptedModel, client: OpenAI, mode: RunMode, log: FigureLog): Promise<void> {
  const schemas = app.registry.names().map((name) => app.registry.get(name)?.schema.function.parameters ?? {});
  const tools = schemas.length;
  for (const dialect of ["gemini", "openai-strict"] as const) {
    mode.progress(`dialects: rewriting ${tools} tools' schemas for ${dialect}`);
    const timing = await timeFast(() => schemas.map((schema) => rewriteSchema(schema, dialect)), mode.quick ? 200 : 1000);
    const figure = timingFigure(DIALECTS_GROUP, `rewrite of ${tools} tools' schemas at start, ${dialect}`, timing, "ms", 1e6, "core's rewriteSchema, once per tool");
    log.add({ ...figure, target: START_TARGET, met: meets(figure.value, START_TARGET) });
  }

  mode.progress(`dialects: a model request with ${tools} tools, gemini and openai in turns`);
  const request = (dialect: Dialect) => {
    const entries = app.registry.names().flatMap((name) => {
      const registered = app.registry.get(name);
      return registered === undefined ? [] : [{ tool: registered.tool, owner: registered.owner, validate: registered.validate }];
    });
    // Every tool sent (no search), so each request carries the whole rewritten list.
    const runtime = new ToolRuntime(new ToolRegistry(entries, { dialect }), { workspace: app.workspace, toolSearch: { searchOver: tools, pinned: [] } });
    return (samples: number) =>
      timeRuns(
        () => {
          // Its reply, queued in the same breath (a push): the request is what takes the time.
          model.enqueue({ content: "ok" });
          return runAgentLoop({ messages: [{ role: "user", content: "hi" }], runtime, client, model: "m", maxSteps: 1 });
        },
        { samples },
      );
  };
  const [gemini, openai] = await timeInRounds([request("gemini"), request("openai")], { rounds: mode.quick ? 2 : 5, perRound: mode.quick ? 3 : 10 });
  if (gemini === undefined || openai === undefined) return;
  const perRequest = (dialect: string, timing: typeof gemini) => log.add(timingFigure(DIALECTS_GROUP, `a model request with every tool sent, ${dialect}`, timing, "ms", 1e6, "to the scripted model over loopback"));
  log.ratio(DIALECTS_GROUP, "a model request, gemini / openai", perRequest("gemini", gemini), perRequest("openai", openai), { op: "<=", limit: 1.1 }, "no rewrite per request");
}
