import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { cp, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DISABLE_VARIABLE, detectMechanism } from "@plugboard/sandbox";
import corePackage from "@plugboard/core/package.json" with { type: "json" };
import { REPO_PLUGBOARD } from "@plugboard/test-helpers";
import { type CheckPluginOptions, checkPlugin as checkWith } from "./check-plugin.ts";
import { CHECK_IDS, type CheckId, type CheckStatus } from "./checks.ts";
import { KitError } from "./errors.ts";
import { PLUGBOARD_BIN } from "./find-plugboard.ts";

const fixture = (name: string) => join(import.meta.dir, "../test/fixtures", name);

/** The checks, with this repository's plugboard for the confined run unless `options` names another. */
const checkPlugin = (directory: string, options: CheckPluginOptions = {}) => checkWith(directory, { plugboard: REPO_PLUGBOARD, ...options });

// Each case starts real processes (the harness, bun pm pack): a bound for a hang, not a timing,
// so it leaves room for a busy machine, where they outlast bun's default 5 s.
setDefaultTimeout(120_000);

/** Where the writes-absolute fixture appends, outside its folder and the check's. */
const ABSOLUTE_NOTES = join(tmpdir(), "plugboard-writes-absolute-notes.log");
afterAll(() => rm(ABSOLUTE_NOTES, { force: true }));

/** Each broken fixture (one behaviour each): the check it breaks, how, and a text its problems must contain. */
const BROKEN: readonly [string, CheckId, CheckStatus, string, CheckPluginOptions][] = [
  ["package-unpublishable", "package", "fail", 'the published package would not contain plugboard.plugin.json: add it to "files"', {}],
  ["manifest-version-mismatch", "manifest", "fail", "its manifest says plugboard-plugin-manifest-version-mismatch@0.2.0 but its package.json says plugboard-plugin-manifest-version-mismatch@0.1.0", {}],
  ["tools-undeclared", "tools", "fail", 'added shout: "Repeat the text in capitals."', {}],
  ["tools-described-otherwise", "tools", "fail", 'changed the description of echo: "Say the text back." → "Repeat the text."', {}],
  ["throws-on-import", "tools", "fail", "importing its entry threw: the settings file is missing", {}],
  ["exits-on-load", "tools", "fail", "the process ended (exit code 3) while loading the plugin", {}],
  ["strict-optional", "strict-schemas", "warn", "repeat: times: optional; strict mode requires every property", {}],
  ["unchecked-arguments", "invalid-arguments", "fail", 'shout: its handler ran for arguments with text of the wrong type: {"text":12.5}', {}],
  ["throws-on-missing-file", "foreseeable-errors", "fail", 'cat {"path":"missing/nothing-here.txt"}: threw Error: ENOENT', {}],
  ["ignores-abort", "abort", "fail", 'nap {"seconds":5}: still running 300 ms after its signal aborted', { slowInputs: { nap: { seconds: 5 } }, abortWithinMs: 300 }],
  ["prints-on-load", "quiet", "fail", 'printed while loading: "prints-on-load: hello from the plugin\\n"', {}],
  ["writes-undeclared", "permissions", "fail", "changed files without asking for fs.write: created notes.txt (calling its tools)", {}],
  ["writes-outside", "permissions", "fail", "changed files outside the workspace: created ../stray-notes.txt (calling its tools)", {}],
  ["writes-absolute", "permissions", "fail", `changed files outside the workspace: wrote to ${ABSOLUTE_NOTES} (calling its tools)`, {}],
  ["spawns-undeclared", "permissions", "fail", "started programs without asking for process.spawn: date +%F (calling today)", {}],
  ["fetches-undeclared", "permissions", "fail", "opened connections without asking for network: http://127.0.0.1:9/ (calling ping)", {}],
];

/** What the kernel refuses each fixture when it runs confined with its grants, as the confined check names it. */
const REFUSED: Readonly<Record<string, RegExp>> = {
  // Without fs.write the workspace is read-only; outside it nothing of the disk is in the plugin's view.
  "writes-undeclared": /^refused by the sandbox: open notes\.txt \(EROFS\) \(calling remember\)$/,
  "writes-outside": /^refused by the sandbox: open \.\.\/stray-notes\.txt \((EROFS|ENOENT)\) \(calling remember\)$/,
  "writes-absolute": /^refused by the sandbox: open \/\S+\/plugboard-writes-absolute-notes\.log \((EROFS|ENOENT)\) \(calling note\)$/,
  "spawns-undeclared": /^refused by the sandbox: posix_spawn date \(EACCES\) \(calling today\)$/,
};

const mechanism = detectMechanism();

describe("checkPlugin", () => {
  test("a conforming plugin passes every check (confined too, where the system has the sandbox)", async () => {
    const report = await checkPlugin(fixture("conforming"));
    expect(report.plugin).toBe("plugboard-plugin-conforming@0.1.0");
    const confined = mechanism.available ? "pass" : "skip";
    expect(report.checks.map((check) => [check.id, check.status])).toEqual(CHECK_IDS.map((id) => [id, id === "confined" ? confined : "pass"]));
    expect(report.ok).toBe(true);
  });

  test.each(BROKEN)("%s: %s is %s, naming the problem and the fix; no other check fails", async (name, id, status, text, options) => {
    const report = await checkPlugin(fixture(name), options);
    const check = report.checks.find((candidate) => candidate.id === id);
    expect(check?.status).toBe(status);
    expect(check?.problems.join("\n")).toContain(text);
    expect(check?.fix).toBeString();
    // Run confined with its grants, what it does without them is refused too: the confined check names it.
    const refused = REFUSED[name];
    const confined = report.checks.find((candidate) => candidate.id === "confined");
    if (refused && mechanism.available) {
      expect(confined?.status).toBe("fail");
      expect(confined?.problems.filter((problem) => refused.test(problem))).toHaveLength(1);
      expect(confined?.fix).toBeString();
    }
    if (refused && !mechanism.available) expect(confined?.problems.join("\n")).toContain("the plugin was not run confined");
    const others = report.checks.filter((candidate) => candidate.id !== id && candidate.status === "fail" && !(refused && candidate.id === "confined"));
    expect(others.map((other) => other.id)).toEqual([]);
    expect(report.ok).toBe(status !== "fail");
  });

  test("without the sandbox's mechanism, the confined check is skipped, saying what this system lacks", async () => {
    process.env[DISABLE_VARIABLE] = "landlock";
    try {
      const report = await checkPlugin(fixture("writes-undeclared"));
      const check = report.checks.find((candidate) => candidate.id === "permissions");
      expect(check?.problems).toEqual(["changed files without asking for fs.write: created notes.txt (calling its tools)"]);
      expect(report.checks.find((candidate) => candidate.id === "confined")).toMatchObject({
        status: "skip",
        problems: [
          "the plugin was not run confined, so operations its grants do not cover are only observed, not refused: this system lacks Landlock (Linux 5.13 or later with Landlock enabled, e.g. lsm=landlock)",
        ],
      });
    } finally {
      delete process.env[DISABLE_VARIABLE];
    }
  });

  test("with no plugboard to run it, the confined check is skipped, saying how to get one; the others run", async () => {
    process.env[PLUGBOARD_BIN] = "/no/such/plugboard";
    try {
      const report = await checkWith(fixture("conforming"));
      expect(report.checks.find((check) => check.id === "confined")).toMatchObject({
        status: "skip",
        problems: [
          "the plugin was not run confined, so operations its grants do not cover are only observed, not refused: PLUGBOARD_BIN names /no/such/plugboard, which is not an executable file: install the CLI (bun add -g @plugboard/cli, or bun add -d @plugboard/cli in the plugin's folder), or name a plugboard executable with PLUGBOARD_BIN=PATH",
        ],
      });
      expect(report.checks.filter((check) => check.status !== "pass").map((check) => check.id)).toEqual(["confined"]);
      expect(report.ok).toBe(true);
    } finally {
      delete process.env[PLUGBOARD_BIN];
    }
  });

  test("a plugboard that does not serve the plugin fails the confined check with what it said, and nothing crashes", async () => {
    const refuses = ["/bin/sh", "-c", "echo 'plugboard: Plugin x is not what this plugboard loads.' >&2; exit 2", "plugboard"];
    const report = await checkPlugin(fixture("conforming"), { plugboard: refuses });
    expect(report.checks.find((check) => check.id === "confined")).toMatchObject({
      status: "fail",
      problems: ["plugboard did not serve the plugin confined: Plugin x is not what this plugboard loads."],
    });
  });

  test("a manifest whose tools are not the code's fails tools with what plugboard plugin sync would change, and sync as the fix", async () => {
    const report = await checkPlugin(fixture("tools-described-otherwise"));
    const tools = report.checks.find((check) => check.id === "tools");
    expect(tools?.problems).toEqual([
      "the manifest's tools are not the code's; plugboard plugin sync would change them:",
      '  changed the description of echo: "Say the text back." → "Repeat the text."',
    ]);
    expect(tools?.fix).toBe(
      `Run plugboard plugin sync ${fixture("tools-described-otherwise")}: it writes each tool's name and the first sentence of its description, from the code, into plugboard.plugin.json.`,
    );
    // The plugin loaded: the other checks ran.
    expect(report.checks.find((check) => check.id === "invalid-arguments")?.status).toBe("pass");
  });

  test("checks that need a loaded plugin are skipped, saying why, when the manifest is invalid", async () => {
    const report = await checkPlugin(fixture("manifest-version-mismatch"));
    const skipped = report.checks.filter((check) => check.status === "skip");
    expect(skipped.map((check) => check.id)).toEqual(["tools", "strict-schemas", "dialects", "invalid-arguments", "foreseeable-errors", "abort", "quiet", "permissions", "confined"]);
    expect(skipped[1]?.problems).toEqual(["the manifest is invalid, so no code ran"]);
  });

  test("unfitInputs that do not match the parameters are reported, not silently dropped", async () => {
    const report = await checkPlugin(fixture("conforming"), { unfitInputs: { count_words: [{ file: "x" }] } });
    const check = report.checks.find((candidate) => candidate.id === "foreseeable-errors");
    expect(check?.status).toBe("fail");
    expect(check?.problems[0]).toStartWith("count_words: unfitInputs.count_words[0] does not match the tool's parameters");
  });

  test("a plugin whose dependencies are not installed fails tools, saying so and to run bun install", async () => {
    // A copy outside this repository: no node_modules above it holds @plugboard/core.
    const copy = join(await realpath(await mkdtemp(join(tmpdir(), "plugboard-not-installed-"))), "conforming");
    await cp(fixture("conforming"), copy, { recursive: true });
    try {
      const report = await checkPlugin(copy);
      const tools = report.checks.find((check) => check.id === "tools");
      expect(tools?.status).toBe("fail");
      expect(tools?.problems).toEqual([
        `its dependencies are not installed: @plugboard/core (no node_modules/NAME in ${copy} or any folder above it), so its entry cannot load`,
      ]);
      expect(tools?.fix).toBe(`Install the plugin's dependencies: run bun install in ${copy}, then check again.`);
      expect(report.checks.find((check) => check.id === "permissions")?.problems).toEqual(["the plugin's dependencies are not installed"]);
    } finally {
      await rm(join(copy, ".."), { recursive: true, force: true });
    }
  });

  test("a package.json that is not JSON fails the package check, and the report is still made", async () => {
    // Outside this repository, so the entry cannot load either: the tools check then looks for missing dependencies in package.json too.
    const copy = join(await realpath(await mkdtemp(join(tmpdir(), "plugboard-bad-package-json-"))), "conforming");
    await cp(fixture("conforming"), copy, { recursive: true });
    await writeFile(join(copy, "package.json"), "{ not json");
    try {
      const report = await checkPlugin(copy);
      expect(report.checks.find((check) => check.id === "package")?.problems).toEqual([
        "package.json is missing or not valid JSON: a plugin is published as an npm package",
      ]);
      expect(report.plugin).toBe("plugboard-plugin-conforming@0.1.0");
      expect(report.ok).toBe(false);
    } finally {
      await rm(join(copy, ".."), { recursive: true, force: true });
    }
  });

  test("refuses a folder that does not exist", async () => {
    const error = await checkPlugin(fixture("no-such-plugin")).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(KitError);
    expect((error as KitError).code).toBe("PLUGIN_NOT_FOUND");
    expect((error as KitError).message).toContain("does not exist or is not a folder");
  });
});

/** A copy of fixture `name` outside this repository (nothing installed for it), with `edit` applied to its JSON files. */
async function bareCopy(name: string, edit: (files: { pkg: Record<string, unknown>; manifest: Record<string, unknown> }) => void) {
  const base = await realpath(await mkdtemp(join(tmpdir(), "plugboard-bare-")));
  const copy = join(base, name);
  await cp(fixture(name), copy, { recursive: true });
  const files = {
    pkg: JSON.parse(await Bun.file(join(copy, "package.json")).text()) as Record<string, unknown>,
    manifest: JSON.parse(await Bun.file(join(copy, "plugboard.plugin.json")).text()) as Record<string, unknown>,
  };
  edit(files);
  await writeFile(join(copy, "package.json"), JSON.stringify(files.pkg, null, 2));
  await writeFile(join(copy, "plugboard.plugin.json"), JSON.stringify(files.manifest, null, 2));
  return { copy, [Symbol.asyncDispose]: () => rm(base, { recursive: true, force: true }) };
}

describe("checkPlugin with nothing installed: package.json, the manifest and the names are checked all the same", () => {
  test.each([
    ["a version that is not package.json's", ({ manifest }) => Object.assign(manifest, { version: "0.2.0" }), "its manifest says plugboard-plugin-conforming@0.2.0 but its package.json says plugboard-plugin-conforming@0.1.0"],
    ["a contract this core does not provide", ({ manifest }) => Object.assign(manifest, { contract: "^2.0.0" }), "it supports contract ^2.0.0, and the @plugboard/core it is checked with provides"],
    ["a tool name the providers refuse", ({ manifest }) => Object.assign(manifest, { tools: [{ name: "count words", description: "Count." }] }), "tools[0].name: expected string to match '^[A-Za-z0-9_-]{1,64}$'"],
    ["a tool listed twice", ({ manifest }) => Object.assign(manifest, { tools: [{ name: "a", description: "A." }, { name: "a", description: "A." }] }), "each tool name must appear once, got a more than once"],
    ["a permission that does not exist", ({ manifest }) => Object.assign(manifest, { permissions: ["fs.everything"] }), "permissions[0]:"],
    ["an entry outside the folder", ({ manifest }) => Object.assign(manifest, { entry: "../elsewhere.ts" }), "its entry ../elsewhere.ts is not a file inside the plugin's folder"],
  ] as const satisfies readonly (readonly [string, (files: { pkg: Record<string, unknown>; manifest: Record<string, unknown> }) => void, string])[])(
    "%s fails the manifest check, and no code check asks for an install",
    async (_case, edit, text) => {
      await using bare = await bareCopy("conforming", edit);
      const report = await checkWith(bare.copy);
      const manifest = report.checks.find((check) => check.id === "manifest");
      expect(manifest?.status).toBe("fail");
      expect(manifest?.problems.join("\n")).toContain(text);
      expect(report.checks.filter((check) => check.status === "skip").map((check) => check.problems[0])).toEqual(Array(9).fill("the manifest is invalid, so no code ran"));
      expect(JSON.stringify(report)).not.toContain("bun install");
    },
  );

  test("a peerDependencies range that leaves out the core it is checked with fails the package check; the code checks then ask for bun install", async () => {
    await using bare = await bareCopy("conforming", ({ pkg }) => Object.assign(pkg, { peerDependencies: { "@plugboard/core": "^0.2.0" } }));
    const report = await checkWith(bare.copy);
    expect(report.checks.find((check) => check.id === "package")?.problems).toEqual([
      `"peerDependencies"["@plugboard/core"] is ^0.2.0, which leaves out @plugboard/core ${corePackage.version}, the one it is checked with: make the range include it (e.g. ^${corePackage.version}), or check it with the Plugboard it names`,
    ]);
    expect(report.checks.find((check) => check.id === "manifest")?.status).toBe("pass");
    expect(report.checks.find((check) => check.id === "tools")?.fix).toBe(`Install the plugin's dependencies: run bun install in ${bare.copy}, then check again.`);
  });
});
