/**
 * The bundled CLI (`dist/bin.js`, what `bun run plugboard` and the published bin run) is
 * the same program as the sources: same output, plugins loaded from their packages through
 * the bundle's core, and a rebuild whenever a source is newer than the bundle.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rename, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildCli, CLI_DIR } from "../scripts/build.ts";
import { staleReason } from "../scripts/start.ts";
import { cleanEnv, fromSources } from "./helpers.ts";

// Beside dist/, as the real bundle is: the CLI finds its shipped config and templates from there.
const OUT = join(CLI_DIR, `.dist-test-${process.pid}`);
let workspace = "";

/** The modules whose evaluation the test bundle records (see `modulesEvaluatedBy`). */
const RECORDED = /(?:sandbox\/src\/network\/egress-proxy|core\/src\/compiler|core\/src\/registry)\.ts$|@sinclair\/typebox\/build\/esm\/compiler\/compiler\.mjs$/;

beforeAll(async () => {
  await buildCli(OUT, { recordEvaluated: RECORDED });
  workspace = await mkdtemp(join(tmpdir(), "plugboard-bundle-"));
  await writeFile(join(workspace, "notes.txt"), "first\nsecond\n");
}, 120_000);

afterAll(async () => {
  await rm(OUT, { recursive: true, force: true });
  await rm(workspace, { recursive: true, force: true });
});

/** Runs the bundle with `args` in the workspace. */
async function bundled(args: readonly string[], env: Record<string, string> = {}) {
  const child = Bun.spawn(["bun", join(OUT, "bin.js"), ...args], {
    cwd: workspace,
    env: cleanEnv(env),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, stdout, stderr };
}

test("--version, help and tools print what the sources print", async () => {
  for (const args of [["--version"], ["-v"], ["help"], ["tools", "--help"], ["tools", "--json"], ["tools"]]) {
    const [fromBundle, fromSource] = await Promise.all([bundled(args), fromSources(args, { cwd: workspace })]);
    expect({ args, ...fromBundle }).toEqual({ args, ...fromSource });
  }
}, 120_000);

test("plugins load from their packages and run with the bundle's core", async () => {
  const read = await bundled(["call", "read_file", '{"path":"notes.txt"}']);
  expect({ code: read.code, stdout: read.stdout }).toEqual({ code: 0, stdout: "first\nsecond\n" });
  // An Error: result is built by the plugin with core's ToolError and turned into text by the runtime.
  const escaped = await bundled(["call", "read_file", '{"path":"../outside.txt"}']);
  expect(escaped.code).toBe(1);
  expect(escaped.stdout).toStartWith("Error: Path escapes workspace: ../outside.txt");
}, 120_000);

test("a bug of ours crashes with a stack whose frames name our sources and their lines, not the minified bundle (its linked source map)", async () => {
  // A bug planted in the process: the CLI's first look at its current folder throws.
  const probe = join(workspace, "planted-bug.ts");
  await writeFile(probe, 'process.cwd = () => { throw new Error("a planted bug"); };\n');
  const child = Bun.spawn(["bun", "--preload", probe, join(OUT, "bin.js"), "tools"], { cwd: workspace, env: cleanEnv(), stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stderr, code] = await Promise.all([new Response(child.stderr).text(), child.exited]);
  expect(code).not.toBe(0);
  expect(stderr).toContain("a planted bug");
  expect(stderr).toMatch(/ at \S+ \(\S+\/apps\/cli\/src\/[\w/-]+\.ts:\d+:\d+\)/);
  expect(stderr).not.toContain("cli.js:");
}, 120_000);

test("a plugin's @plugboard/core and @plugboard/core/process are its process's own, in the app's process and in its host: no file of core's sources is loaded for it", async () => {
  for (const sandbox of ["off", "required"]) {
    const config = join(workspace, `core-sources-${sandbox}.config.json`);
    await writeFile(config, JSON.stringify({ sandbox, plugins: [{ path: join(import.meta.dir, "fixtures/one-contract"), permissions: ["fs.write"] }] }));
    const listed = await bundled(["call", "--config", config, "core_sources", "{}"]);
    expect({ sandbox, code: listed.code, stdout: listed.stdout }).toEqual({ sandbox, code: 0, stdout: "0 files of core's sources (process helpers: number)\n" });
  }
}, 120_000);

test("a confined plugin's host runs the program the bundle ships (host-program.js), not the CLI's own bundle, and builds none in the cache; without it, the bundle kept in the cache", async () => {
  // The host is the first process of its PID namespace: /proc/1 is the host itself. Its view holds the program, the compiler it requires on a first compile, and their bytecode, nothing else of the bundle's folder.
  const cmdline = "tr '\\0' ' ' < /proc/1/cmdline";
  const cache = await mkdtemp(join(tmpdir(), "plugboard-bundle-cache-"));
  try {
    const host = await bundled(["call", "bash", JSON.stringify({ command: `${cmdline}; echo; ls -a ${OUT}` })], { XDG_CACHE_HOME: cache });
    expect(host.code).toBe(0);
    const [running = "", ...listed] = host.stdout.split("\n");
    // The confining step the bundle ships, which runs the host program in its own process.
    expect(running).toContain(` ${join(OUT, "confine-program.js")} --workspace `);
    expect(listed.filter((name) => name !== "" && !name.startsWith("exit code")).sort()).toEqual([".", "..", "host-compiler.js", "host-compiler.js.jsc", "host-program.js", "host-program.js.jsc"]);
    expect(existsSync(join(cache, "plugboard/hosts/program"))).toBe(false);

    // An install that lacks the shipped programs (a damaged one) still confines its hosts, from the bundles it keeps in the cache.
    await rename(join(OUT, "host-program.js"), join(OUT, "host-program.js.away"));
    try {
      const kept = await bundled(["call", "bash", JSON.stringify({ command: cmdline })], { XDG_CACHE_HOME: cache });
      expect(kept.code).toBe(0);
      expect(kept.stdout).toMatch(/\/plugboard\/hosts\/program\/[0-9a-f]{16}\/confine-program-[0-9a-f]{16}\.js --workspace /);
      expect(kept.stdout).not.toContain(OUT);
      const programs = readdirSync(join(cache, "plugboard/hosts/program"), { recursive: true }).map(String);
      expect(programs.some((name) => /host-program-[0-9a-f]{16}\.js$/.test(name))).toBe(true);
      // That bundle leaves TypeBox's compiler to a file beside it, which a confined plugin compiling a schema of its own loads.
      expect(programs.some((name) => /host-program-compiler-[0-9a-f]{16}\.js$/.test(name))).toBe(true);
      const config = join(workspace, "own-registry.config.json");
      await writeFile(config, JSON.stringify({ sandbox: "required", plugins: [{ path: join(import.meta.dir, "fixtures/one-contract"), permissions: ["fs.write"] }] }));
      const compiled = await bundled(["call", "--config", config, "own_registry", JSON.stringify({ value: { n: 0 } })], { XDG_CACHE_HOME: cache });
      expect({ code: compiled.code, stdout: compiled.stdout }).toEqual({ code: 0, stdout: "n: expected integer to be greater or equal to 1\n" });
    } finally {
      await rename(join(OUT, "host-program.js.away"), join(OUT, "host-program.js"));
    }
  } finally {
    await rm(cache, { recursive: true, force: true });
  }
}, 120_000);

test("the bundle's hosts are as confined as the sources': no write outside the workspace, no app environment", async () => {
  const outside = await mkdtemp(join(tmpdir(), "plugboard-bundle-outside-"));
  const secret = "sk-bundle-secret";
  const attack = JSON.stringify({ command: `grep -l ${secret} /proc/*/environ 2>/dev/null; echo x > ${outside}/escaped.txt` });
  try {
    const confined = await bundled(["call", "bash", attack], { MODEL_API_KEY: secret });
    expect(confined.stdout).not.toContain("/environ");
    // The folder is not in the host's view at all.
    expect(confined.stdout).toContain(`${outside}/escaped.txt: No such file or directory`);
    expect(await Bun.file(join(outside, "escaped.txt")).exists()).toBe(false);
    // The same call with the sandbox off does both: the refusal above is the sandbox's.
    const shipped = JSON.parse(await Bun.file(join(CLI_DIR, "plugboard.config.json")).text()) as object;
    const off = join(outside, "off.json");
    await writeFile(off, JSON.stringify({ ...shipped, sandbox: "off" }));
    const unconfined = await bundled(["call", "bash", attack, "--config", off, "--workspace", workspace], { MODEL_API_KEY: secret });
    expect(unconfined.stdout).toContain("/environ");
    expect(await Bun.file(join(outside, "escaped.txt")).exists()).toBe(true);
  } finally {
    await rm(outside, { recursive: true, force: true });
  }
}, 120_000);

test("plugboard web serves the chat page built into the bundle (no page sources beside it) and answers a chat", async () => {
  const child = Bun.spawn(["bun", join(OUT, "bin.js"), "web", "--port", "0"], { cwd: workspace, env: cleanEnv(), stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  try {
    let stderr = "";
    const decoder = new TextDecoder();
    let url: string | undefined;
    for await (const chunk of child.stderr) {
      stderr += decoder.decode(chunk, { stream: true });
      url = /listening on (http:\/\/\S+)/.exec(stderr)?.[1];
      if (url) break;
    }
    if (url === undefined) throw new Error(`plugboard web exited before listening:\n${stderr}`);
    expect(await (await fetch(`${url}/page.js`)).text()).toBe(await Bun.file(join(OUT, "chat-page/main.js")).text());
    const answer = await fetch(`${url}/api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ messages: [{ role: "user", content: "read notes.txt" }] }),
    });
    expect(((await answer.json()) as { reply: string }).reply).toContain("first");
  } finally {
    child.kill("SIGTERM");
  }
  expect(await child.exited).toBe(143);
}, 120_000);

test("the bundle is stale when a source it was built from is newer, or it is missing", async () => {
  expect(staleReason(OUT)).toBeUndefined();
  const source = join(OUT, "sources.json");
  const record = JSON.parse(await Bun.file(source).text()) as { sources: string[]; builtAt: number };
  const edited = join(workspace, "edited.ts");
  await writeFile(edited, "export {};\n");
  await writeFile(source, JSON.stringify({ ...record, sources: [...record.sources, edited] }));
  const later = new Date(record.builtAt + 1000);
  await utimes(edited, later, later);
  expect(staleReason(OUT)).toBe(`${edited} changed`);
  await rm(edited);
  expect(staleReason(OUT)).toBe(`${edited} changed`);
  expect(staleReason(join(workspace, "no-bundle"))).toBe("it is not built yet");
});

/** What a start of `plugboard ARGS` loaded: the CommonJS files of the bundle (`require.cache` as the process exits), and the recorded modules it evaluated. */
async function loadedBy(args: readonly string[]): Promise<{ files: string[]; evaluated: string[] }> {
  const report = join(workspace, `loaded-${args[0]}.json`);
  const probe = join(workspace, "loaded-probe.ts");
  const write = `require("node:fs").writeFileSync(${JSON.stringify(report)}, JSON.stringify({ files: Object.keys(require.cache), evaluated: globalThis.PLUGBOARD_EVALUATED }))`;
  await writeFile(probe, `globalThis.PLUGBOARD_EVALUATED = [];\nprocess.on("exit", () => ${write});\n`);
  const child = Bun.spawn(["bun", "--preload", probe, join(OUT, "bin.js"), ...args], { cwd: workspace, env: cleanEnv(), stdin: "ignore", stdout: "ignore", stderr: "ignore" });
  await child.exited;
  const loaded = JSON.parse(readFileSync(report, "utf8")) as { files: string[]; evaluated: string[] };
  // The entry, an ES module, may be listed too: only the CommonJS bundles tell what was loaded.
  const files = loaded.files.filter((file) => file.startsWith(`${OUT}/`) && file !== join(OUT, "bin.js")).map((file) => file.slice(OUT.length + 1));
  const evaluated = loaded.evaluated.map((file) => /(?:packages|node_modules)\/.*$/.exec(file)?.[0] ?? file).map((file) => file.replace(/^node_modules\/.*node_modules\//, ""));
  return { files, evaluated };
}

test("plugboard tools loads neither the openai SDK, nor the MCP SDK, nor the config editor's and the change preview's libraries, nor the shell grammar's runtime or the HTTP server's, nor evaluates the egress proxy or TypeBox's compiler (it sends no request, mounts no server, edits no file, starts no process, compiles no schema); run loads the openai SDK and compiles schemas", async () => {
  const tools = await loadedBy(["tools"]);
  expect(tools.files).toEqual(["cli.js"]);
  // The registry is evaluated by every start; what only some commands need is not.
  expect(tools.evaluated).toEqual(["packages/core/src/registry.ts"]);
  // The twin: run's first request loads the model's SDK from its family's bundle, and the tools' schemas are compiled.
  const run = await loadedBy(["run", "read notes.txt"]);
  expect(run.files).toContain("vendor-openai.js");
  expect(run.evaluated).toEqual(expect.arrayContaining(["packages/core/src/compiler.ts", "@sinclair/typebox/build/esm/compiler/compiler.mjs"]));
  expect([...new Bun.Glob("vendor-*.js").scanSync(OUT)].sort()).toEqual(["vendor-edit.js", "vendor-http.js", "vendor-markdown.js", "vendor-mcp.js", "vendor-openai.js", "vendor-shell.js"]);
}, 120_000);
