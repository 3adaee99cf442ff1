import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { waitFor } from "@plugboard/test-helpers";
import { FIRST_PARTY, STACK_FRAME, plugboard, spawnPlugboard, tempFolder, watch, writeConfig } from "./helpers.ts";

const SHIPPED = fileURLToPath(new URL("../plugboard.config.json", import.meta.url));
const PLUGINS = fileURLToPath(new URL("../../../plugins/", import.meta.url));
const README = "# Demo project\nsecond line\nthird line\n";
let dir = "";
let workspace = "";
let remove = async () => {};
let config = "";

beforeAll(async () => {
  ({ dir, remove } = await tempFolder({ "workspace/README.md": README }));
  workspace = join(dir, "workspace");
  config = await writeConfig(dir);
});
afterAll(() => remove());

describe("usage", () => {
  test.each([
    [["--frobnicate"], "unknown option '--frobnicate'"],
    [["run", "--max-steps", "0", "hi"], "--max-steps must be a whole number from 1 to 1000"],
    [["run", "--max-steps"], "--max-steps needs a value"],
    [["run", "--base-url", "not a url", "hi"], "--base-url must be an http(s) URL"],
    [["tools", "--max-steps", "3"], "--max-steps does not apply to 'plugboard tools'"],
    [["--json"], "--json does not apply to the interactive session"],
    [["frobnicate"], "unknown command 'frobnicate'"],
    [["call"], "missing arguments"],
    [["check", "extra"], "too many arguments"],
  ])("%p exits 2 with one line and a --help hint", async (args, message) => {
    const result = await plugboard(args, { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toContain(message);
    expect(result.stderr).toContain("--help)");
  });

  test("--version prints the version", async () => {
    const result = await plugboard(["--version"], { cwd: dir });
    expect(result).toMatchObject({ code: 0, stdout: "plugboard 0.1.0 (contract 1.2.0)\n" });
  });

  test.each([
    ["run", ["--json", "--max-steps N", "--base-url URL"], []],
    ["tools", ["--json", "--config FILE"], ["--max-steps"]],
    ["call", ["TOOL [JSON]", "--workspace DIR"], ["--model"]],
    ["check", ["--config FILE"], ["--json"]],
  ])("%s --help lists exactly the flags it accepts", async (command, present, absent) => {
    const result = await plugboard([command, "--help"], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toStartWith(`Usage: plugboard ${command}`);
    for (const text of present) expect(result.stdout).toContain(text);
    for (const text of absent) expect(result.stdout).not.toContain(text);
    for (const flag of absent) expect((await plugboard([command, flag, "x"], { cwd: dir })).code).toBe(2);
  });

  test("help of a word that is no command says so and lists the commands (nothing to ask the model)", async () => {
    const result = await plugboard(["help", "nosuch"], { cwd: dir });
    expect(result).toEqual({
      code: 2,
      stdout: "",
      stderr: "plugboard: there is no command 'nosuch'; the commands are resume, run, tools, plugins, call, check, mcp, web, trust, plugin, policy (see plugboard --help)\n",
    });
  });

  test.each([
    [["help", "rnu"], "plugboard: there is no command 'rnu'; did you mean run? (see plugboard --help)\n"],
    [["tols"], "plugboard: unknown command 'tols'; did you mean tools? (see plugboard --help)\n"],
    [["hlep"], "plugboard: unknown command 'hlep'; did you mean help? (see plugboard --help)\n"],
    [["plugin", "chek", "x"], "plugboard: unknown command 'plugin chek'; did you mean plugin check? (see plugboard plugin --help)\n"],
  ])("%p, a mistyped command, suggests the nearest one", async (args, stderr) => {
    expect(await plugboard(args, { cwd: dir })).toEqual({ code: 2, stdout: "", stderr });
  });

  test("check --help lists its exit codes truly: 1 for withheld tools", async () => {
    const result = await plugboard(["check", "--help"], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      "\nExits 0 when all is well; 1 when pinned tools are withheld, or plugins not loaded, because they changed since plugboard.lock.json pinned them (plugboard plugin accept NAME offers them again); 2 with the problems of the config or a plugin; 3 when the model endpoint fails.\n",
    );
  });

  test("help without a command lists every command", async () => {
    const result = await plugboard(["help"], { cwd: dir });
    for (const command of ["run PROMPT", "tools", "plugins", "call TOOL [JSON]", "check"]) {
      expect(result.stdout).toContain(`plugboard ${command}`);
    }
  });
});

describe("plugboard call", () => {
  test("runs one tool through the runtime", async () => {
    const result = await plugboard(["call", "--config", config, "read_file", '{"path":"README.md","limit":1}'], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toStartWith("# Demo project\n");
  });

  test.each([
    [["read_file", '{"path":"missing.txt"}'], "Error: "],
    [["glob"], "Error: Invalid arguments for glob"],
    [["no_such_tool"], "Error: Unknown tool: no_such_tool"],
  ])("%p exits 1 with the error result", async (args, text) => {
    const result = await plugboard(["call", "--config", config, ...args], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stdout).toStartWith(text);
  });

  test("--json prints the result as an event", async () => {
    const result = await plugboard(["call", "--json", "--config", config, "glob", '{"pattern":"*.md"}'], { cwd: dir });
    expect(JSON.parse(result.stdout)).toEqual({ type: "tool_result", id: "direct", is_error: false, content: "README.md" });
  });

  test("Ctrl-C stops a running bash command and exits 130", async () => {
    const child = spawnPlugboard(["call", "--config", config, "bash", '{"command":"touch started && sleep 30"}'], {
      cwd: dir,
    });
    const output = watch(child);
    await waitFor("the bash command started", () => existsSync(join(workspace, "started")), { timeoutMs: 30_000 });
    child.kill("SIGINT");
    expect((await output.finished()).code).toBe(130);
  });
});

describe("plugboard check, tools and plugins", () => {
  test("check validates a good config and says OK", async () => {
    const result = await plugboard(["check", "--config", config], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toStartWith(`OK: ${config}\n`);
    expect(result.stdout).toContain("tools:     5 (bash, read_file, write_file, edit_file, glob)");
  });

  test("check uses the shipped config when the folder has none", async () => {
    const result = await plugboard(["check"], { cwd: workspace });
    expect(result.code).toBe(0);
    expect(result.stdout).toStartWith(`OK: ${SHIPPED}\n`);
    expect(result.stdout).toContain(`workspace: ${workspace} (the current folder)`);
    expect(result.stdout).toContain("plugins:   5 (@plugboard/plugin-bash 0.1.0");
  });

  test.each([
    ["an invalid permission", { plugins: [{ ...FIRST_PARTY[4], permissions: ["fs.everything"] }] }, "plugins[0].permissions[0]"],
    ["a permission not granted", { plugins: [{ ...FIRST_PARTY[0], permissions: [] }] }, "process.spawn"],
    ["an unknown key", { plugins: [], colour: "blue" }, "colour"],
  ])("check refuses %s with exit 2", async (_name, body, text) => {
    await using folder = await tempFolder({ "plugboard.config.json": JSON.stringify(body) });
    const result = await plugboard(["check"], { cwd: folder.dir });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain(text);
    expect(result.stderr).not.toContain(STACK_FRAME);
  });

  test("a plugboard.config.json in the current folder is used", async () => {
    await using folder = await tempFolder({
      "plugboard.config.json": JSON.stringify({ plugins: [FIRST_PARTY[4]] }),
    });
    const result = await plugboard(["tools"], { cwd: folder.dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toStartWith("glob(pattern, path?, include_ignored?)\n");
    expect(result.stdout).not.toContain("read_file");
  });

  test("a plugboard.config.jsonc with comments and trailing commas in the current folder is used", async () => {
    await using folder = await tempFolder({
      "plugboard.config.jsonc": `// only the glob tool\n{ "plugins": [${JSON.stringify(FIRST_PARTY[4])},], }\n`,
    });
    const result = await plugboard(["tools"], { cwd: folder.dir });
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(result.stdout).toStartWith("glob(pattern, path?, include_ignored?)\n");
    expect(result.stdout).not.toContain("read_file");
  });

  test("a config in an empty folder naming first-party plugins by package resolves them from the CLI's installation", async () => {
    const entries = [
      { package: "@plugboard/plugin-read-file", permissions: ["fs.read"] },
      { package: "@plugboard/plugin-glob", permissions: ["fs.read"] },
    ];
    await using folder = await tempFolder({ "plugboard.config.json": JSON.stringify({ sandbox: "off", plugins: entries }), "notes.txt": "hello\n" });
    const called = await plugboard(["call", "read_file", '{"path":"notes.txt"}'], { cwd: folder.dir });
    expect(called).toMatchObject({ code: 0, stdout: "hello\n" });
    const listed = await plugboard(["plugins"], { cwd: folder.dir });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(`  from:        ${join(PLUGINS, "read-file")} (shipped with plugboard)\n`);
    const json = JSON.parse((await plugboard(["plugins", "--json"], { cwd: folder.dir })).stdout) as { origin: string }[];
    expect(json.map((plugin) => plugin.origin)).toEqual(["app", "app"]);
  });

  test("plugins lists each plugin with version, tools and permissions", async () => {
    const text = await plugboard(["plugins", "--config", config], { cwd: dir });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("@plugboard/plugin-edit-file 0.1.0\n  tools:       edit_file\n  permissions: fs.read, fs.write\n");
    const json = await plugboard(["plugins", "--json", "--config", config], { cwd: dir });
    const plugins = JSON.parse(json.stdout) as { name: string; tools: string[]; permissions: string[] }[];
    expect(plugins.map(({ name, tools, permissions }) => [name, tools, permissions])).toEqual([
      ["@plugboard/plugin-bash", ["bash"], ["process.spawn", "fs.read", "fs.write"]],
      ["@plugboard/plugin-read-file", ["read_file"], ["fs.read"]],
      ["@plugboard/plugin-write-file", ["write_file"], ["fs.write"]],
      ["@plugboard/plugin-edit-file", ["edit_file"], ["fs.read", "fs.write"]],
      ["@plugboard/plugin-glob", ["glob"], ["fs.read"]],
    ]);
  });
});

describe("the offline demo", () => {
  test("with no key and no base URL, a demo model really reads a file", async () => {
    await using folder = await tempFolder({
      "README.md": README,
      "plugboard.config.json": JSON.stringify({ plugins: FIRST_PARTY }),
    });
    const result = await plugboard(["run", "read README.md"], { cwd: folder.dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`Read README.md:\n${README}`);
    expect(result.stderr).toContain("offline demo model");
    expect(result.stderr).toContain("MODEL_API_KEY");
    expect(result.stderr).toContain(`workspace: ${folder.dir} (the current folder`);
    expect(result.stderr).toContain('[tool] read_file {"path":"README.md"} → # Demo project');
  });

  test("an edit of one place says 1 replacement", async () => {
    await using folder = await tempFolder({
      "src/answer.ts": "export const answer = 42;\n",
      "plugboard.config.json": JSON.stringify({ plugins: FIRST_PARTY }),
    });
    const result = await plugboard(["run", "--yes", "replace 42 with 43 in src/answer.ts"], { cwd: folder.dir });
    expect(result).toMatchObject({ code: 0, stdout: "Edited src/answer.ts (1 replacement)\n" });
    expect(await Bun.file(join(folder.dir, "src/answer.ts")).text()).toBe("export const answer = 43;\n");
  });

  test("`bun run plugboard` at the repository's root prints nothing of its own on stderr", async () => {
    const repo = fileURLToPath(new URL("../../../", import.meta.url));
    const child = Bun.spawn(["bun", "run", "plugboard", "--version"], { cwd: repo, env: { PATH: process.env.PATH ?? "" }, stdout: "pipe", stderr: "pipe" });
    const [stdout, stderr] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()]);
    expect({ code: await child.exited, stdout, stderr }).toEqual({ code: 0, stdout: "plugboard 0.1.0 (contract 1.2.0)\n", stderr: "" });
  });

  test("the root `plugboard` script keeps the folder the user ran it from", async () => {
    const repo = fileURLToPath(new URL("../../../", import.meta.url));
    const packages = join(repo, "packages");
    const child = Bun.spawn(["bun", "run", "plugboard", "check"], {
      cwd: packages,
      env: { PATH: process.env.PATH ?? "" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const stdout = await new Response(child.stdout).text();
    expect(await child.exited).toBe(0);
    expect(stdout).toContain(`workspace: ${packages} (the current folder)`);
  });
});
