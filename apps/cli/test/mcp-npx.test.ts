/**
 * A real `npx -y` server from the npm registry (@modelcontextprotocol/server-filesystem),
 * confined: the first start downloads it into the server's own cache folder, a second start
 * (even without `network`) runs it from there, and it sees exactly its grants whatever its
 * arguments ask for. Skipped, saying why, when the registry cannot be reached or this system
 * has no sandbox.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { detectMechanism } from "@plugboard/sandbox";
import { npmRegistryProblem, plugboard, tempFolder } from "./helpers.ts";

const PACKAGE = "@modelcontextprotocol/server-filesystem";
/**
 * Starts download and unpack a package: more than bun's default 5 s on a slow link, and more
 * than the app's own bound on a silent server's start (the 10 s probe, then the SDK's 60 s for
 * `initialize`), so that a registry too slow for it fails with the app's message, not the test's timeout.
 */
const TIMEOUT = 120_000;

const skipped = await whySkipped();
if (skipped !== undefined) console.warn(`mcp-npx.test.ts skipped: ${skipped}`);

let dir = "";
let remove = async () => {};
let config = "";
let cache = "";
let workspace = "";
let outside = "";

/** Writes the config with these grants; the path stays the same, and so does the server's cache folder. */
async function grant(permissions: string[]): Promise<void> {
  // "/" lets the server itself read anything: the sandbox is the only wall. The outside folder
  // named as an argument must not become visible either.
  const server = { mcp: { command: "npx", args: ["-y", PACKAGE, "/", join(dir, "outside")] }, name: "filesystem", permissions };
  await writeFile(config, JSON.stringify({ workspace: "./workspace", sandbox: "required", plugins: [server] }));
}

const run = (args: string[]) => plugboard([...args, "--config", config], { cwd: dir, env: { XDG_CACHE_HOME: cache } });

async function toolNames(): Promise<string[]> {
  const result = await run(["tools", "--json"]);
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  return (JSON.parse(result.stdout) as { function: { name: string } }[]).map((tool) => tool.function.name);
}

const read = (path: string) => run(["call", "read_text_file", JSON.stringify({ path })]);

beforeAll(async () => {
  ({ dir, remove } = await tempFolder({ "workspace/notes.txt": "inside the workspace\n", "outside/secret.txt": "outside\n" }));
  config = join(dir, "plugboard.config.json");
  cache = join(dir, "cache");
  workspace = join(dir, "workspace");
  outside = join(dir, "outside/secret.txt");
});
// Removing npm's cache (thousands of files) can outlast bun's default 5 s on a busy machine.
afterAll(() => remove(), TIMEOUT);

describe.skipIf(skipped !== undefined)(`npx -y ${PACKAGE}, confined`, () => {
  test("the first start downloads it into the server's cache folder and lists its tools", async () => {
    await grant(["process.spawn", "network", "fs.read"]);
    expect(await toolNames()).toContain("read_text_file");
    const servers = join(cache, "plugboard/servers");
    const folders = readdirSync(servers);
    expect(folders).toEqual([expect.stringMatching(/^filesystem-[0-9a-f]{16}$/)]);
    // npm's cache (`~/.npm` to the server): the package's files and the installed copy npx runs.
    expect(existsSync(join(servers, folders[0] ?? "", ".npm/_cacache"))).toBe(true);
    expect(existsSync(join(servers, folders[0] ?? "", ".npm/_npx"))).toBe(true);
  }, TIMEOUT);

  test("a second start lists them from that cache", async () => {
    expect(await toolNames()).toContain("read_text_file");
  }, TIMEOUT);

  test("once cached it starts without network, and reads the workspace with fs.read", async () => {
    await grant(["process.spawn", "fs.read"]);
    expect(await toolNames()).toContain("read_text_file");
    // The server answers the file as text beside `{ content }`: the text is what the model reads.
    expect(await read(join(workspace, "notes.txt"))).toMatchObject({ code: 0, stdout: "inside the workspace\n" });
  }, TIMEOUT);

  test("it cannot read outside the workspace, even a folder its arguments name", async () => {
    const result = await read(outside);
    expect(result.code).toBe(1);
    // The server's own words come first (a line saying what the sandbox refused may follow).
    expect(result.stdout).toStartWith(`Error: ENOENT: no such file or directory, open '${outside}'\n`);
  }, TIMEOUT);

  test("without fs.read it cannot read the workspace", async () => {
    await grant(["process.spawn"]);
    const result = await read(join(workspace, "notes.txt"));
    expect(result.code).toBe(1);
    expect(result.stdout).toStartWith(`Error: ENOENT: no such file or directory, open '${join(workspace, "notes.txt")}'\n`);
  }, TIMEOUT);
});

/** Why these tests cannot run here, or undefined. */
async function whySkipped(): Promise<string | undefined> {
  const mechanism = detectMechanism();
  if (!mechanism.available) return `no sandbox on this system (it lacks ${mechanism.missing})`;
  return npmRegistryProblem(PACKAGE);
}
