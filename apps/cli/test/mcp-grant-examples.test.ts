/**
 * docs/mcp.md's examples of granted paths ("Paths a server is granted"), each run confined
 * through the real CLI as the page writes it: `/opt/mcp/…` becomes a temp folder holding the
 * fixture servers (a Node one and a standard-library Python one), `~` and `/home/me` a test
 * HOME. The `npx` example fetches server-filesystem from the registry (skipped, saying so,
 * when it cannot be reached); the `uv` one runs only where uv is on PATH (skipped, saying so).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { detectMechanism } from "@plugboard/sandbox";
import { type Finished, npmRegistryProblem, plugboard, tempFolder } from "./helpers.ts";

const TIMEOUT_MS = 90_000;
const DOCS = readFileSync(fileURLToPath(new URL("../../../docs/mcp.md", import.meta.url)), "utf8");
const PLAIN_SERVER = fileURLToPath(new URL("./fixtures/plain-server/", import.meta.url));
const SECTION = DOCS.slice(DOCS.indexOf("#### Paths a server is granted"), DOCS.indexOf("### Popular servers"));
const confining = detectMechanism().available;
const uv = Bun.which("uv");
const registry = confining ? await npmRegistryProblem("@modelcontextprotocol/server-filesystem") : undefined;
if (!confining) console.warn("mcp-grant-examples.test.ts skipped: this system has no sandbox mechanism");
if (uv === null) console.warn("mcp-grant-examples.test.ts: the uv example is skipped: uv is not on PATH");
if (registry !== undefined) console.warn(`mcp-grant-examples.test.ts: the npx example is skipped: ${registry}`);

/**
 * A pyenv shim (`~/.pyenv/shims/python3`) runs pyenv, which runs Python: it needs
 * `process.spawn`, which the example does not grant (the page says so). The example is run
 * with the Python found on PATH without the shims.
 */
const PATH = (process.env.PATH ?? "/usr/bin:/bin")
  .split(":")
  .filter((folder) => !folder.includes("/.pyenv/"))
  .join(":");

let dir = "";
let home = "";
let remove = async () => {};

beforeAll(async () => {
  ({ dir, remove } = await tempFolder({ "workspace/README.md": "# Demo\n", "home/notes/today.md": "buy milk\n" }));
  dir = realpathSync(dir);
  home = join(dir, "home");
  cpSync(PLAIN_SERVER, join(dir, "opt/weather"), { recursive: true });
  mkdirSync(join(dir, "opt/weather/build"));
  cpSync(join(PLAIN_SERVER, "server.js"), join(dir, "opt/weather/build/index.js"));
  mkdirSync(join(dir, "opt/notes"));
  cpSync(join(PLAIN_SERVER, "server.py"), join(dir, "opt/notes/server.py"));
});
afterAll(() => remove());

/** The page's example entry whose command is `command`, with its paths made this test's. */
function example(command: string): object {
  const json = SECTION.slice(SECTION.indexOf("```json") + 7, SECTION.indexOf("```", SECTION.indexOf("```json") + 7));
  const inline = [...SECTION.matchAll(/`(\{ "mcp": .*?\})`/g)].map((match) => match[1] ?? "");
  const entries = [...(JSON.parse(json) as { plugins: object[] }).plugins, ...inline.map((text) => JSON.parse(text) as object)];
  const entry = entries.find((candidate) => JSON.stringify(candidate).includes(`"command":"${command}"`));
  if (entry === undefined) throw new Error(`docs/mcp.md's "Paths a server is granted" has no ${command} example`);
  return JSON.parse(JSON.stringify(entry).replaceAll("/opt/mcp/", `${dir}/opt/`).replaceAll("/home/me", home));
}

async function callExample(command: string, tool: string, args: object): Promise<Finished> {
  const config = join(dir, `${command}.json`);
  writeFileSync(config, JSON.stringify({ workspace: "./workspace", sandbox: "required", plugins: [example(command)] }));
  return plugboard(["call", "--config", config, tool, JSON.stringify(args)], { cwd: dir, env: { HOME: home, PATH } });
}

describe.skipIf(!confining)("docs/mcp.md: paths a server is granted", () => {
  test("node /opt/mcp/weather/build/index.js with its read entry answers", async () => {
    expect(await callExample("node", "echo", { text: "sunny" })).toMatchObject({ code: 0, stdout: "sunny\n" });
  }, TIMEOUT_MS);

  test("python3 /opt/mcp/notes/server.py with read and write ~/notes writes a note there", async () => {
    const written = await callExample("python3", "write_path", { path: join(home, "notes/tomorrow.md"), text: "call mum\n" });
    expect(written).toMatchObject({ code: 0, stdout: `wrote ${join(home, "notes/tomorrow.md")}\n` });
    expect(readFileSync(join(home, "notes/tomorrow.md"), "utf8")).toBe("call mum\n");
  }, TIMEOUT_MS);

  test.skipIf(uv === null)("uv run /opt/mcp/notes/server.py with its read entry answers", async () => {
    expect(await callExample("uv", "echo", { text: "from uv" })).toMatchObject({ code: 0, stdout: "from uv\n" });
  }, TIMEOUT_MS);

  test.skipIf(registry !== undefined)("npx -y @modelcontextprotocol/server-filesystem /home/me/notes with write ~/notes reads and writes there", async () => {
    const read = await callExample("npx", "fs_read_text_file", { path: join(home, "notes/today.md") });
    expect(read.code).toBe(0);
    expect(read.stdout).toContain("buy milk");
    const written = await callExample("npx", "fs_write_file", { path: join(home, "notes/later.md"), content: "water plants\n" });
    expect(written.code).toBe(0);
    expect(readFileSync(join(home, "notes/later.md"), "utf8")).toBe("water plants\n");
  }, TIMEOUT_MS);
});

