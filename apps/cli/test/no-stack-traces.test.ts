/**
 * No person-facing failure prints a stack: every command, given the broken inputs a newcomer
 * meets first (a missing or invalid config, a plugin that is not installed, a missing
 * folder, a bad flag, a bad argument), exits non-zero with messages only.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { symlink } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SPECS } from "../src/commands/index.ts";
import { plugboard, spawnPlugboard, tempFolder } from "./helpers.ts";

setDefaultTimeout(60_000);

const READ_FILE = fileURLToPath(new URL("../../../plugins/read-file", import.meta.url));

/** Lines only a crash prints: a stack frame, Bun's source excerpt and its error line, Bun's version footer. */
const CRASH_LINE = /^( {4}at |\d+ \| |error: |Bun v\d)/m;

let dir = "";
let remove = async () => {};
beforeAll(async () => {
  ({ dir, remove } = await tempFolder({
    "workspace/notes.txt": "hello\n",
    "cases.json": JSON.stringify([{ tool: "bash", args: { command: "ls" }, expect: "ask" }]),
    "invalid.json": '{ "plugins": [\n',
    "missing-plugin.json": JSON.stringify({ sandbox: "off", plugins: [{ package: "plugboard-plugin-nope", permissions: [] }] }),
    "missing-workspace.json": JSON.stringify({ sandbox: "off", workspace: "./no-such-folder", plugins: [] }),
    "read-file.json": JSON.stringify({ sandbox: "off", workspace: "./workspace", plugins: [{ path: READ_FILE, permissions: ["fs.read"] }] }),
    // Confined where the machine can: no plugin runs in the CLI's process, so no handler of stray plugin errors is installed.
    "read-file-confined.json": JSON.stringify({ sandbox: "auto", workspace: "./workspace", plugins: [{ path: READ_FILE, permissions: ["fs.read"] }] }),
    "not-a-plugin/package.json": JSON.stringify({ name: "not-a-plugin", version: "0.1.0" }),
    "dotenv-loop/plugboard.config.json": JSON.stringify({ sandbox: "off", plugins: [] }),
    "manifest-loop.json": JSON.stringify({ sandbox: "off", workspace: "./workspace", plugins: [{ path: "./manifest-loop", permissions: [] }] }),
    "manifest-loop/package.json": JSON.stringify({ name: "manifest-loop", version: "0.1.0" }),
  }));
  // A config that cannot be read (a link to itself: ELOOP, even for root), and one whose .env beside it cannot.
  await symlink("loop.json", join(dir, "loop.json"));
  await symlink(".env", join(dir, "dotenv-loop/.env"));
  // A plugin whose manifest cannot be read.
  await symlink("plugboard.plugin.json", join(dir, "manifest-loop/plugboard.plugin.json"));
});
afterAll(() => remove());

/** Runs `args` in the temp folder and checks it failed with messages only. */
async function failsWithoutStack(args: readonly string[]) {
  const result = await plugboard(args, { cwd: dir });
  expect(result.code).not.toBe(0);
  expect(`${result.stdout}\n${result.stderr}`).not.toMatch(CRASH_LINE);
  return result;
}

/** Every command that reads a config, as a command line (the interactive session reads an empty stdin). */
const WITH_CONFIG: readonly (readonly string[])[] = [[], ["run", "hi"], ["tools"], ["plugins"], ["call", "read_file", "{}"], ["check"], ["mcp"], ["web", "--port", "0"], ["plugin", "remove", "nope"], ["plugin", "accept", "nope"], ["mcp", "login", "nope"], ["mcp", "logout", "nope"]];
/** The policy's commands build the app as every start does (a rule naming a tool no plugin provides is refused), but run nothing. */
const POLICY: readonly (readonly string[])[] = [["policy", "explain", "bash", '{"command":"ls"}'], ["policy", "test", "cases.json"]];

describe("a broken config", () => {
  test.each(["no-such-config.json", "invalid.json", "missing-plugin.json", "missing-workspace.json", ".", "loop.json", "dotenv-loop/plugboard.config.json", "manifest-loop.json"])("--config %s: every command exits 2 without a stack", async (config) => {
    // Every command line at once: each is a process of its own, and mostly waits on its start.
    await Promise.all(WITH_CONFIG.map(async (args) => {
      const result = await failsWithoutStack([...args, "--config", config]);
      expect({ args, code: result.code }).toEqual({ args, code: 2 });
    }));
  });

  test.each(["no-such-config.json", "invalid.json", "missing-plugin.json", "missing-workspace.json", ".", "loop.json", "dotenv-loop/plugboard.config.json", "manifest-loop.json"])("--config %s: the policy's commands exit 2 without a stack", async (config) => {
    await Promise.all(POLICY.map(async (args) => {
      const result = await failsWithoutStack([...args, "--config", config]);
      expect({ args, code: result.code }).toEqual({ args, code: 2 });
    }));
  });
});

describe("bad command lines", () => {
  test.each(SPECS.map((spec) => [spec.name]))("plugboard %s with an unknown flag exits 2 without a stack", async (name) => {
    const words = name === "interactive" ? [] : name.split(" ");
    const result = await failsWithoutStack([...words, "--no-such-flag"]);
    expect(result.code).toBe(2);
  });

  test.each([
    [["run", "--max-steps", "many", "hi"]],
    [["mcp", "--http", "--port", "99999"]],
    [["plugin", "add", "--registry", "ftp://x", "p"]],
    [["plugin", "add", "./not-a-package-name"]],
    [["tools", "--workspace", "no-such-folder"]],
    [["plugin", "new", "Not A Name"]],
    [["plugin", "new", "notes", "--dir", "/proc/no-such-folder"]],
    [["plugin", "check", "no-such-folder"]],
    [["plugin", "sync", "no-such-folder"]],
    [["plugin", "check", "not-a-plugin"]],
    [["plugin", "sync", "not-a-plugin"]],
    [["trust", "no-such-file"]],
    [["help", "no-such-command"]],
    [["no-such-command"]],
  ])("%p exits non-zero without a stack", async (args) => {
    await failsWithoutStack(args);
  });
});

describe("plugboard call with a bad call", () => {
  test.each([
    [["read_file", "{not json"], "Error: Invalid arguments: "],
    [["read_file", "[1]"], "Error: Invalid arguments: expected a JSON object"],
    [["read_file", '{"path": 1}'], "Error: "],
    [["no_such_tool", "{}"], "Error: Unknown tool: no_such_tool (available: read_file)"],
    [["read_file", '{"path": "/etc/passwd"}'], "Error: "],
  ])("%p exits 1 with the error result, without a stack", async (args, error) => {
    const result = await failsWithoutStack(["call", ...args, "--config", join(dir, "read-file.json")]);
    expect(result.code).toBe(1);
    expect(result.stdout).toStartWith(error);
  });
});

describe("what the failures it found now say", () => {
  test("plugin remove with a config that is not valid JSON: the config's syntax error (exit 2)", async () => {
    const result = await failsWithoutStack(["plugin", "remove", "nope", "--config", "invalid.json"]);
    expect(result).toEqual({
      code: 2,
      stdout: "",
      stderr: `plugboard: Config file ${join(dir, "invalid.json")} is not valid JSON: line 2, column 1: expected "," or "]", found the end of the file\nFix the JSON syntax there.\n`,
    });
  });

  test("a state folder where a file stands (XDG_STATE_HOME, or HOME): one message naming it and the variable to set (exit 2)", async () => {
    const file = join(dir, "notes-not-a-folder");
    await Bun.write(file, "a file\n");
    const cases = [
      [{ XDG_STATE_HOME: file }, `${file}/plugboard/writable-spans`, "Set XDG_STATE_HOME to a folder you can write (or unset it to use ~/.local/state)."],
      [{ XDG_STATE_HOME: "", HOME: file }, `${file}/.local/state/plugboard/writable-spans`, "Set XDG_STATE_HOME to a folder you can write, or HOME to your home folder."],
    ] as const;
    for (const [env, folder, fix] of cases) {
      const result = await plugboard(["run", "hi", "--config", "read-file.json"], { cwd: dir, env });
      expect(result).toEqual({ code: 2, stdout: "", stderr: `plugboard: Plugboard's state folder ${folder} cannot be made: ${file} is a file, not a folder.\n${fix}\n` });
    }
  });

  test("plugin new into a folder that cannot be written: one line naming it (exit 2)", async () => {
    const result = await failsWithoutStack(["plugin", "new", "notes", "--dir", "/proc/no-such-folder"]);
    expect(result).toEqual({
      code: 2,
      stdout: "",
      stderr: "plugboard: Cannot write the plugin into /proc/no-such-folder (ENOENT). Pick a folder you can write with --dir DIR.\n",
    });
  });
});

describe("plugboard web where it cannot listen", () => {
  test("a port in use, or an address this machine does not have: one line, exit 2", async () => {
    using taken = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("taken") });
    const inUse = await failsWithoutStack(["web", "--port", String(taken.port), "--config", join(dir, "read-file.json")]);
    expect(inUse).toEqual({
      code: 2,
      stdout: "",
      stderr: `plugboard: Could not listen: port ${taken.port} on 127.0.0.1 is in use by another program. Choose another with --port, or --port 0 for any free one.\n`,
    });
    const args = ["web", "--host", "192.0.2.1", "--port", "0", "--token", "secret", "--config", join(dir, "read-file.json")];
    expect(await failsWithoutStack(args)).toEqual({
      code: 2,
      stdout: "",
      stderr: "plugboard: Could not listen: 192.0.2.1 is not an address of this machine. Choose one with --host (default 127.0.0.1).\n",
    });
  });
});

describe("plugboard mcp --http where it cannot listen", () => {
  test("a port in use: one line naming it, exit 2", async () => {
    using taken = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("taken") });
    const result = await failsWithoutStack(["mcp", "--http", "--port", String(taken.port), "--config", join(dir, "read-file.json")]);
    expect(result).toEqual({
      code: 2,
      stdout: "",
      stderr: `plugboard: port ${taken.port} on 127.0.0.1 is in use; pick another with --port N (0: any free port) (see plugboard mcp --help)\n`,
    });
  });

  test("an address this machine does not have (192.0.2.1, kept for documentation): one line, exit 2", async () => {
    const args = ["mcp", "--http", "--host", "192.0.2.1", "--port", "0", "--config", join(dir, "read-file.json")];
    const result = await plugboard(args, { cwd: dir, env: { PLUGBOARD_MCP_TOKEN: "secret" } });
    expect(result).toEqual({
      code: 2,
      stdout: "",
      stderr: "plugboard: 192.0.2.1 is not an address of this machine; pick one with --host H (default 127.0.0.1) (see plugboard mcp --help)\n",
    });
  });
});

describe("output whose reader is gone", () => {
  // The reader of stdout closes its end before the command writes a byte (a `| head -1` that had
  // its line, a viewer quit): each write fails with EPIPE. Through `print` and through Node's stream.
  test.each([
    [["--help"], 0],
    [["call", "read_file", '{"path": "notes.txt"}', "--config", "read-file-confined.json"], 0],
    [["call", "read_file", '{"path": "missing.txt"}', "--config", "read-file-confined.json"], 1],
    [["plugin", "new", "notes-epipe", "--dir", "scaffolds"], 0],
  ] as const)("%p ends with its own exit code, and no stack", async (args, code) => {
    const child = spawnPlugboard(args, { cwd: dir });
    await child.stdout.cancel();
    await child.stdin.end();
    const [stderr, exited] = await Promise.all([new Response(child.stderr).text(), child.exited]);
    expect(stderr).not.toMatch(CRASH_LINE);
    expect(stderr).not.toContain("EPIPE");
    expect(exited).toBe(code);
  });
});
