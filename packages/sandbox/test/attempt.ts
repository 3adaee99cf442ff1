/**
 * Runs the attempt fixture (fixtures/attempt.ts) confined or unconfined, for the kernel-layer
 * tests: the same script either way, so a test fails if the confinement does nothing.
 */
import { join } from "node:path";
import type { Permission } from "@plugboard/core";
import { type ConfineOptions, confineCommand } from "../src/launcher.ts";
import { detectMechanism } from "../src/mechanism.ts";

/** The fixture script, and this package's folder (the code a confined attempt loads). */
export const ATTEMPT = join(import.meta.dir, "fixtures/attempt.ts");
export const PACKAGE = join(import.meta.dir, "..");

const mechanism = detectMechanism();
if (!mechanism.available) throw new Error(`these tests need the sandbox's mechanism; missing: ${mechanism.missing}`);
/** The mechanism, which these tests need. */
export const available = mechanism;

/** Options besides the grants and the workspace. */
export type Extra = Partial<Pick<ConfineOptions, "protect" | "home" | "code" | "paths">>;

/** What the attempt printed (`ok: …` or `refused: …`), confined with `grants` in `workspace`, or unconfined with `"off"`. */
export async function attempt(workspace: string, grants: readonly Permission[] | "off", args: readonly string[], extra: Extra = {}): Promise<string> {
  const argv = [process.execPath, ATTEMPT, ...args];
  if (grants === "off") return run(argv, process.env, undefined);
  const confined = confineCommand(available, { argv, grants, workspace, code: [PACKAGE], ...extra });
  return run([confined.command, ...confined.args], confined.env, confined.cwd);
}

async function run(argv: readonly string[], env: Record<string, string | undefined>, cwd: string | undefined): Promise<string> {
  const child = Bun.spawn([...argv], { env, cwd, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  if (code !== 0) throw new Error(`exit ${code}: ${stderr}`);
  return stdout.trim();
}
