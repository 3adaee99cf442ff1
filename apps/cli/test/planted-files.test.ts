/**
 * Files a confined plugin plants where none existed, for the next plugboard to read: the
 * sandbox cannot keep a name that does not exist yet read-only, so the app refuses a `.env`
 * beside the config, or a config in the current folder, created while plugins could write
 * there, until the person trusts it. Each twin plants the same file with the sandbox off and
 * no record of writable plugins: the next plugboard reads it, which is the attack's effect.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { plugboard, tempFolder } from "./helpers.ts";

const TIMEOUT_MS = 60_000;
const BASH = { package: "@plugboard/plugin-bash", permissions: ["process.spawn", "fs.read", "fs.write"] };
const PLANTED_URL = "http://127.0.0.1:9/planted/v1";
const states: string[] = [];
afterEach(async () => {
  await Promise.all(states.splice(0).map((folder) => rm(folder, { recursive: true, force: true })));
});

/** A fresh record folder (XDG_STATE_HOME) for one test's runs. */
async function stateHome(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), "plugboard-state-"));
  states.push(folder);
  return folder;
}

async function project(sandbox: "auto" | "off") {
  const folder = await tempFolder({ ".keep": "" });
  await writeFile(join(folder.dir, "plugboard.config.json"), JSON.stringify({ workspace: ".", sandbox, plugins: [BASH] }));
  return folder;
}

describe("a .env planted beside the config", () => {
  test("is not read by the next plugboard until the person trusts it", async () => {
    await using folder = await project("auto");
    const env = { XDG_STATE_HOME: await stateHome() };
    const plant = await plugboard(["call", "bash", JSON.stringify({ command: `echo BASE_URL=${PLANTED_URL} > .env` })], { cwd: folder.dir, env });
    expect(plant.code).toBe(0);
    const next = await plugboard(["check", "--offline"], { cwd: folder.dir, env });
    expect(next).toMatchObject({ code: 2, stdout: "" });
    expect(next.stderr).toContain(`${join(folder.dir, ".env")} (the .env beside the config) was created at `);
    expect(next.stderr).toContain(`Read it: if it is yours, run plugboard trust ${join(folder.dir, ".env")}; if not, delete it.`);
    expect(next.stderr).not.toContain("    at ");

    const trusted = await plugboard(["trust", ".env"], { cwd: folder.dir, env });
    expect(trusted).toMatchObject({ code: 0, stdout: `Trusted ${join(folder.dir, ".env")}: plugboard reads it again (a new file at that path is checked again).\n` });
    expect((await plugboard(["check", "--offline"], { cwd: folder.dir, env })).stdout).toContain(PLANTED_URL);
  }, TIMEOUT_MS);

  test("twin: planted with the sandbox off (no writable span recorded), the next plugboard reads it", async () => {
    await using folder = await project("off");
    const env = { XDG_STATE_HOME: await stateHome() };
    await plugboard(["call", "bash", JSON.stringify({ command: `echo BASE_URL=${PLANTED_URL} > .env` })], { cwd: folder.dir, env });
    const next = await plugboard(["check", "--offline"], { cwd: folder.dir, env });
    expect(next.code).toBe(0);
    expect(next.stdout).toContain(PLANTED_URL);
  }, TIMEOUT_MS);

  test("a .env that was there before the plugins could write is read as always", async () => {
    await using folder = await project("auto");
    await writeFile(join(folder.dir, ".env"), `BASE_URL=${PLANTED_URL}\n`);
    const env = { XDG_STATE_HOME: await stateHome() };
    await plugboard(["call", "bash", '{"command":"true"}'], { cwd: folder.dir, env });
    expect((await plugboard(["check", "--offline"], { cwd: folder.dir, env })).stdout).toContain(PLANTED_URL);
  }, TIMEOUT_MS);
});

describe("a config planted in the current folder", () => {
  test("where the shipped config was used, the next plugboard refuses it instead of turning the sandbox off", async () => {
    await using folder = await tempFolder({ ".keep": "" });
    const env = { XDG_STATE_HOME: await stateHome() };
    const off = JSON.stringify({ workspace: ".", sandbox: "off", plugins: [BASH] });
    // The shipped config (bash confined, asked about: call is the person's own call) is what runs here.
    const plant = await plugboard(["call", "bash", JSON.stringify({ command: `echo '${off}' > plugboard.config.json` })], { cwd: folder.dir, env });
    expect(plant.code).toBe(0);
    const next = await plugboard(["check", "--offline"], { cwd: folder.dir, env });
    expect(next.code).toBe(2);
    expect(next.stderr).toContain(`${join(folder.dir, "plugboard.config.json")} (the config in the current folder) was created at `);
    // Twin: the same file, with no writable span recorded, is taken: the sandbox is off.
    const twin = await plugboard(["check", "--offline"], { cwd: folder.dir, env: { XDG_STATE_HOME: await stateHome() } });
    expect(twin.stdout).toContain('sandbox:   off ("sandbox": "off"');
  }, TIMEOUT_MS);
});
