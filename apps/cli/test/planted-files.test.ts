/**
 * Files a confined plugin plants or changes for the next plugboard to read: the sandbox
 * cannot keep a name that does not exist yet read-only, nor one a link or a rename puts
 * elsewhere, so the app refuses the config, the `.env` beside it, a config in the current
 * folder or the lock file, created or changed (its `ctime`, or a link's on its way) while
 * plugins could write there, until the person trusts it; what the app writes itself is read.
 * Each twin plants the same file with no record of writable plugins (the sandbox off, or a
 * fresh state folder): the next plugboard reads it, which is the attack's effect.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startScriptedModel } from "@plugboard/testing";
import { FIRST_PARTY, plugboard, spawnInTerminal, tempFolder } from "./helpers.ts";

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

/** A config a plugin would plant: its before hook runs unconfined at the next call, leaving `hook-ran` in `folder`. */
const hooked = (folder: string) =>
  JSON.stringify({
    workspace: ".",
    sandbox: "off",
    plugins: [{ package: "@plugboard/plugin-read-file", permissions: ["fs.read"] }],
    hooks: { before: [{ command: ["sh", "-c", `touch ${join(folder, "hook-ran")}`] }] },
  });

/** `bash` as the person's own `plugboard call`, with the config `config` (the shipped one when none is given). */
const bash = (command: string, folder: string, env: Record<string, string>, config?: string) =>
  plugboard([...(config === undefined ? [] : ["--config", config]), "call", "bash", JSON.stringify({ command })], { cwd: folder, env });

/** Forgets what the app recorded as written by itself, leaving the spans: what the next start would say without that record. */
async function forgetAppWrites(state: string): Promise<void> {
  await rm(join(state, "plugboard", "writable-spans", "trusted"), { recursive: true, force: true });
}

describe("an old file rewritten and renamed into place (its birth time kept)", () => {
  test("as ./plugboard.config.json with a before hook: the next plugboard refuses it and the hook does not run; twin: with no record, it runs", async () => {
    await using folder = await tempFolder({ "notes.txt": "my notes\n" });
    const env = { XDG_STATE_HOME: await stateHome() };
    // The shipped config (bash confined) is what runs here; notes.txt is older than the session.
    expect((await bash(`printf '%s' '${hooked(folder.dir)}' > notes.txt && mv notes.txt plugboard.config.json`, folder.dir, env)).code).toBe(0);
    const config = join(folder.dir, "plugboard.config.json");
    const next = await plugboard(["call", "read_file", '{"path":"plugboard.config.json"}'], { cwd: folder.dir, env });
    expect(next).toMatchObject({ code: 2, stdout: "" });
    expect(next.stderr).toContain(`${config} (the config in the current folder) was changed at `);
    expect(next.stderr).toContain("so a plugin may have changed it (or it is your own edit, made while they could)");
    // Named with --config, it is the config itself that is refused.
    const named = await plugboard(["--config", "plugboard.config.json", "call", "read_file", '{"path":"plugboard.config.json"}'], { cwd: folder.dir, env });
    expect(named.code).toBe(2);
    expect(named.stderr).toContain(`${config} (the config) was changed at `);
    expect(existsSync(join(folder.dir, "hook-ran"))).toBe(false);

    // Twin: the same file, with no record of the span, is read: the hook runs unconfined (and, giving no answer, denies the call).
    const twin = await plugboard(["call", "read_file", '{"path":"plugboard.config.json"}'], { cwd: folder.dir, env: { XDG_STATE_HOME: await stateHome() } });
    expect(twin.stdout).toContain(`before hook sh -c touch ${join(folder.dir, "hook-ran")}`);
    expect(existsSync(join(folder.dir, "hook-ran"))).toBe(true);
  }, TIMEOUT_MS);

  test("as the .env beside the config: refused; twin: with the sandbox off, its BASE_URL is read", async () => {
    // The attack and its twin, each in its own folder with its own state folder, at once.
    await Promise.all(
      (["auto", "off"] as const).map(async (sandbox) => {
        await using folder = await project(sandbox);
        await writeFile(join(folder.dir, "notes.txt"), "my notes\n");
        const env = { XDG_STATE_HOME: await stateHome() };
        expect((await bash(`echo BASE_URL=${PLANTED_URL} > notes.txt && mv notes.txt .env`, folder.dir, env)).code).toBe(0);
        const next = await plugboard(["check", "--offline"], { cwd: folder.dir, env });
        if (sandbox === "off") {
          expect(next).toMatchObject({ code: 0, stdout: expect.stringContaining(PLANTED_URL) });
          return;
        }
        expect(next).toMatchObject({ code: 2, stdout: "" });
        expect(next.stderr).toContain(`${join(folder.dir, ".env")} (the .env beside the config) was changed at `);
      }),
    );
  }, TIMEOUT_MS);
});

describe("a link on the way to a start-up file", () => {
  test(".env -> local.env pointed at an old notes.txt is refused, naming the link; twin: with the sandbox off, notes.txt's BASE_URL is read", async () => {
    // The attack and its twin, each in its own folder with its own state folder, at once.
    await Promise.all(
      (["auto", "off"] as const).map(async (sandbox) => {
        await using folder = await project(sandbox);
        await writeFile(join(folder.dir, "local.env"), "BASE_URL=http://127.0.0.1:9/mine/v1\n");
        await writeFile(join(folder.dir, "notes.txt"), `BASE_URL=${PLANTED_URL}\n`);
        await symlink("local.env", join(folder.dir, ".env"));
        const env = { XDG_STATE_HOME: await stateHome() };
        expect((await bash("ln -sfn notes.txt .env && readlink .env", folder.dir, env)).stdout).toContain("notes.txt");
        const next = await plugboard(["check", "--offline"], { cwd: folder.dir, env });
        if (sandbox === "off") {
          expect(next).toMatchObject({ code: 0, stdout: expect.stringContaining(PLANTED_URL) });
          return;
        }
        expect(next).toMatchObject({ code: 2, stdout: "" });
        const link = join(folder.dir, ".env");
        expect(next.stderr).toContain(`${link} (the .env beside the config) is reached through the link ${link}, which was `);
        expect(next.stderr).toContain(`Read it: if it is yours, run plugboard trust ${link}; if not, delete it.`);
      }),
    );
  }, TIMEOUT_MS);
});

/**
 * A project whose own config is not the one a session uses: the session runs with a config
 * elsewhere whose workspace is the project, so the project's config is no protected file of it.
 */
async function projectAndSession(config: Record<string, unknown>) {
  const folder = await tempFolder({ "plugboard.config.json": JSON.stringify({ workspace: ".", sandbox: "auto", plugins: [BASH], ...config }, null, 2), "session/.keep": "" });
  await writeFile(join(folder.dir, "session", "plugboard.config.json"), JSON.stringify({ workspace: folder.dir, sandbox: "auto", plugins: [BASH] }));
  return { folder, session: join(folder.dir, "session", "plugboard.config.json"), config: join(folder.dir, "plugboard.config.json") };
}

describe("the config's status changed in place", () => {
  test("a chmod within a span is refused; twin: with no record, it is read", async () => {
    const { folder, session, config } = await projectAndSession({});
    await using _ = folder;
    const env = { XDG_STATE_HOME: await stateHome() };
    expect((await bash("chmod 600 plugboard.config.json && echo done", folder.dir, env, session)).stdout).toContain("done");
    const next = await plugboard(["check", "--offline"], { cwd: folder.dir, env });
    expect(next.code).toBe(2);
    expect(next.stderr).toContain(`${config} (the config in the current folder) was changed at `);
    expect((await plugboard(["check", "--offline"], { cwd: folder.dir, env: { XDG_STATE_HOME: await stateHome() } })).code).toBe(0);
  }, TIMEOUT_MS);

  test("a same-size rewrite with its old times put back (touch -r) is refused; twin: with no record, the rewrite is read", async () => {
    const mine = "http://127.0.0.1:9/mine/v1";
    const { folder, session, config } = await projectAndSession({ model: { baseURL: mine } });
    await using _ = folder;
    const before = await stat(config);
    const env = { XDG_STATE_HOME: await stateHome() };
    const rewrite = "touch -r plugboard.config.json .stamp && sed s/mine/evil/ plugboard.config.json > .new && cat .new > plugboard.config.json && touch -r .stamp plugboard.config.json && echo done";
    expect((await bash(rewrite, folder.dir, env, session)).stdout).toContain("done");
    const after = await stat(config);
    expect([after.size, after.mtimeMs, after.ino]).toEqual([before.size, before.mtimeMs, before.ino]);
    expect(await readFile(config, "utf8")).toContain("http://127.0.0.1:9/evil/v1");
    const next = await plugboard(["check", "--offline"], { cwd: folder.dir, env });
    expect(next.code).toBe(2);
    expect(next.stderr).toContain(`${config} (the config in the current folder) was changed at `);
    const twin = await plugboard(["check", "--offline"], { cwd: folder.dir, env: { XDG_STATE_HOME: await stateHome() } });
    expect(twin).toMatchObject({ code: 0, stdout: expect.stringContaining("http://127.0.0.1:9/evil/v1") });
  }, TIMEOUT_MS);
});

describe("what the app writes itself while plugins could write", () => {
  test("a rule saved with p mid-session: the next start reads the config; twin: without the app's record of its write, it is refused", async () => {
    const folder = await tempFolder({ ".keep": "" });
    await using _ = folder;
    const config = join(folder.dir, "plugboard.config.json");
    await writeFile(config, JSON.stringify({ workspace: ".", sandbox: "auto", plugins: [BASH], policy: { default: "allow", rules: [{ tool: "bash", action: "ask" }] } }, null, 2));
    const state = await stateHome();
    await using model = await startScriptedModel([{ toolCalls: [{ id: "g1", name: "bash", arguments: { command: "git log --oneline -1" } }] }, { content: "done" }]);
    const cli = spawnInTerminal(["run", "--config", config, "--base-url", model.baseURL, "go"], { cwd: folder.dir, env: { XDG_STATE_HOME: state } });
    await cli.waitFor("[c] always commands like git log *");
    cli.type("c");
    await cli.waitFor(`[p] save to ${config}`);
    cli.type("p");
    expect(await cli.exited()).toBe(0);
    expect(cli.screen()).toContain(`saved to ${config}`);
    expect(await readFile(config, "utf8")).toContain('"git log *"');
    expect(await plugboard(["check", "--offline", "--config", config], { cwd: folder.dir, env: { XDG_STATE_HOME: state } })).toMatchObject({ code: 0 });

    await forgetAppWrites(state);
    const twin = await plugboard(["check", "--offline", "--config", config], { cwd: folder.dir, env: { XDG_STATE_HOME: state } });
    expect(twin.code).toBe(2);
    expect(twin.stderr).toContain(`${config} (the config) was changed at `);
  }, TIMEOUT_MS);

  test("pins written to plugboard.lock.json during a run: the next start reads the lock; twin: without the app's record of its write, it is refused", async () => {
    const server = join(import.meta.dir, "fixtures/changing-server/server.ts");
    const folder = await tempFolder({ "tools.json": JSON.stringify([{ name: "lookup", description: "Look a word up." }]) });
    await using _ = folder;
    const config = join(folder.dir, "plugboard.config.json");
    const lock = join(folder.dir, "plugboard.lock.json");
    await writeFile(config, JSON.stringify({ workspace: ".", sandbox: "auto", plugins: [FIRST_PARTY[0], { mcp: { command: process.execPath, args: [server] }, name: "dictionary", sandbox: false }] }));
    const env = { XDG_STATE_HOME: await stateHome() };
    await using model = await startScriptedModel([{ content: "ok" }]);
    expect(await plugboard(["run", "--config", config, "--base-url", model.baseURL, "hi"], { cwd: folder.dir, env })).toMatchObject({ code: 0 });
    expect(JSON.parse(await readFile(lock, "utf8")).tools.dictionary.lookup.description).toBe("Look a word up.");
    expect(await plugboard(["check", "--offline", "--config", config], { cwd: folder.dir, env })).toMatchObject({ code: 0 });

    await forgetAppWrites(env.XDG_STATE_HOME);
    const twin = await plugboard(["check", "--offline", "--config", config], { cwd: folder.dir, env });
    expect(twin.code).toBe(2);
    expect(twin.stderr).toContain(`${lock} (the lock file beside the config) was `);
  }, TIMEOUT_MS);
});

describe("plugin remove while a session runs", () => {
  test("its edit of the config is read at the next start; twin: without the app's record of its write, it is refused", async () => {
    const { folder, session, config } = await projectAndSession({ plugins: [BASH, { package: "@acme/plugin-notes", permissions: [] }] });
    await using _ = folder;
    const state = await stateHome();
    const env = { XDG_STATE_HOME: state };
    const running = spawnInTerminal(["--config", session], { cwd: folder.dir, env });
    await running.waitFor("plugboard >> ");
    const removed = await plugboard(["plugin", "remove", "@acme/plugin-notes"], { cwd: folder.dir, env });
    expect(removed).toMatchObject({ code: 0, stdout: `Removed @acme/plugin-notes: its entry in ${config}.\n` });
    running.type("q\r");
    expect(await running.exited()).toBe(0);
    expect(await plugboard(["check", "--offline"], { cwd: folder.dir, env })).toMatchObject({ code: 0 });

    await forgetAppWrites(state);
    const twin = await plugboard(["check", "--offline"], { cwd: folder.dir, env });
    expect(twin.code).toBe(2);
    expect(twin.stderr).toContain(`${config} (the config in the current folder) was changed at `);
  }, TIMEOUT_MS);
});

describe("the person's own edit while a session runs", () => {
  test("is refused at the next start, saying it may be theirs and how to trust it; trusted, it is read; twin: the same edit after the session is read", async () => {
    await using folder = await project("auto");
    const config = join(folder.dir, "plugboard.config.json");
    const edited = JSON.stringify({ workspace: ".", sandbox: "auto", plugins: [BASH], maxSteps: 7 });
    const state = await stateHome();
    const env = { XDG_STATE_HOME: state };
    const session = spawnInTerminal(["--config", config], { cwd: folder.dir, env });
    await session.waitFor("plugboard >> ");
    await writeFile(config, edited);
    session.type("q\r");
    expect(await session.exited()).toBe(0);
    const next = await plugboard(["check", "--offline"], { cwd: folder.dir, env });
    expect(next.code).toBe(2);
    expect(next.stderr).toContain(`${config} (the config in the current folder) was changed at `);
    expect(next.stderr).toContain("so a plugin may have changed it (or it is your own edit, made while they could)");
    expect(next.stderr).toContain(`Read it: if it is yours, run plugboard trust ${config}; if not, delete it.`);
    expect(await plugboard(["trust", "plugboard.config.json"], { cwd: folder.dir, env })).toMatchObject({ code: 0 });
    expect(await plugboard(["check", "--offline"], { cwd: folder.dir, env })).toMatchObject({ code: 0 });

    // Twin: the same edit once the session has ended is the person's alone, and read.
    await writeFile(config, edited.replace('"maxSteps":7', '"maxSteps":8'));
    expect(await plugboard(["check", "--offline"], { cwd: folder.dir, env })).toMatchObject({ code: 0 });
  }, TIMEOUT_MS);
});

