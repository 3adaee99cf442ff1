/**
 * One plugin, one contract wherever it runs: the same fixture plugin run in the CLI's
 * process (`"sandbox": "off"`) and confined in its host (`"sandbox": "required"`) must read
 * the same to the model and to the person — validation texts, a handler's bug, the call id,
 * load failures — and its `{ writes }` calls must overlap in both.
 */
import { describe, expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startScriptedModel } from "@plugboard/testing";
import { plugboard, STACK_FRAME, tempFolder, toolResults, writeConfig } from "./helpers.ts";

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const MODES = ["off", "required"] as const;
type Mode = (typeof MODES)[number];

/** A temp folder whose config enables `plugin` (granted `permissions`) in `mode`. */
async function appWith(mode: Mode, plugin: string, permissions: readonly string[] = ["fs.write"]) {
  const folder = await tempFolder({ "workspace/.keep": "" });
  const config = await writeConfig(folder.dir, { sandbox: mode, plugins: [{ path: fixture(plugin), permissions }] });
  return { ...folder, config };
}

/** `run(mode)` in both modes at once (each in its own temp folder, so neither waits on the other): the in-process outcome, then the confined one. */
function inBothModes<T>(run: (mode: Mode) => Promise<T>): Promise<T[]> {
  return Promise.all(MODES.map(run));
}

/** `plugboard call TOOL ARGS` in each mode. */
async function callBoth(tool: string, args: unknown, plugin = "one-contract") {
  const outcomes = await inBothModes(async (mode) => {
    await using app = await appWith(mode, plugin, plugin === "one-contract" ? ["fs.write"] : []);
    const outcome = await plugboard(["call", "--config", app.config, tool, JSON.stringify(args)], { cwd: app.dir });
    // Each run has its own temp folder: named alike, the two outputs compare.
    return { ...outcome, stderr: outcome.stderr.replaceAll(app.dir, "DIR") };
  });
  const [inProcess, confined] = outcomes;
  if (inProcess === undefined || confined === undefined) throw new Error("both modes ran");
  return { inProcess, confined };
}

/** The output lines without those naming each run's own temp folder or model server: the workspace announcement, the model in use. */
const withoutWorkspace = (stderr: string) =>
  stderr
    .split("\n")
    .filter((line) => !line.startsWith("workspace: ") && !line.startsWith("plugboard: model "))
    .join("\n");

describe("a plugin reads the same in the app's process and confined", () => {
  const violations: [string, unknown][] = [
    ["a missing required property", { count: 1, mode: "fast" }],
    ["a wrong type", { name: 7, count: "two", mode: "fast" }],
    ["string length and pattern", { name: "A", count: 1, mode: "fast" }],
    ["a string too long", { name: "abcdefghij", count: 1, mode: "fast" }],
    ["integer bounds", { name: "ab", count: 9, mode: "fast" }],
    ["a non-integer", { name: "ab", count: 1.5, mode: "fast" }],
    ["exclusive minimum and multipleOf", { name: "ab", count: 1, mode: "fast", ratio: 0 }],
    ["multipleOf alone", { name: "ab", count: 1, mode: "fast", ratio: 0.7 }],
    ["a union of literals", { name: "ab", count: 1, mode: "medium" }],
    ["an enum", { name: "ab", count: 1, mode: "fast", choice: "c" }],
    ["array size and uniqueness", { name: "ab", count: 1, mode: "fast", tags: ["x", "x", "y"] }],
    ["an empty array", { name: "ab", count: 1, mode: "fast", tags: [] }],
    ["nested objects", { name: "ab", count: 1, mode: "fast", nested: { flag: "yes", level: 0, extra: 1 } }],
    ["an extra property", { name: "ab", count: 1, mode: "fast", colour: "red" }],
    ["everything wrong at once", { name: "", count: 0, mode: null, tags: "x", nested: [], choice: 1, extra: true }],
  ];
  for (const [kind, args] of violations) {
    test(`the Error: Invalid arguments text is identical: ${kind}`, async () => {
      const { inProcess, confined } = await callBoth("strict", args);
      expect(inProcess.stdout).toStartWith("Error: Invalid arguments for strict: ");
      expect(confined.stdout).toBe(inProcess.stdout);
      expect([inProcess.code, confined.code]).toEqual([1, 1]);
    });
  }

  test("arguments that are not JSON, or not an object, read the same", async () => {
    for (const raw of ["{not json", "[1,2]"]) {
      const outcomes = await inBothModes(async (mode) => {
        await using app = await appWith(mode, "one-contract");
        // Awaited before returning: the folder goes when this function ends.
        return await plugboard(["call", "--config", app.config, "strict", raw], { cwd: app.dir });
      });
      expect(outcomes[0]?.stdout).toStartWith("Error: Invalid arguments: ");
      expect(outcomes[1]?.stdout).toBe(outcomes[0]?.stdout ?? "");
    }
  });

  test("valid arguments reach the handler unchanged in both", async () => {
    const args = { name: "ab", count: 2, mode: "slow", ratio: 1.5, tags: ["x"], nested: { flag: true, level: null }, choice: "b" };
    const { inProcess, confined } = await callBoth("strict", args);
    expect(JSON.parse(inProcess.stdout)).toEqual({ args, callId: "direct" });
    expect(confined.stdout).toBe(inProcess.stdout);
  });

  test("a handler that throws is the same PluginError — plugin, tool, phase — with the same message and exit code", async () => {
    for (const args of [{}, { value: true }]) {
      const { inProcess, confined } = await callBoth("crash", args);
      expect(inProcess.code).toBe(2);
      expect(confined.code).toBe(inProcess.code);
      expect(withoutWorkspace(inProcess.stderr)).toContain(
        args.value === true
          ? "Tool crash (plugin @fixture/one-contract) failed in its handler: a thrown string"
          : "Tool crash (plugin @fixture/one-contract) failed in its handler: RangeError: a bug in the crash tool",
      );
      expect(withoutWorkspace(confined.stderr)).toBe(withoutWorkspace(inProcess.stderr));
      expect(inProcess.stderr).not.toContain(STACK_FRAME);
    }
  });

  test("a result unlike the tool's output schema is the same PluginError of phase result; one like it passes with its data", async () => {
    const { inProcess, confined } = await callBoth("shaped", { valid: false });
    expect(inProcess.code).toBe(2);
    expect(withoutWorkspace(inProcess.stderr)).toContain(
      "Tool shaped (plugin @fixture/one-contract) failed in its result: TypeError: its structuredContent does not match its outputSchema: count: expected integer",
    );
    expect(confined.code).toBe(inProcess.code);
    expect(withoutWorkspace(confined.stderr)).toBe(withoutWorkspace(inProcess.stderr));
    const valid = await callBoth("shaped", { valid: true });
    expect([valid.inProcess.code, valid.confined.code]).toEqual([0, 0]);
    expect(valid.confined.stdout).toBe(valid.inProcess.stdout);
    expect(valid.inProcess.stdout).toBe("counted\n");
  });

  test("naming what a call writes that throws is the same PluginError of phase concurrency", async () => {
    const outcomes = await inBothModes(async (mode) => {
      await using app = await appWith(mode, "one-contract");
      await using model = await startScriptedModel([{ toolCalls: [{ id: "w1", name: "crash_writes", arguments: { path: "a.txt" } }] }]);
      return await plugboard(["run", "--config", app.config, "--base-url", model.baseURL, "go"], { cwd: app.dir });
    });
    const [inProcess, confined] = outcomes;
    expect(inProcess?.code).toBe(2);
    expect(inProcess?.stderr).toContain("Tool crash_writes (plugin @fixture/one-contract) failed in its concurrency: TypeError: a bug in what crash_writes writes");
    expect(confined?.code).toBe(inProcess?.code ?? -1);
    expect(withoutWorkspace(confined?.stderr ?? "")).toBe(withoutWorkspace(inProcess?.stderr ?? ""));
  });

  test("the handler sees the model's call id in both", async () => {
    await inBothModes(async (mode) => {
      await using app = await appWith(mode, "one-contract");
      await using model = await startScriptedModel([
        { toolCalls: [{ id: "call_model_7", name: "strict", arguments: { name: "ab", count: 1, mode: "fast" } }] },
        { content: "done" },
      ]);
      const result = await plugboard(["run", "--config", app.config, "--base-url", model.baseURL, "go"], { cwd: app.dir });
      expect(result.code).toBe(0);
      expect(JSON.parse(toolResults(model).call_model_7 ?? "{}").callId).toBe("call_model_7");
    });
  });

  test("a schema the plugin checks with a registry of its own is compiled and worded the same (confined, TypeBox's compiler is loaded in its host on this first compile)", async () => {
    for (const [value, said] of [
      [{ n: 0 }, "n: expected integer to be greater or equal to 1"],
      [{ n: 2 }, "valid"],
    ] as const) {
      const { inProcess, confined } = await callBoth("own_registry", { value });
      expect({ code: confined.code, stdout: confined.stdout }).toEqual({ code: 0, stdout: `${said}\n` });
      expect({ code: inProcess.code, stdout: inProcess.stdout }).toEqual({ code: 0, stdout: `${said}\n` });
    }
  });

  test("an entry that throws at import, and tools that differ from the manifest, give the same exit-2 message", async () => {
    for (const plugin of ["one-contract-import-throws", "one-contract-tools-differ"]) {
      const { inProcess, confined } = await callBoth("never", {}, plugin);
      expect(inProcess.code).toBe(2);
      expect(inProcess.stderr).toContain(plugin === "one-contract-import-throws" ? "this entry throws at import" : "unlisted");
      expect(confined.code).toBe(2);
      expect(withoutWorkspace(confined.stderr)).toBe(withoutWorkspace(inProcess.stderr));
      expect(confined.stderr).not.toContain(STACK_FRAME);
    }
  });

  for (const mode of MODES) {
    test(`four writes to four paths in one response run together, two writes to one path in order (${mode})`, async () => {
      await using app = await appWith(mode, "one-contract");
      const write = (id: string, path: string, text: string, expect: number) => ({
        id,
        name: "slow_write",
        arguments: { path, text, group: id.split("_")[0], expect },
      });
      await using model = await startScriptedModel([
        { toolCalls: ["a", "b", "c", "d"].map((name) => write(`four_${name}`, `${name}.txt`, name, 4)) },
        { toolCalls: [write("same_1", "same.txt", "first", 1), write("same_2", "same.txt", "second", 1)] },
        { content: "done" },
      ]);
      const result = await plugboard(["run", "--config", app.config, "--base-url", model.baseURL, "go"], { cwd: app.dir });
      expect(result.code).toBe(0);
      const four = toolResults(model, 1);
      // The last of the four to finish saw all four running at once.
      expect(Object.values(four).some((text) => text.startsWith("most at once: 4;"))).toBe(true);
      const same = toolResults(model, 2);
      expect(same.same_2).toEndWith("start first, end first, start second, end second");
      expect(await readFile(join(app.dir, "workspace/same.txt"), "utf8")).toBe("second");
    });
  }
});
