/**
 * Fuzzing the five shipped tools through the runtime the CLI builds: thousands of
 * adversarial argument objects (escaping paths, names too long for the system, folders
 * where files should be, patterns fast-glob cannot expand, odd whitespace and types). Every
 * call must answer (a result, never an exception), within a deadline, and nothing may appear
 * outside the workspace. The generator is seeded: a failure names the seed and the call.
 * Calls are approved as `--yes` would, so the shipped policy's `ask` lets them through.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdir, mkdtemp, readdir, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildApp, loadConfig } from "@plugboard/bootstrap";
import type { ToolRuntime } from "@plugboard/runtime";
import { approveAll } from "./approvals.ts";
import { SHIPPED_CONFIG } from "./load-app.ts";

const SEED = Number(process.env.FUZZ_SEED ?? 20261130);
const CALLS_PER_TOOL = 2000;
const DEADLINE_MS = 5000;

let base: string;
let root: string;
let canary: string;
let runtime: ToolRuntime;
let canaryBefore: string[];

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "plugboard-fuzz-")));
  root = join(base, "workspace");
  canary = join(base, "canary");
  await mkdir(join(root, "src/deep"), { recursive: true });
  await mkdir(join(canary, "sub"), { recursive: true });
  await writeFile(join(canary, "secret.txt"), "secret\n");
  await writeFile(join(root, "a.txt"), "alpha\n  beta  \r\ngamma\tdelta\n");
  await writeFile(join(root, "src/index.ts"), "export const a = 1;\n    if (x) {\n        y();\n    }\n");
  await writeFile(join(root, "src/deep/b.ts"), "\uFEFFline one\r\nline two\r\n");
  await writeFile(join(root, "file[1].txt"), "brackets\n");
  await writeFile(join(root, ".gitignore"), "*.log\n!keep.log\n");
  await symlink(canary, join(root, "out"));
  await symlink(join(canary, "secret.txt"), join(root, "secret-link"));
  await symlink("loop-b", join(root, "loop-a"));
  await symlink("loop-a", join(root, "loop-b"));
  Bun.spawnSync(["mkfifo", join(root, "pipe")]);
  canaryBefore = await outsideListing();
  const config = await loadConfig(SHIPPED_CONFIG, { overrides: { workspace: root }, env: {}, cwd: base });
  runtime = (await buildApp(config)).runtime;
});

afterAll(() => rm(base, { recursive: true, force: true }));

/** mulberry32: a small seeded PRNG, so a failing run is reproduced with its seed. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Random = () => number;
const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
const int = (random: Random, max: number) => Math.floor(random() * max);

const PATH_PARTS = [
  "a.txt", "src", "src/index.ts", "src/deep/b.ts", "file[1].txt", "new.txt", "new/dir/x.md", ".", "..", "../canary/x",
  "/etc/passwd", "/etc", "/", "out/secret.txt", "out/new.txt", "out", "secret-link", "loop-a", "pipe", "a.txt/child",
  "src/index.ts/x", "", " ", "\u0000", "😀.txt", "Ａ", "~", "-rf", "\\..\\..", "a//b", "./a.txt", "src/../../canary",
  "%2e%2e/x", "\n", "keep.log", "x.log", "/proc/self/environ", "/dev/zero",
];
const GLOB_PARTS = [
  "*", "**", "?", "{", "}", ",", "/", "..", "/etc", "[", "]", "!", "@(", "+(", ")", "|", "\\", "{1..100000}", "{a,b}",
  "{/etc,x}", "{,/}etc", "//", "*.ts", "src", "out", "~", ".git", "node_modules", "(group)", "[id]", "😀", "{1..5}",
];
const TEXT_PARTS = [
  "alpha", "  beta  ", "gamma\tdelta", "\r\n", "\n", "    if (x) {", "y();", "export const a = 1;", "\uFEFF", " ",
  "line one", "\u0000", "😀", "$&", "$1", "\t", "}", "",
];

function compose(random: Random, parts: readonly string[], max: number): string {
  let text = "";
  for (let count = 1 + int(random, max); count > 0; count--) text += pick(random, parts);
  return text;
}

/** A path: mostly plausible, sometimes huge (a 300-character name, over 4 KiB in all). */
function path(random: Random): string {
  const roll = random();
  if (roll < 0.05) return "n".repeat(256 + int(random, 100));
  if (roll < 0.08) return "d/".repeat(2050 + int(random, 100));
  if (roll < 0.1) return join(root, compose(random, PATH_PARTS, 2));
  return compose(random, PATH_PARTS, 3);
}

function pattern(random: Random): string {
  const roll = random();
  if (roll < 0.03) return "x".repeat(70_000);
  if (roll < 0.06) return `${root}//etc/*`;
  if (roll < 0.08) return "{a,b}".repeat(40);
  return compose(random, GLOB_PARTS, 6);
}

/** Sometimes a wrong type or an extra property, so the runtime's validation is fuzzed too. */
function oddValue(random: Random): unknown {
  return pick(random, [null, 0, -1, 1e308, true, [], {}, "", "x".repeat(1000), Number.MAX_SAFE_INTEGER]);
}

function maybeOdd(random: Random, args: Record<string, unknown>): Record<string, unknown> {
  if (random() > 0.1) return args;
  const keys = [...Object.keys(args), "extra"];
  return { ...args, [pick(random, keys)]: oddValue(random) };
}

const GENERATORS: Record<string, (random: Random) => Record<string, unknown>> = {
  read_file: (r) => ({ path: path(r), ...(r() < 0.4 ? { offset: pick(r, [1, 2, 3, 1e9, 0]) } : {}), ...(r() < 0.4 ? { limit: pick(r, [1, 2, 1e9, 0]) } : {}) }),
  write_file: (r) => ({ path: path(r), content: r() < 0.05 ? "z".repeat(100_000) : compose(r, TEXT_PARTS, 8) }),
  edit_file: (r) => ({
    path: path(r),
    old_text: compose(r, TEXT_PARTS, 4),
    new_text: compose(r, TEXT_PARTS, 4),
    ...(r() < 0.3 ? { replace_all: r() < 0.5 } : {}),
  }),
  glob: (r) => ({ pattern: pattern(r), ...(r() < 0.3 ? { path: path(r) } : {}), ...(r() < 0.3 ? { include_ignored: r() < 0.5 } : {}) }),
  bash: (r) => (r() < 0.8 ? oddBashArguments(r) : { command: pick(r, HARMLESS_COMMANDS), ...(r() < 0.3 ? { timeout_ms: pick(r, [1, 50, 1000]) } : {}) }),
};

const HARMLESS_COMMANDS = ["true", "echo hi", "printf '%s' x", "exit 3", "cat missing.txt", "echo $((1+2))", ":", "ls"];

/**
 * bash runs whatever command it is given, so its fuzzing is of the arguments' shapes: types,
 * bounds, missing and extra keys, and commands a spawn can choke on (NUL bytes, empty, huge,
 * unpaired surrogates). Most never reach a shell; the rest run and end at once.
 */
function oddBashArguments(random: Random): Record<string, unknown> {
  const shapes: (() => Record<string, unknown>)[] = [
    () => ({}),
    () => ({ command: oddValue(random) }),
    () => ({ cmd: pick(random, HARMLESS_COMMANDS) }),
    () => ({ command: "true", timeout_ms: pick(random, [0, -1, 1.5, 1e308, "50", null, Number.MAX_SAFE_INTEGER, 1e7]) }),
    () => ({ command: pick(random, ["echo a\u0000b", "", "\n", "\ud800", "echo \udfff"]) }),
    () => ({ command: `: ${"x".repeat(int(random, 200_000))}` }),
    () => ({ command: pick(random, HARMLESS_COMMANDS), extra: oddValue(random) }),
  ];
  return pick(random, shapes)();
}

async function callWithDeadline(tool: string, args: unknown): Promise<string> {
  const raw = JSON.stringify(args);
  let timer: Timer | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${DEADLINE_MS} ms`)), DEADLINE_MS);
  });
  try {
    const result = await Promise.race([runtime.execute(tool, raw, { approve: approveAll }), deadline]);
    if (typeof result.content !== "string") throw new Error("the result has no text");
    if (result.isError && !result.content.startsWith("Error: ")) throw new Error(`an error result without "Error: ": ${result.content.slice(0, 200)}`);
    return result.content;
  } finally {
    clearTimeout(timer);
  }
}

/** What lies beside the workspace: the folder holding it, and the canary folder in full. */
async function outsideListing(): Promise<string[]> {
  const beside = await readdir(base);
  const inCanary = await readdir(canary, { recursive: true });
  return [...beside, ...inCanary.map((entry) => `canary/${entry}`)].sort();
}

// The five tools are fuzzed side by side (each its own calls in order), as a model's parallel
// calls reach them: one tool's wait on its host is another's time to run. They share the
// workspace, so what one writes another may find; every check below holds whatever it finds.
test.concurrent.each(Object.keys(GENERATORS))("%s answers every fuzzed call with a result, in time, and writes nothing outside", async (tool) => {
  const random = prng(SEED + tool.length * 7919);
  const generate = GENERATORS[tool];
  if (generate === undefined) throw new Error(`no generator for ${tool}`);
  const calls = CALLS_PER_TOOL;
  const failures: string[] = [];
  let errors = 0;
  for (let index = 0; index < calls; index++) {
    const args = maybeOdd(random, generate(random));
    try {
      if ((await callWithDeadline(tool, args)).startsWith("Error: ")) errors++;
    } catch (error) {
      failures.push(`call ${index} (seed ${SEED}) ${JSON.stringify(args).slice(0, 300)}: ${error instanceof Error ? error.stack : error}`);
    }
  }
  expect(failures).toEqual([]);
  // The mix must reach the handlers, not only the runtime's validation.
  expect(errors).toBeLessThan(calls);
  expect(await outsideListing()).toEqual(canaryBefore);
}, 180_000);
