/** Pinned tools of a third-party plugin (an installed package outside the @plugboard scope), through buildApp. */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Logger } from "@plugboard/core";
import { fingerprintOf, stableJson } from "@plugboard/config/lock-file";
import { configWith, fixture, removeTempDirs, tempDir } from "../test/temp-app.ts";
import { buildApp } from "./index.ts";

afterEach(removeTempDirs);

const ECHO_SCHEMA = { properties: { text: { type: "string" } }, required: ["text"], type: "object" };

async function installedEcho() {
  const folder = await tempDir();
  await mkdir(join(folder, "node_modules/@fixture"), { recursive: true });
  await symlink(fixture("echo"), join(folder, "node_modules/@fixture/echo"));
  return { folder, config: await configWith([{ package: "@fixture/echo" }], folder), lock: join(folder, "plugboard.lock.json") };
}

function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, debug() {}, info() {}, warn: (message) => warnings.push(message) };
}

describe("a third-party plugin's tools are pinned", () => {
  test("at the first listing; a later difference withholds the tool, with a warning, until it is accepted", async () => {
    const { config, lock } = await installedEcho();
    const first = await buildApp(config);
    expect(first.registry.names()).toEqual(["echo"]);
    const pins = JSON.parse(await readFile(lock, "utf8")) as { tools: Record<string, Record<string, { description: string; schema: string }>> };
    expect(pins.tools["@fixture/echo"]?.echo?.description).toBe("Repeat the text.");
    const echoPin = pins.tools["@fixture/echo"]?.echo;
    // The pin of an earlier release, whose description said something else.
    await writeFile(lock, `${stableJson({ version: 1, tools: { "@fixture/echo": { echo: { ...echoPin, description: "Repeat the text once." } } } })}\n`);

    const logger = recordingLogger();
    const changed = await buildApp(config, { logger });
    expect(changed.registry.names()).toEqual([]);
    expect(changed.pinning.withheld.map(({ tool, what }) => [tool, what])).toEqual([["echo", "description"]]);
    expect(logger.warnings).toEqual([
      `the description of @fixture/echo's tool echo changed since ${lock} pinned it: it is not offered to the model. Accept it if you trust the change: plugboard plugin accept @fixture/echo`,
    ]);

    const accepted = await buildApp(config, { changedTools: { accept: "@fixture/echo" } });
    expect(accepted.registry.names()).toEqual(["echo"]);
    expect(JSON.parse(await readFile(lock, "utf8")).tools["@fixture/echo"].echo.description).toBe("Repeat the text.");
  });

  test("the schema is fingerprinted as the model is sent it", async () => {
    const { config, lock } = await installedEcho();
    await buildApp(config);
    const pin = JSON.parse(await readFile(lock, "utf8")).tools["@fixture/echo"].echo;
    expect(pin).toEqual(fingerprintOf("Repeat the text.", ECHO_SCHEMA));
  });

  test("a path plugin (the config's own code) has its code pinned, not its tools", async () => {
    const folder = await tempDir();
    const app = await buildApp(await configWith([{ path: fixture("echo") }], folder));
    expect(app.registry.names()).toEqual(["echo"]);
    const lock = JSON.parse(await readFile(join(folder, "plugboard.lock.json"), "utf8")) as { tools: object; code: Record<string, object> };
    expect(lock.tools).toEqual({});
    expect(Object.keys(lock.code)).toEqual(["@fixture/echo"]);
  });
});
