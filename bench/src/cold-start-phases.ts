/**
 * Run as a child process by the cold-start suite: where `plugboard tools` spends its time,
 * phase by phase, in a fresh process. Each import is timed after the ones before it, so a
 * phase counts only the modules it adds. `tools` loads neither the openai SDK (core uses its
 * types only, and the CLI imports the model commands lazily) nor fast-glob (the glob plugin
 * imports it on its first call), so neither is a phase. Prints the phases (ms) as JSON.
 */
import { join } from "node:path";
import { REPO_ROOT } from "./harness/paths.ts";

/** The phases, in the order they run. */
export const PHASES = [
  "import @sinclair/typebox/compiler",
  "import @plugboard/core (the rest)",
  "import valibot",
  "import @plugboard/bootstrap (the rest)",
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
  await import("@sinclair/typebox/compiler");
  lap("import @sinclair/typebox/compiler");
  await import("@plugboard/core");
  lap("import @plugboard/core (the rest)");
  await import("valibot");
  lap("import valibot");
  const { buildApp, loadConfig } = await import("@plugboard/bootstrap");
  lap("import @plugboard/bootstrap (the rest)");
  const config = await loadConfig(join(REPO_ROOT, "apps/cli/plugboard.config.json"), { cwd: REPO_ROOT });
  lap("loadConfig");
  const app = await buildApp(config);
  lap("buildApp: the five plugins");
  app.runtime.schemas();
  lap("runtime.schemas()");
  return times as PhaseTimes;
}

if (import.meta.main) process.stdout.write(`${JSON.stringify(await measurePhases())}\n`);
