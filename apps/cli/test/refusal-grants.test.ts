/**
 * A refusal that can become a grant (DESIGN.md, "Governance, third edition"), as a person
 * meets it: the real CLI in a pseudo-terminal, bash confined, the scripted model calling it,
 * and a loopback HTTP server to reach. A call the sandbox refused for lack of `network` (or of
 * a host of its `network` list) is offered again with exactly that grant — once, for the
 * session, or saved to the config — never for a protected path or a permission the manifest
 * does not ask for, and without a person (piped, `--yes`) the refusal stays as it was.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readlinkSync, realpathSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { processesWhere, survivors, waitFor } from "@plugboard/test-helpers";
import { type ScriptedModel, startScriptedModel } from "@plugboard/testing";
import { ensureBundle, FIRST_PARTY, plugboard, spawnInTerminal, tempFolder, toolResults } from "./helpers.ts";

// Each test runs one or two CLI processes and starts confined hosts: generous on a busy machine.
setDefaultTimeout(60_000);

const PLUGIN = "@plugboard/plugin-bash";
const BASH = { ...(FIRST_PARTY.find(({ path }) => path.endsWith("/bash")) ?? FIRST_PARTY[0]), permissions: ["process.spawn", "fs.read", "fs.write"] };
const CORE = realpathSync(Bun.resolveSync("@plugboard/core", import.meta.dir));
const READING_SERVER = fileURLToPath(new URL("./fixtures/reading-server/server.ts", import.meta.url));
const OFFER = "was refused by the sandbox; run it again with this grant";
const KEYS = "[o] once  [s] this session";

let server: ReturnType<typeof Bun.serve>;
let other: ReturnType<typeof Bun.serve>;
beforeAll(async () => {
  await ensureBundle();
  server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("server reached\n") });
  // The same port on another loopback address: a host a narrowed list does not hold.
  other = Bun.serve({ hostname: "127.0.0.2", port: server.port, fetch: () => new Response("127.0.0.2 reached\n") });
});
afterAll(() => {
  server.stop(true);
  other.stop(true);
});

/** A plugin asking for nothing whose one tool, which only reads, reads the absolute path it is given. */
const READER_FILES = {
  "workspace/node_modules/path-reader/package.json": JSON.stringify({ name: "path-reader", version: "1.0.0", type: "module" }),
  "workspace/node_modules/path-reader/plugboard.plugin.json": JSON.stringify({
    name: "path-reader",
    version: "1.0.0",
    contract: "^1.0.0",
    entry: "./src/index.ts",
    tools: [{ name: "read_path", description: "Read a file." }],
    permissions: [],
  }),
  "workspace/node_modules/path-reader/src/index.ts": `import { readFileSync } from "node:fs";
import { definePlugin, defineTool, errorResult, textResult, Type } from ${JSON.stringify(CORE)};
export default definePlugin({
  options: Type.Object({}),
  tools: () => [
    defineTool({
      name: "read_path",
      description: "Read a file.",
      parameters: Type.Object({ path: Type.String() }),
      concurrency: "read-only",
      handler: ({ path }) => {
        try {
          return textResult(readFileSync(path, "utf8"));
        } catch (error) {
          return errorResult("cannot read " + path + ": " + (error as Error).message);
        }
      },
    }),
  ],
});
`,
};

const curl = (id: string, host = "127.0.0.1") => ({ id, name: "bash", arguments: { command: `curl -sS http://${host}:${server.port}/` } });

/** A workspace whose config (with comments) confines bash as `entry` says, audited. */
async function setup(entry: Record<string, unknown> = BASH, files: Record<string, string> = {}, taint = "off") {
  const folder = await tempFolder({ "workspace/.keep": "", ...files });
  const config = join(folder.dir, "plugboard.config.json");
  // The taint is off: these turns are about grants. A plugin given network is an untrusted source
  // and a way out from then on, so its next call would be asked for that (runtime/grant-offer.test.ts).
  const text = `// grants on refusal
{
  "workspace": "./workspace",
  "sandbox": "required",
  "policy": { "taint": "${taint}" },
  "audit": "audit.jsonl",
  "plugins": [
    ${JSON.stringify(entry)} // confined bash
  ]
}
`;
  await writeFile(config, text);
  const run = (model: ScriptedModel, flags: string[] = []) => spawnInTerminal(["run", "--config", config, "--base-url", model.baseURL, ...flags, "go"], { cwd: folder.dir });
  const audit = async () =>
    (await readFile(join(folder.dir, "audit.jsonl"), "utf8"))
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((record) => record.tool !== undefined);
  return { folder, config, text, run, audit };
}

const noNetwork = (config: string) => `plugboard: refused by the sandbox: ${PLUGIN} has no network access; grant "network" to it in ${config} to allow it`;
const count = (screen: string, needle: string) => screen.split(needle).length - 1;

describe("a refused call offered again with the missing grant (run, on a terminal)", () => {
  test("once: that call runs again with network and succeeds; the next identical call is refused and offered again", async () => {
    const { folder, config, run, audit } = await setup();
    await using _ = folder;
    await using model = await startScriptedModel([{ toolCalls: [curl("c1")] }, { toolCalls: [curl("c2")] }, { content: "done" }]);
    const cli = run(model);
    await cli.waitFor(KEYS);
    expect(cli.screen()).toContain(`bash ${OFFER} to ${PLUGIN}?\r\n  $ curl -sS http://127.0.0.1:${server.port}/\r\n  grant: "permissions": ["network"]\r\n`);
    expect(cli.screen()).toContain(`[o] once  [s] this session  [p] save to ${config}  [n] no › `);
    cli.type("o");
    await cli.waitFor(KEYS, 2);
    cli.type("n");
    expect(await cli.exited()).toBe(0);
    expect(toolResults(model, 1).c1).toContain("server reached");
    const second = toolResults(model, 2).c2 ?? "";
    expect(second).not.toContain("server reached");
    expect(second.trimEnd().split("\n").at(-1)).toBe(noNetwork(config));
    const records = await audit();
    expect(records.map(({ callId, granted }) => ({ callId, granted }))).toEqual([
      { callId: "c1", granted: { permission: "network", scope: "once" } },
      { callId: "c2", granted: undefined },
    ]);
  });

  test("session: later calls reach the network without asking; the config is unchanged", async () => {
    const { folder, config, text, run, audit } = await setup();
    await using _ = folder;
    await using model = await startScriptedModel([{ toolCalls: [curl("c1")] }, { toolCalls: [curl("c2")] }, { toolCalls: [curl("c3")] }, { content: "done" }]);
    const cli = run(model);
    await cli.waitFor(KEYS);
    cli.type("s");
    expect(await cli.exited()).toBe(0);
    expect(count(cli.screen(), OFFER)).toBe(1);
    for (const [id, request] of [["c1", 1], ["c2", 2], ["c3", 3]] as const) expect(toolResults(model, request)[id]).toContain("server reached");
    expect(await readFile(config, "utf8")).toBe(text);
    expect((await audit()).map(({ granted }) => granted)).toEqual([{ permission: "network", scope: "session" }, undefined, undefined]);
  });

  test("with the taint followed, network given for the session makes bash an untrusted source and a way out: its next call is asked for that", async () => {
    const { folder, run, audit } = await setup(BASH, {}, "ask");
    await using _ = folder;
    await using model = await startScriptedModel([{ toolCalls: [curl("c1")] }, { toolCalls: [curl("c2")] }, { content: "done" }]);
    const cli = run(model);
    await cli.waitFor(KEYS);
    cli.type("s");
    await cli.waitFor("asked because untrusted content from bash entered the conversation, and bash can send data out");
    cli.type("n");
    await cli.waitFor("reason for the model");
    cli.type("\r");
    expect(await cli.exited()).toBe(0);
    expect(count(cli.screen(), OFFER)).toBe(1);
    expect(toolResults(model, 1).c1).toContain("server reached");
    expect(toolResults(model, 2).c2).not.toContain("server reached");
    expect((await audit()).map(({ untrusted, tainted }) => [untrusted, tainted])).toEqual([[true, undefined], [undefined, { by: "bash" }]]);
  });

  test("saved: the grant is written into the entry with the config's comments kept, and the next start has it", async () => {
    const { folder, config, text, run, audit } = await setup();
    await using _ = folder;
    await using model = await startScriptedModel([{ toolCalls: [curl("c1")] }, { content: "done" }]);
    const cli = run(model);
    await cli.waitFor(KEYS);
    cli.type("p");
    expect(await cli.exited()).toBe(0);
    expect(cli.screen()).toContain(`saved to ${config}`);
    expect(toolResults(model, 1).c1).toContain("server reached");
    expect(await readFile(config, "utf8")).toBe(text.replace('"fs.write"]', '"fs.write", "network"]'));
    expect((await audit())[0]?.granted).toEqual({ permission: "network", scope: "saved" });
    // A new start, no person: the saved grant holds (and the config it was written into is trusted).
    const next = await plugboard(["call", "--config", config, "bash", JSON.stringify(curl("x").arguments)], { cwd: folder.dir });
    expect(next.stderr).toBe("");
    expect(next.stdout).toContain("server reached");
  });

  test("saved after the config was edited mid-session: the grant goes to bash's entry where it is now, never to the entry that took its place", async () => {
    const { folder, config, text, run } = await setup();
    await using _ = folder;
    await using model = await startScriptedModel([{ toolCalls: [curl("c1")] }, { content: "done" }]);
    const cli = run(model);
    await cli.waitFor(KEYS);
    // Another plugin listed first: bash's entry is plugins[1] now.
    const readFile_ = FIRST_PARTY.find(({ path }) => path.endsWith("/read-file"));
    const edited = text.replace('"plugins": [\n', `"plugins": [\n    ${JSON.stringify(readFile_)},\n`);
    await writeFile(config, edited);
    cli.type("p");
    expect(await cli.exited()).toBe(0);
    expect(toolResults(model, 1).c1).toContain("server reached");
    expect(await readFile(config, "utf8")).toBe(edited.replace('"fs.write"]}', '"fs.write", "network"]}'));
  });

  test("saved after the entry was removed mid-session: nothing is written, the person is told, and the grant holds for the session", async () => {
    const { folder, config, text, run } = await setup();
    await using _ = folder;
    await using model = await startScriptedModel([{ toolCalls: [curl("c1")] }, { toolCalls: [curl("c2")] }, { content: "done" }]);
    const cli = run(model);
    await cli.waitFor(KEYS);
    const edited = text.replace(JSON.stringify(BASH), JSON.stringify(FIRST_PARTY.find(({ path }) => path.endsWith("/read-file"))));
    await writeFile(config, edited);
    cli.type("p");
    expect(await cli.exited()).toBe(0);
    expect(cli.screen().replace(/\r?\n/g, "")).toContain(
      `the grant to ${PLUGIN} could not be saved to ${config} (its entry ("path": ${JSON.stringify(BASH.path)}) is no longer in the config's "plugins"); it holds until the session ends`,
    );
    expect(await readFile(config, "utf8")).toBe(edited);
    expect(toolResults(model, 2).c2).toContain("server reached");
  });

  test("a narrowed list: the refused host alone is offered, and once lets that call through the proxy", async () => {
    const { folder, run, audit } = await setup({ ...BASH, permissions: [...BASH.permissions, "network"], network: [`localhost:${server.port}`] });
    await using _ = folder;
    await using model = await startScriptedModel([{ toolCalls: [curl("c1", "127.0.0.2")] }, { content: "done" }]);
    const cli = run(model);
    await cli.waitFor(KEYS);
    expect(cli.screen()).toContain(`  grant: "network": ["127.0.0.2:${server.port}"]\r\n`);
    cli.type("o");
    expect(await cli.exited()).toBe(0);
    expect(toolResults(model, 1).c1).toContain("127.0.0.2 reached");
    expect((await audit()).find(({ tool }) => tool === "bash")?.granted).toEqual({ hosts: [`127.0.0.2:${server.port}`], scope: "once" });
  });

  test("a protected path's refusal and a permission the manifest does not ask for are not offered; a network refusal beside them is", async () => {
    // A plugin whose manifest asks for nothing, whose tool connects to the address it is given.
    const manifest = { name: "connector", version: "1.0.0", contract: "^1.0.0", entry: "./src/index.ts", tools: [{ name: "connect_to", description: "Connect to a port." }], permissions: [] };
    const code = `import { connect } from "node:net";
import { definePlugin, defineTool, textResult, Type } from ${JSON.stringify(CORE)};
export default definePlugin({
  options: Type.Object({}),
  tools: () => [
    defineTool({
      name: "connect_to",
      description: "Connect to a port.",
      parameters: Type.Object({ port: Type.Number() }),
      handler: ({ port }) => new Promise((resolve) => {
        const socket = connect(port, "127.0.0.1", () => { socket.end(); resolve(textResult("connected")); });
        socket.on("error", (error) => resolve(textResult("connect failed: " + error.message)));
      }),
    }),
  ],
});
`;
    const { folder, config, run } = await setup(BASH, {
      "workspace/node_modules/connector/package.json": JSON.stringify({ name: "connector", version: "1.0.0", type: "module" }),
      "workspace/node_modules/connector/plugboard.plugin.json": JSON.stringify(manifest),
      "workspace/node_modules/connector/src/index.ts": code,
    });
    await using _ = folder;
    // The connector beside bash; .plugboard/ in the workspace is always protected.
    const withConnector = (await readFile(config, "utf8")).replace(" // confined bash", `, // confined bash\n    { "path": "./workspace/node_modules/connector", "permissions": [] }`);
    await writeFile(config, withConnector);
    await using model = await startScriptedModel([
      { toolCalls: [{ id: "hook", name: "bash", arguments: { command: "echo evil > .plugboard/evil.sh" } }] },
      { toolCalls: [{ id: "conn", name: "connect_to", arguments: { port: server.port } }] },
      { toolCalls: [curl("net")] },
      { content: "done" },
    ]);
    const cli = run(model);
    await cli.waitFor(KEYS);
    cli.type("n");
    expect(await cli.exited()).toBe(0);
    // Asked once, about the network refusal only.
    expect(count(cli.screen(), OFFER)).toBe(1);
    expect(cli.screen()).toContain(`bash ${OFFER} to ${PLUGIN}?\r\n  $ curl`);
    expect(toolResults(model, 1).hook).toContain("may not write .plugboard/evil.sh: it is a protected path (");
    expect(toolResults(model, 2).conn).toContain('its manifest does not ask for "network", so no config can grant it');
    expect(toolResults(model, 3).net?.trimEnd().split("\n").at(-1)).toBe(noNetwork(config));
  });
});

describe("a path outside the view", () => {
  test("is offered as a read grant and once lets that call read it; one in Plugboard's own folders is not offered", async () => {
    await using outside = await tempFolder({ "notes/outside.txt": "read from outside\n", "config-home/plugboard/mcp-login.json": "{\"token\":\"t0ps3cret\"}\n" });
    const file = join(outside.dir, "notes/outside.txt");
    const login = join(outside.dir, "config-home/plugboard/mcp-login.json");
    const { folder, config, audit } = await setup();
    await using _ = folder;
    await using model = await startScriptedModel([
      { toolCalls: [{ id: "login", name: "bash", arguments: { command: `cat ${login}` } }] },
      { toolCalls: [{ id: "notes", name: "bash", arguments: { command: `cat ${file}` } }] },
      { content: "done" },
    ]);
    const cli = spawnInTerminal(["run", "--config", config, "--base-url", model.baseURL, "go"], { cwd: folder.dir, env: { XDG_CONFIG_HOME: join(outside.dir, "config-home") } });
    await cli.waitFor(KEYS);
    expect(cli.screen()).toContain(`  $ cat ${file}\r\n  grant: "read": [${JSON.stringify(file)}]\r\n`);
    cli.type("o");
    expect(await cli.exited()).toBe(0);
    expect(count(cli.screen(), OFFER)).toBe(1);
    expect(toolResults(model, 1).login).toContain(`${login} is outside what ${PLUGIN} can see`);
    expect(toolResults(model, 1).login).not.toContain("t0ps3cret");
    expect(toolResults(model, 2).notes).toContain("read from outside");
    expect((await audit()).map(({ granted }) => granted)).toEqual([undefined, { read: file, scope: "once" }]);
  });
});

describe("a confined MCP server", () => {
  test("a refused read is offered too: fs.read once for a workspace file, a read path for the session; audited", async () => {
    await using outside = await tempFolder({ "outside.txt": "outside the view\n" });
    const file = join(outside.dir, "outside.txt");
    const { folder, config, audit } = await setup(BASH, { "workspace/notes.txt": "in the workspace\n" });
    await using _ = folder;
    const server = { mcp: { command: READING_SERVER, args: [] }, name: "reader", permissions: [] };
    await writeFile(config, (await readFile(config, "utf8")).replace(" // confined bash", `, // confined bash\n    ${JSON.stringify(server)}`));
    const read = (id: string, path: string) => ({ id, name: "read", arguments: { path } });
    await using model = await startScriptedModel([
      { toolCalls: [read("ws", "notes.txt")] },
      { toolCalls: [read("out1", file)] },
      { toolCalls: [read("out2", file)] },
      { content: "done" },
    ]);
    const cli = spawnInTerminal(["run", "--config", config, "--base-url", model.baseURL, "go"], { cwd: folder.dir });
    await cli.waitFor(KEYS);
    expect(cli.screen()).toContain(`read ${OFFER} to reader?\r\n  path: notes.txt\r\n  grant: "permissions": ["fs.read"]\r\n`);
    cli.type("o");
    await cli.waitFor(KEYS, 2);
    expect(cli.screen()).toContain(`  grant: "read": [${JSON.stringify(file)}]\r\n`);
    cli.type("s");
    expect(await cli.exited()).toBe(0);
    expect(count(cli.screen(), OFFER)).toBe(2);
    expect(toolResults(model, 1).ws).toContain("in the workspace");
    expect(toolResults(model, 2).out1).toContain("outside the view");
    expect(toolResults(model, 3).out2).toContain("outside the view");
    expect((await audit()).map(({ granted }) => granted)).toEqual([{ permission: "fs.read", scope: "once" }, { read: file, scope: "session" }, undefined]);
  });
});

describe("grants given at once for one plugin or server", () => {
  /** Every process of this file's reading servers carries it in its environment, so /proc finds them. */
  const MARKER = `plugboard-grants-test-${crypto.randomUUID()}`;

  /**
   * An interactive session whose first turn calls `tool` on two files outside the view at once:
   * both refused, both granted for the session as they are offered. Then `running` (the live
   * processes of the plugin or server, counted in /proc) must come down to one; a second turn
   * reads both files unasked; none is left after the exit.
   */
  async function grantBothAtOnce(folder: string, config: string, audit: () => Promise<Record<string, unknown>[]>, tool: string, running: () => number[]) {
    await using outside = await tempFolder({ "a.txt": "file a\n", "b.txt": "file b\n" });
    const [a, b] = [join(outside.dir, "a.txt"), join(outside.dir, "b.txt")];
    const read = (id: string, path: string) => ({ id, name: tool, arguments: { path } });
    await using model = await startScriptedModel([
      { toolCalls: [read("a1", a), read("b1", b)] },
      { content: "first done" },
      { toolCalls: [read("a2", a), read("b2", b)] },
      { content: "second done" },
    ]);
    const cli = spawnInTerminal(["--config", config, "--base-url", model.baseURL], { cwd: folder });
    await cli.waitFor("plugboard >> ");
    cli.type("read both\r");
    await cli.waitFor(KEYS);
    cli.type("s");
    await cli.waitFor(KEYS, 2);
    cli.type("s");
    await cli.waitFor("first done");
    await cli.waitFor("plugboard >> ", 2);
    await waitFor(`one process of ${tool}'s source runs, the first and the one between ended`, () => running().length === 1);
    cli.type("read both again\r");
    await cli.waitFor("second done");
    await cli.waitFor("plugboard >> ", 3);
    cli.type("q\r");
    expect(await cli.exited()).toBe(0);
    expect(count(cli.screen(), OFFER)).toBe(2);
    for (const [id, request, text] of [["a1", 1, "file a"], ["b1", 1, "file b"], ["a2", 3, "file a"], ["b2", 3, "file b"]] as const) expect(toolResults(model, request)[id]).toContain(text);
    // The first turn's two calls were granted, in either order; the second's ran on the grants.
    const granted = (await audit()).map(({ callId, granted }) => [callId, granted]);
    expect(granted.sort(([one], [other]) => String(one).localeCompare(String(other)))).toEqual([["a1", { read: a, scope: "session" }], ["a2", undefined], ["b1", { read: b, scope: "session" }], ["b2", undefined]]);
    expect(await survivors(running)).toEqual([]);
  }

  test("a plugin: both grants hold in the host that replaces the first, and one host of it runs (the first and the one between ended)", async () => {
    const { folder, config, audit } = await setup(BASH, READER_FILES);
    await using _ = folder;
    await writeFile(config, (await readFile(config, "utf8")).replace(" // confined bash", `, // confined bash\n    { "path": "./workspace/node_modules/path-reader", "permissions": [] }`));
    // The hosts of path-reader in this folder: their own processes (the Bun that confined itself and runs the host program), the sandbox's around them not counted; a host starts in its first plugin's folder.
    const reader = join(folder.dir, "workspace/node_modules/path-reader");
    const hosts = () => processesWhere(({ pid, argv }) => argv[0] !== "/usr/bin/unshare" && argv.some((arg) => /\/(confine|host)-program(-[0-9a-f]{16})?\.js$/.test(arg)) && cwdOf(pid) === reader);
    await grantBothAtOnce(folder.dir, config, audit, "read_path", hosts);
  });

  test("an MCP server: both grants hold in the server that replaces the first, and one server runs (the first and the one between ended)", async () => {
    const { folder, config, audit } = await setup();
    await using _ = folder;
    // Its tool only reads: the two calls run at once, and are refused and offered at once.
    const server = { mcp: { command: READING_SERVER, args: [], env: { PLUGBOARD_TEST_MARKER: MARKER, READING_SERVER_READ_ONLY: "1" } }, name: "reader", permissions: [] };
    await writeFile(config, (await readFile(config, "utf8")).replace(" // confined bash", `, // confined bash\n    ${JSON.stringify(server)}`));
    // The reading servers running: their own processes (bun running the fixture), the sandbox's around them not counted.
    const servers = () => processesWhere(({ argv, environ }) => environ.includes(`PLUGBOARD_TEST_MARKER=${MARKER}`) && argv.includes(READING_SERVER) && /(^|\/)bun$/.test(argv[0] ?? ""));
    await grantBothAtOnce(folder.dir, config, audit, "read", servers);
  });
});

describe("the interactive session", () => {
  test("a grant for the session holds in the turns after it; asked once", async () => {
    const { folder, config, audit } = await setup();
    await using _ = folder;
    await using model = await startScriptedModel([{ toolCalls: [curl("c1")] }, { content: "first done" }, { toolCalls: [curl("c2")] }, { content: "second done" }]);
    const cli = spawnInTerminal(["--config", config, "--base-url", model.baseURL], { cwd: folder.dir });
    await cli.waitFor("plugboard >> ");
    cli.type("fetch it\r");
    await cli.waitFor(KEYS);
    cli.type("s");
    await cli.waitFor("first done");
    await cli.waitFor("plugboard >> ", 2);
    cli.type("fetch it again\r");
    await cli.waitFor("second done");
    await cli.waitFor("plugboard >> ", 3);
    cli.type("q\r");
    expect(await cli.exited()).toBe(0);
    expect(count(cli.screen(), OFFER)).toBe(1);
    expect(toolResults(model, 1).c1).toContain("server reached");
    expect(toolResults(model, 3).c2).toContain("server reached");
    expect((await audit()).map(({ granted }) => granted)).toEqual([{ permission: "network", scope: "session" }, undefined]);
  });
});

describe("without a person the refusal stays as it was", () => {
  test("piped run and --yes on a terminal: nothing is offered, the result ends with the refusal's hint (a person on a terminal is asked, and n leaves it so)", async () => {
    const { folder, config, text, run } = await setup();
    await using _ = folder;
    await using piped = await startScriptedModel([{ toolCalls: [curl("c1")] }, { content: "done" }]);
    const result = await plugboard(["run", "--config", config, "--base-url", piped.baseURL, "go"], { cwd: folder.dir });
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain(OFFER);
    expect(toolResults(piped, 1).c1?.trimEnd().split("\n").at(-1)).toBe(noNetwork(config));

    await using yes = await startScriptedModel([{ toolCalls: [curl("c1")] }, { content: "done" }]);
    const cli = run(yes, ["--yes"]);
    expect(await cli.exited()).toBe(0);
    expect(cli.screen()).not.toContain(OFFER);
    expect(toolResults(yes, 1).c1?.trimEnd().split("\n").at(-1)).toBe(noNetwork(config));
    expect(await readFile(config, "utf8")).toBe(text);

    // The twin: the same run on a terminal, without --yes, is offered the grant.
    await using asked = await startScriptedModel([{ toolCalls: [curl("c1")] }, { content: "done" }]);
    const person = run(asked);
    await person.waitFor(KEYS);
    person.type("n");
    expect(await person.exited()).toBe(0);
    expect(toolResults(asked, 1).c1?.trimEnd().split("\n").at(-1)).toBe(noNetwork(config));
  });
});

/** Where process `pid` works, as /proc shows it (undefined once it is gone). */
function cwdOf(pid: number): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return undefined;
  }
}
