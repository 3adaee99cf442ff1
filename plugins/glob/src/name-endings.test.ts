import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pluginRuntime } from "@plugboard/testing";
import fg from "fast-glob";
import plugin from "./index.ts";
import { nameEndings } from "./name-endings.ts";

test.each([
  [["**/*.ts"], [".ts"]],
  [["src/*.js", "src/*.json"], [".js", ".json"]],
  [["src/index.ts"], ["index.ts"]],
  [["**/*.[jt]s"], ["s"]],
  [["**/*.ts", "**"], undefined],
  [["**/*"], undefined],
  [["**/*.+(ts|js)"], undefined],
  [["**/x\\*.ts"], undefined],
  [["src/."], undefined],
  [["**/*.ts/"], undefined],
])("the endings of %j: %j", (patterns, expected) => {
  expect(nameEndings(patterns)).toEqual(expected);
});

let root: string;

// Names that end, or almost end, in what the patterns below end in.
const FILES = [
  "a.ts",
  "b.tsx",
  "c.d.ts",
  ".ts",
  "x.TS",
  "y.ts.bak",
  "k.ts",
  "z.s",
  "plain",
  "weird name.ts",
  "dir.ts/inner.js",
  "dir.ts/k.ts",
  "deep/er/e.js",
  "deep/er/f.ts",
];

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "plugboard-glob-endings-")));
  for (const path of FILES) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), "");
  }
});

afterAll(() => rm(root, { recursive: true, force: true }));

// Files whose names have none of a pattern's endings are dropped before fast-glob matches:
// what fast-glob itself finds must still be found, every one.
test.each([
  "**/*.ts",
  "**/*.d.ts",
  "**/*.[jt]s",
  "**/!(k).ts",
  "**/*.@(ts|js)",
  "**/*.{ts,tsx}",
  "*.ts",
  "**/.ts",
  "**/*ts",
  "**/k.ts",
  "**/*.TS",
  "**/*.s",
  "**/?.ts",
  "dir.ts/**",
  "**/dir.ts",
  "deep/**/*.js",
  "**/weird name.ts",
])("%s lists what fast-glob matches", async (pattern) => {
  const runtime = await pluginRuntime(plugin, { root });
  const listed = (await runtime.call("glob", { pattern })).content;
  const matched = await fg(pattern, { cwd: root, dot: true, onlyFiles: true, followSymbolicLinks: false });
  expect(listed).toBe(matched.length > 0 ? matched.sort().join("\n") : "(no matches)");
});
