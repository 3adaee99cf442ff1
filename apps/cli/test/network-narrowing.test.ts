/**
 * A `network` grant narrowed to a list of hosts (DESIGN.md, "Network by domain"), tried
 * through the real CLI on loopback only: two local HTTP servers, `localhost:PORT` of the
 * first listed, the same port on 127.0.0.2 and the second server's port not. What is listed
 * is reached through the app's egress proxy; what is not gets the 403 refusal text; every
 * way around the proxy fails; each connection is one audit line. Each attack then runs with
 * plain `network` (no list) and works, so each test fails if the narrowing goes.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { FIRST_PARTY, type Finished, plugboard, tempFolder } from "./helpers.ts";

/** Each test starts a CLI process and a confined host, twice: generous on a busy machine. */
const TIMEOUT_MS = 30_000;
const BASH = { ...(FIRST_PARTY.find(({ path }) => path.endsWith("/bash")) ?? FIRST_PARTY[0]), permissions: ["process.spawn", "fs.read", "fs.write", "network"] };
const PLUGIN = "@plugboard/plugin-bash";

let dir = "";
let remove = async () => {};
let listed: ReturnType<typeof Bun.serve>;
let sameport: ReturnType<typeof Bun.serve>;
let unlisted: ReturnType<typeof Bun.serve>;
let unix: ReturnType<typeof Bun.listen>;
let socketPath = "";

beforeAll(async () => {
  ({ dir, remove } = await tempFolder({ "workspace/.keep": "" }));
  listed = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("listed server\n") });
  // The listed port on another loopback address: reached only when 127.0.0.2 is granted (or nothing is narrowed).
  sameport = Bun.serve({ hostname: "127.0.0.2", port: listed.port, fetch: () => new Response("same port on 127.0.0.2\n") });
  unlisted = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("unlisted server\n") });
  // A local daemon's UNIX socket, in the workspace the plugin sees.
  socketPath = join(dir, "workspace", "daemon.sock");
  unix = Bun.listen({ unix: socketPath, socket: { data: (socket) => void socket.end("daemon reached\n") } });
});
afterAll(async () => {
  listed.stop(true);
  sameport.stop(true);
  unlisted.stop(true);
  unix.stop(true);
  await remove();
});

/** Runs `command` through bash confined with `network` (narrowed to `list` when given); returns the result and the audit log's network lines. */
async function bash(name: string, command: string, list?: string[]): Promise<{ result: Finished; connections: Record<string, unknown>[] }> {
  const config = join(dir, `${name}.json`);
  const audit = `${name}.audit.jsonl`;
  await writeFile(config, JSON.stringify({ workspace: "./workspace", sandbox: "required", audit, plugins: [{ ...BASH, ...(list ? { network: list } : {}) }] }));
  const result = await plugboard(["call", "--config", config, "bash", JSON.stringify({ command })], { cwd: dir });
  const lines = (await readFile(join(dir, audit), "utf8").catch(() => "")).split("\n").filter((line) => line !== "");
  const connections = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((record) => record.event === "network");
  return { result, connections };
}

const refusal = (host: string) => `Plugboard: network to ${host} is not granted to ${PLUGIN} (add it to "network" in the config)`;

describe("network narrowed to localhost:PORT", () => {
  test("the listed host is reached through the proxy (HTTP and a CONNECT tunnel); the others get the 403 refusal text; each connection is one audit line", async () => {
    const [a, b] = [listed.port, unlisted.port];
    const command = `curl -sS http://localhost:${a}/; curl -sS --proxytunnel http://localhost:${a}/; curl -sS http://127.0.0.2:${a}/; curl -sS http://localhost:${b}/`;
    const { result, connections } = await bash("narrowed", command, [`localhost:${a}`]);
    expect(result.code).toBe(0);
    expect(result.stdout).toStartWith(`listed server\nlisted server\n${refusal(`127.0.0.2:${a}`)}\n${refusal(`localhost:${b}`)}\n`);
    expect(result.stdout).not.toContain("same port on 127.0.0.2");
    expect(result.stdout).not.toContain("unlisted server");
    expect(connections.map(({ plugin, host, port, method, decision }) => ({ plugin, host, port, method, decision }))).toEqual([
      { plugin: PLUGIN, host: "localhost", port: a, method: "GET", decision: "allow" },
      { plugin: PLUGIN, host: "localhost", port: a, method: "CONNECT", decision: "allow" },
      { plugin: PLUGIN, host: "127.0.0.2", port: a, method: "GET", decision: "deny" },
      { plugin: PLUGIN, host: "localhost", port: b, method: "GET", decision: "deny" },
    ]);
    expect(connections[0]).toMatchObject({ rule: `localhost:${a}`, address: "127.0.0.1" });

    const plain = await bash("plain", command);
    expect(plain.result.stdout).toContain("same port on 127.0.0.2\n");
    expect(plain.result.stdout).toContain("unlisted server\n");
    expect(plain.connections).toEqual([]);
  }, TIMEOUT_MS);

  test("an HTTPS tunnel refused: curl says only 403, and the result ends with the hint naming the host and the network key", async () => {
    const { result, connections } = await bash("tunnel", `curl -sS https://localhost:${unlisted.port}/`, [`localhost:${listed.port}`]);
    expect(result.stdout).toContain("CONNECT tunnel failed, response 403");
    expect(result.stdout.trimEnd().split("\n").at(-1)).toBe(
      `plugboard: refused by the sandbox: network to localhost:${unlisted.port} is not granted to ${PLUGIN}; add it to its "network" list in ${join(dir, "tunnel.json")} to allow it`,
    );
    expect(connections).toEqual([expect.objectContaining({ method: "CONNECT", host: "localhost", port: unlisted.port, decision: "deny" })]);
  }, TIMEOUT_MS);

  test("no way around the proxy: curl --noproxy, Bun's fetch without it, bash's /dev/tcp and a UNIX socket all fail", async () => {
    const target = `127.0.0.2:${listed.port}`;
    const fetchScript = `const r = await fetch("http://${target}/"); console.log("fetch: " + (await r.text()).trim())`;
    const unixScript = `const s = require("net").connect(${JSON.stringify(socketPath)}, () => s.write("hello")); s.on("data", (d) => { console.log("unix: " + String(d).trim()); process.exit(0); }); s.on("error", (e) => { console.log("unix refused: " + e.message); process.exit(1); });`;
    const command = [
      `curl -sS --noproxy '*' http://${target}/ || echo "curl bypass failed"`,
      `NO_PROXY='*' bun -e '${fetchScript}' || echo "fetch bypass failed"`,
      `(exec 3<>/dev/tcp/127.0.0.2/${listed.port} && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3) || echo "dev/tcp bypass failed"`,
      `bun -e '${unixScript}' || echo "unix bypass failed"`,
    ].join("; ");
    const { result, connections } = await bash("bypass", command, [`localhost:${listed.port}`]);
    for (const failed of ["curl", "fetch", "dev/tcp", "unix"]) expect(result.stdout).toContain(`${failed} bypass failed\n`);
    expect(result.stdout).not.toContain("same port on 127.0.0.2");
    expect(result.stdout).not.toContain("daemon reached");
    expect(result.stdout).toContain("unix refused:");
    expect(result.stdout).toContain(`plugboard: refused by the sandbox: ${PLUGIN} reaches the network only through the app's proxy (HTTP_PROXY, HTTPS_PROXY)`);
    // Nothing went through the proxy, so nothing was recorded.
    expect(connections).toEqual([]);

    const plain = await bash("bypass-plain", command);
    for (const failed of ["curl", "fetch", "dev/tcp", "unix"]) expect(plain.result.stdout).not.toContain(`${failed} bypass failed`);
    expect(plain.result.stdout).toContain("fetch: same port on 127.0.0.2\n");
    expect(plain.result.stdout).toContain("unix: daemon reached\n");
  }, TIMEOUT_MS);

  test("plugboard check prints each plugin's network: the list it is narrowed to, or any host", async () => {
    const config = join(dir, "check.json");
    await writeFile(config, JSON.stringify({ workspace: "./workspace", sandbox: "required", plugins: [{ ...BASH, network: ["localhost:4873", "*.github.com"] }] }));
    const narrowed = await plugboard(["check", "--offline", "--config", config], { cwd: dir });
    expect(narrowed.code).toBe(0);
    expect(narrowed.stdout).toContain(`\n  network:   ${PLUGIN} → localhost:4873, *.github.com (only, through the app's proxy)\n  sandbox:   `);
    await writeFile(config, JSON.stringify({ workspace: "./workspace", sandbox: "required", plugins: [BASH] }));
    const plain = await plugboard(["check", "--offline", "--config", config], { cwd: dir });
    expect(plain.stdout).toContain(`\n  network:   ${PLUGIN} → any host\n`);
  }, TIMEOUT_MS);

  test("a network list without the network grant is a config error naming the fix (exit 2)", async () => {
    const config = join(dir, "ungranted.json");
    await writeFile(config, JSON.stringify({ workspace: "./workspace", plugins: [{ ...BASH, permissions: ["process.spawn", "fs.read"], network: ["registry.npmjs.org"] }] }));
    const result = await plugboard(["check", "--offline", "--config", config], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('plugins[0]: "network" lists the hosts a "network" grant may reach, and this entry does not grant "network": add "network" to its "permissions"');
    expect(result.stderr).not.toContain("    at ");
  }, TIMEOUT_MS);
});
