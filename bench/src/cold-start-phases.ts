/**
 * Run as a child process by the cold-start suite: where `plugboard tools` spends its time,
 * phase by phase, in a fresh process. Each import is timed after the ones before it, so a
 * phase counts only the modules it adds. Prints the phases (ms) as JSON.
 */
import { join } from "node:path";
import { REPO_ROOT } from "./harness/paths.ts";

/** The phases, in the order they run. */
export const PHASES = [
  "import openai",
  "import @sinclair/typebox/compiler",
  "import @plugboard/core (the rest)",
  "import valibot",
  "import @plugboard/bootstrap (the rest)",
  "import fast-glob (used by the glob plugin)",
  "loadConfig",
  "buildApp: the five plugins",
  "runtime.schemas()",
] as const;

/** Milliseconds per phase. */
export type PhaseTimes = Record<(typeof PHASES)[number], number>;

async function measurePhases(): Promise<PhaseTimes> {
  const times: Partial<PhaseTimes> = {};
  let started = performance.now();
  const lap = (phase: (typeof PHASES)[number]) => {
    const now = performance.now();
    times[phase] = now - started;
    started = now;
  };
  await import("openai");
  lap("import openai");
  await import("@sinclair/typebox/compiler");
  lap("import @sinclair/typebox/compiler");
  await import("@plugboard/core");
  lap("import @plugboard/core (the rest)");
  await import("valibot");
  lap("import valibot");
  const { buildApp, loadConfig } = await import("@plugboard/bootstrap");
  lap("import @plugboard/bootstrap (the rest)");
  await import("fast-glob");
  lap("import fast-glob (used by the glob plugin)");
  const config = await loadConfig(join(REPO_ROOT, "apps/cli/plugboard.config.json"), { cwd: REPO_ROOT });
  lap("loadConfig");
  const app = await buildApp(config);
  lap("buildApp: the five plugins");
  app.runtime.schemas();
  lap("runtime.schemas()");
  return times as PhaseTimes;
}

if (import.meta.main) process.stdout.write(`${JSON.stringify(await measurePhases())}\n`);
