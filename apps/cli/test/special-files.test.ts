/**
 * Files that are not regular files, in the places the app reads at its start: a config, the
 * `.env` beside it, the lock, a plugin's manifest or `package.json`, a repository's git config.
 * A cloned repository can hold them as links (git keeps links), and a plugin with write access
 * can leave a FIFO behind. A plain read of a FIFO waits for a writer (for ever: the app hangs
 * before it says anything) and one of `/dev/zero` never ends; each is refused at once with one
 * message that names it, or passed over where the app only looks into the file (git's config,
 * for the protections). Each case fails by hanging, ended here, when its defence goes.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { FIRST_PARTY, type Finished, PATIENCE_MS, spawnPlugboard, tempFolder } from "./helpers.ts";

const BASH = FIRST_PARTY.find(({ path }) => path.endsWith("/bash")) ?? FIRST_PARTY[0];
/** A manifest the loader accepts, for the cases about the files beside it. */
const MANIFEST = { name: "notes", version: "1.0.0", contract: "^1.0.0", entry: "index.ts", permissions: [], tools: [{ name: "notes", description: "Notes." }] };

let dir = "";
let remove = async () => {};
beforeAll(async () => {
  ({ dir, remove } = await tempFolder({ "workspace/notes.txt": "hello\n" }));
});
afterAll(() => remove());

/** `plugboard ARGS` in `cwd`, ended (and failed) if it has not exited within the patience every CLI test has. */
async function runOrHang(args: readonly string[], cwd: string): Promise<Finished> {
  const child = spawnPlugboard(args, { cwd });
  await child.stdin.end();
  const timer = setTimeout(() => child.kill("SIGKILL"), PATIENCE_MS);
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  clearTimeout(timer);
  expect({ args, hung: child.signalCode === "SIGKILL" }).toEqual({ args, hung: false });
  return { code, stdout, stderr };
}

/** A folder of its own under the test's folder, with `files` written and the FIFOs and links made. */
async function place(name: string, files: Record<string, unknown>, special: { readonly fifos?: readonly string[]; readonly zeros?: readonly string[] }): Promise<string> {
  const folder = join(dir, name);
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(folder, path, ".."), { recursive: true });
    await writeFile(join(folder, path), typeof content === "string" ? content : JSON.stringify(content));
  }
  for (const path of special.fifos ?? []) {
    await mkdir(join(folder, path, ".."), { recursive: true });
    expect(Bun.spawnSync(["mkfifo", join(folder, path)]).exitCode).toBe(0);
  }
  for (const path of special.zeros ?? []) {
    await mkdir(join(folder, path, ".."), { recursive: true });
    await symlink("/dev/zero", join(folder, path));
  }
  return folder;
}

const config = (plugins: readonly unknown[] = []) => ({ sandbox: "off", workspace: "../workspace", plugins });
const notes = { path: "./notes", permissions: [] };

describe("refused at once, with one message naming what the file is", () => {
  test.each([
    ["the config, a FIFO", { fifos: ["plugboard.config.json"] }, {}, /^plugboard: Cannot read \S+\/plugboard\.config\.json: it is a FIFO \(named pipe\), not a regular file$/m],
    ["the .env beside the config, a link to /dev/zero", { zeros: [".env"] }, { "plugboard.config.json": config() }, /^plugboard: Cannot read \S+\/\.env: it is a character device, not a regular file$/m],
    [
      "the lock beside the config, a FIFO",
      { fifos: ["plugboard.lock.json"] },
      { "plugboard.config.json": config([notes]), "notes/plugboard.plugin.json": MANIFEST, "notes/index.ts": "export default {};\n" },
      /^plugboard: The lock file \S+\/plugboard\.lock\.json is not one this Plugboard can read:\n {2}it is a FIFO \(named pipe\), not a regular file$/m,
    ],
    ["a plugin's manifest, a link to /dev/zero", { zeros: ["notes/plugboard.plugin.json"] }, { "plugboard.config.json": config([notes]) }, /^plugboard: Plugin \.\/notes's manifest cannot be read: it is a character device, not a regular file\.$/m],
    [
      "a plugin's package.json, a FIFO",
      { fifos: ["notes/package.json"] },
      { "plugboard.config.json": config([notes]), "notes/plugboard.plugin.json": MANIFEST, "notes/index.ts": "export default {};\n" },
      /^plugboard: Plugin notes's package\.json cannot be read: it is a FIFO \(named pipe\), not a regular file\.$/m,
    ],
  ] as const)("%s", async (name, special, files, message) => {
    const folder = await place(name.replaceAll(/\W+/g, "-"), files, special);
    const result = await runOrHang(["tools"], folder);
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 2, stdout: "" });
    expect(result.stderr).toMatch(message);
  }, PATIENCE_MS + 10_000);
});

test("a repository whose git config is a FIFO: confined bash runs, the protections' look at it passed over", async () => {
  const folder = await place("git-config-fifo", { "workspace/notes.txt": "hello\n", "plugboard.config.json": { sandbox: "auto", workspace: "./workspace", plugins: [BASH] } }, { fifos: ["workspace/.git/config"] });
  const result = await runOrHang(["call", "bash", JSON.stringify({ command: "cat notes.txt" })], folder);
  expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 0, stdout: "hello\nexit code: 0\n" });
}, PATIENCE_MS + 10_000);
