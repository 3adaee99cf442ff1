/**
 * A real `npx -y` MCP server whose `network` is narrowed to the npm registry's host (the one
 * `npm config get registry` names): npx downloads the server through the app's egress proxy,
 * every connection is an admitted audit line, the second start comes from the server's own
 * cache, and narrowed to another host the same start fails at once with the registry refused.
 * Skipped, saying why, when the registry cannot be reached or this system has no sandbox.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { detectMechanism } from "@plugboard/sandbox";
import { npmRegistryProblem, plugboard, tempFolder } from "./helpers.ts";

const PACKAGE = "@modelcontextprotocol/server-filesystem";
/** The first start downloads and unpacks the package: more than the app's own bound on a silent server's start (as in mcp-npx.test.ts). */
const TIMEOUT = 120_000;

const registry = await registryHost();
const skipped = await whySkipped();
if (skipped !== undefined) console.warn(`mcp-npx-network.test.ts skipped: ${skipped}`);

let dir = "";
let remove = async () => {};

beforeAll(async () => {
  ({ dir, remove } = await tempFolder({ "workspace/notes.txt": "inside the workspace\n" }));
});
// Removing npm's cache (thousands of files) can outlast bun's default 5 s on a busy machine.
afterAll(() => remove(), TIMEOUT);

/** Writes `name`.json with the server narrowed to `network`; runs ARGS with its own cache root and returns the result and the audit log's network lines. */
async function run(name: string, network: string[], args: string[]) {
  const config = join(dir, `${name}.json`);
  const server = { mcp: { command: "npx", args: ["-y", PACKAGE, "/"] }, name: "filesystem", permissions: ["process.spawn", "fs.read", "network"], network };
  await writeFile(config, JSON.stringify({ workspace: "./workspace", sandbox: "required", audit: `${name}.audit.jsonl`, plugins: [server] }));
  const result = await plugboard([...args, "--config", config], { cwd: dir, env: { XDG_CACHE_HOME: join(dir, `${name}-cache`) } });
  const text = await readFile(join(dir, `${name}.audit.jsonl`), "utf8").catch(() => "");
  const connections = text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((record) => record.event === "network");
  return { result, connections };
}

describe.skipIf(skipped !== undefined)(`npx -y ${PACKAGE}, network narrowed to the npm registry (${registry ?? "?"})`, () => {
  test("the first start downloads it through the egress proxy, each connection an admitted audit line", async () => {
    const { result, connections } = await run("registry", [registry ?? ""], ["tools", "--json"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect((JSON.parse(result.stdout) as { function: { name: string } }[]).map((tool) => tool.function.name)).toContain("read_text_file");
    expect(connections.length).toBeGreaterThan(0);
    for (const connection of connections) expect(connection).toMatchObject({ plugin: "filesystem", host: registry, port: 443, method: "CONNECT", decision: "allow" });
  }, TIMEOUT);

  test("the second start comes from the server's cache, and its tools work", async () => {
    const { result } = await run("registry", [registry ?? ""], ["call", "read_text_file", JSON.stringify({ path: join(dir, "workspace/notes.txt") })]);
    // The file's text, as the server wrote it for the model (not its structured `{"content": …}`).
    expect(result).toMatchObject({ code: 0, stdout: "inside the workspace\n" });
  }, TIMEOUT);

  test("narrowed to another host, npx is refused the registry: the start fails at once, and the audit log says so", async () => {
    const { result, connections } = await run("elsewhere", ["packages.example.com"], ["tools"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("MCP server filesystem failed to start");
    expect(result.stderr).toContain("403");
    expect(connections.length).toBeGreaterThan(0);
    for (const connection of connections) expect(connection).toMatchObject({ plugin: "filesystem", host: registry, decision: "deny", reason: "not in the plugin's network list" });
  }, TIMEOUT);
});

/** The host of the registry npm uses outside any project (npm refuses `config get` in a folder of workspaces, like this one). */
async function registryHost(): Promise<string | undefined> {
  const probe = Bun.spawn(["npm", "config", "get", "registry"], { cwd: tmpdir(), stdout: "pipe", stderr: "ignore", timeout: 15_000 });
  const [text, code] = await Promise.all([new Response(probe.stdout).text(), probe.exited]);
  return code === 0 && URL.canParse(text.trim()) ? new URL(text.trim()).hostname : undefined;
}

/** Why these tests cannot run here, or undefined. */
async function whySkipped(): Promise<string | undefined> {
  const mechanism = detectMechanism();
  if (!mechanism.available) return `no sandbox on this system (it lacks ${mechanism.missing})`;
  if (registry === undefined) return "npm does not say which registry it uses (npm config get registry)";
  return npmRegistryProblem(PACKAGE);
}
