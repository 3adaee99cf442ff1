/**
 * End-to-end helpers: run the real `plugboard` process with a clean environment, in real temp
 * folders, against real plugins. The process is the CLI as users run it, the bundle
 * (`bun dist/bin.js`): the tests start it some 700 times, and the bundle is built from the
 * sources once (again only when a source is newer, as `bun run plugboard` does) instead of
 * each start transpiling every source. `fromSources` runs the sources themselves, for the
 * tests that compare the two.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ScriptedModel } from "@plugboard/testing";
import { staleReason } from "../scripts/start.ts";

/** The bundle the tests run as `plugboard` (`bun MAIN ARGS`). */
export const MAIN = fileURLToPath(new URL("../dist/bin.js", import.meta.url));
const SOURCES = fileURLToPath(new URL("../src/main.ts", import.meta.url));
const PLUGINS = fileURLToPath(new URL("../../../plugins/", import.meta.url));

/** Builds the bundle the tests run when it is missing or older than a source (the test runner does it once, before any test). */
export async function ensureBundle(): Promise<void> {
  const reason = staleReason();
  if (reason === undefined) return;
  process.stderr.write(`building the CLI bundle the tests run (${reason})\n`);
  await (await import("../scripts/build.ts")).buildCli();
}

await ensureBundle();

/** The five first-party plugins as config entries, by absolute path (a temp config has no node_modules). */
export const FIRST_PARTY = [
  { path: join(PLUGINS, "bash"), permissions: ["process.spawn", "fs.read", "fs.write"] },
  { path: join(PLUGINS, "read-file"), permissions: ["fs.read"] },
  { path: join(PLUGINS, "write-file"), permissions: ["fs.write"] },
  { path: join(PLUGINS, "edit-file"), permissions: ["fs.read", "fs.write"] },
  { path: join(PLUGINS, "glob"), permissions: ["fs.read"] },
];

/** What a finished CLI process left behind. */
export interface Finished {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface SpawnOptions {
  readonly cwd: string;
  /** Added to a clean environment that has no model key or base URL. */
  readonly env?: Record<string, string>;
  /** Text for stdin; stdin is a pipe either way. */
  readonly stdin?: string;
}

/**
 * The state folder (`XDG_STATE_HOME`) of the runs of this test file: the conversations the
 * interactive session keeps go there, not under the real home, and go when the tests end.
 */
const STATE_HOME = mkdtempSync(join(tmpdir(), "plugboard-cli-state-"));
process.on("exit", () => rmSync(STATE_HOME, { recursive: true, force: true }));

/** The environment every run starts from: no keys, no endpoint, no colours; without a HOME of the test's own, the tests' state folder. */
export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const state: Record<string, string> = extra.HOME === undefined ? { XDG_STATE_HOME: STATE_HOME } : {};
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? tmpdir(), ...state, ...extra };
}

/** Starts `plugboard ARGS` with piped stdio. */
export function spawnPlugboard(args: readonly string[], options: SpawnOptions) {
  return spawnEntry(MAIN, args, options);
}

function spawnEntry(entry: string, args: readonly string[], options: SpawnOptions) {
  return Bun.spawn(["bun", entry, ...args], {
    cwd: options.cwd,
    env: cleanEnv(options.env),
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
}

/** Runs `plugboard ARGS` to the end. */
export function plugboard(args: readonly string[], options: SpawnOptions): Promise<Finished> {
  return toEnd(spawnPlugboard(args, options), options);
}

/** Runs `plugboard ARGS` from the sources (`bun src/main.ts`) to the end. */
export function fromSources(args: readonly string[], options: SpawnOptions): Promise<Finished> {
  return toEnd(spawnEntry(SOURCES, args, options), options);
}

async function toEnd(child: ReturnType<typeof spawnPlugboard>, options: SpawnOptions): Promise<Finished> {
  if (options.stdin !== undefined) child.stdin.write(options.stdin);
  await child.stdin.end();
  return finished(child);
}

/** Waits for a spawned process and collects its output. */
export async function finished(child: Pick<Bun.Subprocess<"pipe" | "ignore", "pipe", "pipe">, "stdout" | "stderr" | "exited">): Promise<Finished> {
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { code, stdout, stderr };
}

/** A temp folder with `files` (paths relative to it); `remove` (or `await using`) deletes it. */
export async function tempFolder(files: Record<string, string> = {}) {
  const dir = await mkdtemp(join(tmpdir(), "plugboard-cli-"));
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  const remove = () => rm(dir, { recursive: true, force: true });
  return { dir, remove, [Symbol.asyncDispose]: remove };
}

/**
 * Writes a config file into `dir` (workspace `./workspace` unless given) and returns its
 * path. Plugins run in the CLI's process (`"sandbox": "off"`) unless `config` says
 * otherwise: starting five confined hosts per run would slow every test, and the sandbox
 * has its own end-to-end tests (sandbox.test.ts, signals.test.ts).
 */
export async function writeConfig(dir: string, config: Record<string, unknown> = {}): Promise<string> {
  const path = join(dir, "plugboard.config.json");
  await writeFile(path, JSON.stringify({ workspace: "./workspace", sandbox: "off", plugins: FIRST_PARTY, ...config }, null, 2));
  return path;
}

/** Stack frames look like `    at fn (file:1:2)`: a person-facing failure must not print one. */
export const STACK_FRAME = "    at ";

/**
 * How long a wait for a prompt or a line lasts before it fails. A wait ends as soon as the text
 * shows, so this costs a passing test nothing; it is long because the full run starts four test
 * files at a time beside the other packages' tests on two cores, and a CLI start that takes
 * half a second alone can then take several.
 */
export const PATIENCE_MS = 30_000;

/** A spawned process whose output is read as it comes, so a test can wait for a prompt. */
export function watch(child: ReturnType<typeof spawnPlugboard>) {
  const text = { stdout: "", stderr: "" };
  const read = async (name: "stdout" | "stderr") => {
    const decoder = new TextDecoder();
    for await (const chunk of child[name]) text[name] += decoder.decode(chunk, { stream: true });
  };
  const reading = Promise.all([read("stdout"), read("stderr")]);
  return {
    /** What each stream has shown so far. */
    text: () => ({ ...text }),
    /** Resolves once `stream` has shown `needle` `times` times; fails after `timeoutMs` saying what never appeared. */
    async waitFor(name: "stdout" | "stderr", needle: string, times = 1, timeoutMs = PATIENCE_MS): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      while (text[name].split(needle).length - 1 < times) {
        if (child.exitCode !== null) throw new Error(`exited before "${needle}" appeared on ${name}: ${text[name]}`);
        if (Date.now() > deadline) throw new Error(`"${needle}" did not appear ${times} time(s) on ${name} within ${timeoutMs} ms:\n${text[name]}`);
        await Bun.sleep(10);
      }
    },
    async finished(): Promise<Finished> {
      const code = await child.exited;
      await reading;
      return { code, ...text };
    },
  };
}

/** `plugboard ARGS` in a pseudo-terminal (Bun's PTY): stdin, stdout and stderr are the terminal, as for a person. */
export function spawnInTerminal(args: readonly string[], options: { readonly cwd: string; readonly env?: Record<string, string> }) {
  let screen = "";
  const decoder = new TextDecoder();
  // The terminal's own end (its last output read: every process holding it has closed it), which may come after the process's exit.
  const allRead = Promise.withResolvers<void>();
  const child = Bun.spawn(["bun", MAIN, ...args], {
    cwd: options.cwd,
    env: cleanEnv({ TERM: "xterm", NO_COLOR: "1", ...options.env }),
    terminal: { cols: 200, rows: 50, data: (_terminal, data) => (screen += decoder.decode(data, { stream: true })), exit: () => allRead.resolve() },
  });
  const terminal = child.terminal;
  if (!terminal) throw new Error("Bun.spawn gave no terminal");
  return {
    /** Everything the terminal showed so far. */
    screen: () => screen,
    /** Resolves once the screen has shown `needle` `times` times; fails after `PATIENCE_MS` saying what never appeared. */
    async waitFor(needle: string, times = 1): Promise<void> {
      const deadline = Date.now() + PATIENCE_MS;
      while (screen.split(needle).length - 1 < times) {
        if (child.exitCode !== null) throw new Error(`exited (${child.exitCode}) before "${needle}" appeared ${times} time(s):\n${screen}`);
        if (Date.now() > deadline) throw new Error(`"${needle}" did not appear ${times} time(s) within ${PATIENCE_MS} ms:\n${screen}`);
        await Bun.sleep(20);
      }
    },
    /** Types `keys` (a person's key presses: `\r` is Enter, `\u0003` Ctrl-C). */
    type: (keys: string) => terminal.write(keys),
    /** Sends the process `signal`, as `kill` would. */
    kill: (signal: NodeJS.Signals) => child.kill(signal),
    /** The exit code, once everything the process wrote has reached `screen` (or 5 s after it exited, when something it left holds the terminal). */
    async exited(): Promise<number> {
      const code = await child.exited;
      await Promise.race([allRead.promise, Bun.sleep(5_000)]);
      terminal.close();
      return code;
    },
  };
}

/** The `role: "tool"` message each call id got, as the model read them in its request number `request` (default: the last). */
export function toolResults(model: ScriptedModel, request = model.requests.length - 1): Record<string, string> {
  const messages = model.requests[request]?.body.messages ?? [];
  return Object.fromEntries(messages.filter((m) => m.role === "tool").map((m) => [String(m.tool_call_id), String(m.content)]));
}

/** A loopback server standing for an attacker's: it answers "thanks", and each request's path is pushed onto `received`. */
export function startAttacker(received: string[]): ReturnType<typeof Bun.serve> {
  return Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (request) => {
      received.push(new URL(request.url).pathname);
      return new Response("thanks\n");
    },
  });
}

/** The names of the tools the model's request number `request` (default: the first) offered. */
export function offeredTools(model: ScriptedModel, request = 0): string[] {
  return (model.requests[request]?.body.tools ?? []).map((tool) => (tool as { function: { name: string } }).function.name);
}

/**
 * `plugboard ARGS` on a pseudo-terminal that `script` holds: killing `holder` takes the
 * terminal away, as closing a tmux pane or an ssh session does. With `leader`, plugboard is
 * the terminal's session leader (the kernel sends it SIGHUP); without, a shell is, and
 * survives the hangup (`trap : HUP`), so plugboard gets no signal, only a read that ends.
 * `code()` is plugboard's exit code once the shell wrote it (without `leader` only).
 */
export function spawnUnderScript(args: readonly string[], options: { readonly cwd: string; readonly leader?: boolean; readonly env?: Record<string, string>; readonly startAfter?: number }) {
  const codeFile = join(options.cwd, `exit-code-${crypto.randomUUID()}`);
  const command = ["bun", MAIN, ...args].map((word) => `'${word.replaceAll("'", "'\\''")}'`).join(" ");
  // `startAfter` seconds: the shell waits that long before it starts plugboard (the terminal may be gone by then).
  const wait = options.startAfter === undefined ? "" : `sleep ${options.startAfter}; `;
  const inner = options.leader === true ? `${wait}exec ${command}` : `trap : HUP; ${wait}${command}; echo $? > '${codeFile}'`;
  const holder = Bun.spawn(["script", "-qfc", inner, "/dev/null"], {
    cwd: options.cwd,
    env: cleanEnv({ SHELL: "/bin/sh", TERM: "xterm", NO_COLOR: "1", ...options.env }),
    stdin: "pipe",
    stdout: "pipe",
    stderr: "ignore",
  });
  let screen = "";
  void (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of holder.stdout) screen += decoder.decode(chunk, { stream: true });
  })();
  return {
    holder,
    screen: () => screen,
    /** Resolves once the screen has shown `needle` `times` times; fails after `PATIENCE_MS` saying what never appeared. */
    async waitFor(needle: string, times = 1): Promise<void> {
      const deadline = Date.now() + PATIENCE_MS;
      while (screen.split(needle).length - 1 < times) {
        if (holder.exitCode !== null) throw new Error(`script exited (${holder.exitCode}) before "${needle}" appeared ${times} time(s):\n${screen}`);
        if (Date.now() > deadline) throw new Error(`"${needle}" did not appear ${times} time(s) within ${PATIENCE_MS} ms:\n${screen}`);
        await Bun.sleep(20);
      }
    },
    /** Types `keys` on the terminal. */
    type: (keys: string) => {
      holder.stdin.write(keys);
      holder.stdin.flush();
    },
    /** Plugboard's exit code, once its shell wrote it. */
    code: async (): Promise<number | undefined> => {
      const file = Bun.file(codeFile);
      return (await file.exists()) ? Number((await file.text()).trim()) : undefined;
    },
  };
}

/**
 * How long `npm view` may take: npm retries a refused or failed request itself, after 10 s and
 * then up to a minute, and the suite's start loads the machine most. 15 s skipped the npx tests
 * in clean-clone runs whose first request failed once.
 */
const NPM_VIEW_MS = 45_000;

/**
 * Why `npm view PACKAGE version` gets no version from the registry npm uses, or undefined when
 * it does: the probe of the tests that fetch a package with npx.
 */
export async function npmRegistryProblem(packageName: string): Promise<string | undefined> {
  const probe = Bun.spawn(["npm", "view", packageName, "version"], { stdin: "ignore", stdout: "pipe", stderr: "pipe", timeout: NPM_VIEW_MS });
  const [version, code] = await Promise.all([new Response(probe.stdout).text(), probe.exited]);
  if (code === 0 && version.trim() !== "") return undefined;
  const how = probe.signalCode === null ? `exit ${code}` : `no answer within ${NPM_VIEW_MS / 1000} s`;
  return `the npm registry is not reachable (npm view ${packageName} version: ${how})`;
}
