/**
 * A model reads the same words for the same bad arguments whether a plugin runs in the
 * app's process (TypeBox checks them) or confined in its host (the app checks the host's
 * JSON Schema with Ajv): the five shipped tools, every kind of mistake their schemas can
 * catch, plus seeded random wrong values, through both runtimes.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type App, buildApp, loadConfig } from "@plugboard/bootstrap";
import { CLI_FOLDER, SHIPPED_CONFIG } from "./load-app.ts";

let folder: string;
let confined: App;
let inProcess: App;

/** The shipped config with `sandbox` set, written in `folder` (its plugins resolved from the CLI's folder). */
async function appWith(sandbox: "auto" | "off"): Promise<App> {
  const shipped = JSON.parse(await readFile(SHIPPED_CONFIG, "utf8")) as object;
  const path = join(folder, `plugboard-${sandbox}.json`);
  await writeFile(path, JSON.stringify({ ...shipped, sandbox, workspace: "." }));
  return buildApp(await loadConfig(path, { env: {}, cwd: folder }), { appFolder: CLI_FOLDER });
}

beforeAll(async () => {
  folder = await realpath(await mkdtemp(join(tmpdir(), "plugboard-argument-errors-")));
  [confined, inProcess] = await Promise.all([appWith("auto"), appWith("off")]);
});

afterAll(async () => {
  await Promise.all([confined?.close(), inProcess?.close()]);
  await rm(folder, { recursive: true, force: true });
});

/** Bad arguments for each tool, one kind of mistake each. */
const CASES: Readonly<Record<string, readonly Record<string, unknown>[]>> = {
  bash: [{}, { command: 1 }, { command: "ls", timeout_ms: 0 }, { command: "ls", timeout_ms: 600_001 }, { command: "ls", timeout_ms: 1.5 }, { command: "ls", extra: true }],
  read_file: [{}, { path: null }, { path: "a", offset: 0 }, { path: "a", limit: -3 }, { path: "a", offset: "1" }, { path: ["a"], limit: 0, x: 1 }],
  write_file: [{}, { path: "a" }, { content: "" }, { path: "a", content: 5 }, { path: {}, content: [] }],
  edit_file: [{}, { path: "a", old_text: "", new_text: "" }, { path: "a", old_text: "x", new_text: 1 }, { path: "a", old_text: "x", new_text: "y", replace_all: "yes" }],
  glob: [{}, { pattern: "" }, { pattern: 3 }, { pattern: "*", path: 1 }, { pattern: "*", include_ignored: 1 }, { pattern: "*", ignored: true }],
};

describe("argument errors read the same, confined or not", () => {
  test("the confined runtime checks in the app, with the host's schema", () => {
    expect(confined.sandbox.confined).toHaveLength(5);
    expect(inProcess.sandbox.confined).toEqual([]);
  });

  for (const [tool, cases] of Object.entries(CASES)) {
    test(tool, async () => {
      for (const args of cases) {
        const raw = JSON.stringify(args);
        const [a, b] = await Promise.all([confined.runtime.execute(tool, raw), inProcess.runtime.execute(tool, raw)]);
        expect({ args: raw, text: a.content }).toEqual({ args: raw, text: b.content });
        expect(a.content).toStartWith(`Error: Invalid arguments for ${tool}: `);
      }
    });
  }

  test("seeded random wrong values", async () => {
    const values: unknown[] = [null, true, 0, -1, 1.5, 2 ** 53, "", "x", [], [1], {}, { a: 1 }];
    let compared = 0;
    let state = 20261130;
    const next = (n: number) => {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      return state % n;
    };
    for (const schema of confined.runtime.schemas()) {
      const { name, parameters } = schema.function;
      const properties = Object.keys((parameters?.properties ?? {}) as Record<string, unknown>);
      for (let round = 0; round < 40; round++) {
        const args: Record<string, unknown> = {};
        for (const key of properties) if (next(3) > 0) args[key] = values[next(values.length)];
        if (next(4) === 0) args[`extra_${next(3)}`] = values[next(values.length)];
        const raw = JSON.stringify(args);
        const [a, b] = await Promise.all([confined.runtime.execute(name, raw), inProcess.runtime.execute(name, raw)]);
        // Valid by chance: the tools ran (and their outcomes may differ, confined or not).
        if (!b.content.startsWith("Error: Invalid arguments")) continue;
        expect({ args: raw, text: a.content }).toEqual({ args: raw, text: b.content });
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(150);
  });
});
