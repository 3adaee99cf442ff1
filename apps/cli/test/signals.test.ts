/**
 * SIGTERM and SIGHUP end the CLI like Ctrl-C: the running call is cancelled, every process
 * its command started is killed (checked in /proc), and the exit code is 143 / 129.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { awaitEscapeesCommand, escapeesCommand, runningNamed, survivorsNamed, uniqueMarker, waitFor } from "@plugboard/test-helpers";
import { startScriptedModel } from "@plugboard/testing";
import { spawnPlugboard, tempFolder, watch, writeConfig } from "./helpers.ts";

let dir = "";
let remove = async () => {};
/** The bash plugin confined in its host (the default), and in the CLI's process. */
const configs = { confined: "", unconfined: "" };

beforeAll(async () => {
  ({ dir, remove } = await tempFolder({ "workspace/.keep": "", "off/.keep": "" }));
  configs.confined = await writeConfig(dir, { sandbox: "auto" });
  configs.unconfined = await writeConfig(join(dir, "off"), { workspace: "../workspace" });
});
afterAll(() => remove());

/** Each test starts the CLI (and, confined, a plugin host): generous on a busy machine. */
const TIMEOUT_MS = 30_000;

/** A command that starts the four escapees, says so, and then runs until it is killed. */
function longCommand(marker: string): string {
  return `${escapeesCommand(marker)}${awaitEscapeesCommand(marker)}touch ${marker}.started; sleep 300`;
}

async function untilStarted(marker: string): Promise<void> {
  const started = Bun.file(join(dir, "workspace", `${marker}.started`));
  await waitFor("the command started its background processes", () => started.exists(), { timeoutMs: 10_000 });
}

describe.each([
  ["SIGTERM", 143],
  ["SIGHUP", 129],
] as const)("%s", (signal, code) => {
  test.each(["confined", "unconfined"] as const)(`plugboard call, %s: cancels the bash call, kills its processes, exits ${code}`, async (mode) => {
    const marker = uniqueMarker();
    const child = spawnPlugboard(["call", "--config", configs[mode], "bash", JSON.stringify({ command: longCommand(marker) })], { cwd: dir });
    const output = watch(child);
    await untilStarted(marker);
    expect(runningNamed(marker).length).toBeGreaterThan(0);
    child.kill(signal);
    const result = await output.finished();
    expect(result.code).toBe(code);
    // Confined (the default), the app answers for the cancelled call at once; unconfined, bash does.
    expect(result.stdout).toMatch(/^Error: (Command cancelled|Cancelled before the tool finished)/);
    expect(await survivorsNamed(marker)).toEqual([]);
  }, TIMEOUT_MS);

  test(`plugboard run, confined: cancels the turn, kills the command's processes, exits ${code}`, async () => {
    const marker = uniqueMarker();
    await using model = await startScriptedModel([{ toolCalls: [{ name: "bash", arguments: { command: longCommand(marker) } }] }]);
    const child = spawnPlugboard(["run", "--config", configs.confined, "--base-url", model.baseURL, "go"], { cwd: dir });
    const output = watch(child);
    await untilStarted(marker);
    child.kill(signal);
    const result = await output.finished();
    expect(result.code).toBe(code);
    expect(result.stderr).toContain("interrupted");
    expect(await survivorsNamed(marker)).toEqual([]);
  }, TIMEOUT_MS);

  test(`the interactive session, unconfined: cancels the turn, kills the command's processes, exits ${code}`, async () => {
    const marker = uniqueMarker();
    await using model = await startScriptedModel([{ toolCalls: [{ name: "bash", arguments: { command: longCommand(marker) } }] }]);
    const child = spawnPlugboard(["--config", configs.unconfined, "--base-url", model.baseURL], { cwd: dir });
    const output = watch(child);
    child.stdin.write("go\n");
    await child.stdin.flush();
    await untilStarted(marker);
    child.kill(signal);
    const result = await output.finished();
    expect(result.code).toBe(code);
    expect(await survivorsNamed(marker)).toEqual([]);
  }, TIMEOUT_MS);
});
