import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pluginRuntime } from "@plugboard/testing";
import plugin from "./index.ts";

let root: string;

// One tree for every case: ignore files at three depths, with negations and their own base.
// What `git ls-files --others --exclude-standard` lists for the same tree is what is expected.
const FILES: Readonly<Record<string, string>> = {
  ".gitignore": "*.log\n!keep.log\n/dist/\nbuild/\n",
  ".ignore": "secret.txt\n",
  "app.log": "",
  "APP.LOG": "",
  "keep.log": "",
  "secret.txt": "",
  "dist/bundle.js": "",
  "src/dist/kept.js": "",
  "src/index.ts": "",
  "src/debug.log": "",
  "src/.gitignore": "generated/\n!debug.log\n/local.ts\n",
  "src/local.ts": "",
  "src/generated/types.ts": "",
  "src/nested/local.ts": "",
  "src/nested/.ignore": "*.tmp\n",
  "src/nested/a.tmp": "",
  "src/nested/b.txt": "",
  "build/.gitignore": "!out.js\n",
  "build/out.js": "",
  "lib/build/x.js": "",
  "web/.gitignore": "gen/*.js\n!build/\n",
  "web/gen/a.js": "",
  "web/gen/b.ts": "",
  "web/build/out.js": "",
  "web/x.js": "",
  "vendor/.gitignore": "*\n!*/\n!*.ts\n",
  "vendor/a.js": "",
  "vendor/lib/b.ts": "",
  "vendor/lib/c.js": "",
  "vendor/lib/deep/d.ts": "",
  "tools/.gitignore": "cache\n!cache/\nout/*.js\n",
  "tools/cache/run.ts": "",
  "tools/bin/cache": "",
  "tools/out/a.js": "",
  "tools/out/b.ts": "",
  "gen/.gitignore": "tmp/\n",
  "gen/tmp/.gitignore": "!*\n",
  "gen/tmp/x.ts": "",
  "gen/src/.gitignore": "!tmp/\n",
  "gen/src/tmp/y.ts": "",
  "gen/src/tmp/z.log": "",
  "node_modules/pkg/index.js": "",
  "app/(group)/page.tsx": "",
  "app/[id]/page.tsx": "",
  "app/i/page.tsx": "",
  "file[1].txt": "",
  "file1.txt": "",
  "sort/z.txt": "",
  "sort/Ａ.txt": "",
  "sort/😀.txt": "",
  "sort/a.txt": "",
  "sort/\uFFFD.txt": "",
};

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "plugboard-glob-ignore-")));
  for (const [path, content] of Object.entries(FILES)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
});

afterAll(() => rm(root, { recursive: true, force: true }));

const glob = async (args: Record<string, unknown>) =>
  (await (await pluginRuntime(plugin, { root })).call("glob", args)).content.split("\n");

describe("glob honours .gitignore and .ignore", () => {
  test.each([
    ["*.log ignored, !keep.log re-included", { pattern: "*.log" }, ["keep.log"]],
    ["rules are case-sensitive, as git's on Linux", { pattern: "*.{log,LOG}" }, ["APP.LOG", "keep.log"]],
    [".ignore beside .gitignore", { pattern: "*.txt" }, ["file1.txt", "file[1].txt"]],
    ["/dist/ anchored to its file's folder", { pattern: "**/*.js" }, ["src/dist/kept.js", "web/build/out.js", "web/x.js"]],
    ["nested .gitignore with its own base and a negation", { pattern: "src/**" }, ["src/.gitignore", "src/debug.log", "src/dist/kept.js", "src/index.ts", "src/nested/.ignore", "src/nested/b.txt", "src/nested/local.ts"]],
    ["nested .ignore", { pattern: "src/nested/*" }, ["src/nested/.ignore", "src/nested/b.txt", "src/nested/local.ts"]],
    ["a search folder below an ignore file still obeys it", { pattern: "*", path: "src" }, ["src/.gitignore", "src/debug.log", "src/index.ts"]],
    ["nothing under an ignored folder comes back, even negated", { pattern: "build/*" }, ["(no matches)"]],
    ["an unanchored folder rule applies at any depth", { pattern: "lib/**" }, ["(no matches)"]],
    ["a rule with a slash is anchored to its file's folder; a deeper !build/ re-includes a folder", { pattern: "web/**" }, ["web/.gitignore", "web/build/out.js", "web/gen/b.ts", "web/x.js"]],
    ["a search starting in an ignored folder finds nothing there", { pattern: "dist/*.js" }, ["(no matches)"]],
    ["`*` then `!*/` and `!*.ts`: every folder is walked, only .ts files come back", { pattern: "vendor/**" }, ["vendor/lib/b.ts", "vendor/lib/deep/d.ts"]],
    ["`cache` and `!cache/` in one file: the folder is kept, a file of that name is not", { pattern: "tools/**" }, ["tools/.gitignore", "tools/cache/run.ts", "tools/out/b.ts"]],
    ["`!*` inside an ignored folder re-includes nothing; a deeper `!tmp/` re-includes a folder", { pattern: "**/tmp/*" }, ["gen/src/tmp/y.ts"]],
    ["node_modules stays skipped", { pattern: "**/index.js" }, ["(no matches)"]],
    ["node_modules stays skipped when the pattern starts inside it", { pattern: "node_modules/pkg/*" }, ["(no matches)"]],
  ])("%s", async (_, args, expected) => {
    expect(await glob(args)).toEqual(expected);
  });

  test.each([
    [{ pattern: "*.log", include_ignored: true }, ["app.log", "keep.log"]],
    [{ pattern: "build/*", include_ignored: true }, ["build/.gitignore", "build/out.js"]],
    [{ pattern: "src/nested/*.tmp", include_ignored: true }, ["src/nested/a.tmp"]],
    [{ pattern: "**/index.js", include_ignored: true }, ["(no matches)"]],
    [{ pattern: "dist/*.js", include_ignored: true }, ["dist/bundle.js"]],
    [{ pattern: "gen/tmp/*", include_ignored: true }, ["gen/tmp/.gitignore", "gen/tmp/x.ts"]],
  ])("include_ignored: true lists what the ignore files exclude, not node_modules (%#)", async (args, expected) => {
    expect(await glob(args)).toEqual(expected);
  });
});

// The folders of the tree with no .ignore file and no node_modules, where git's own listing
// is the expectation: `git ls-files --others --exclude-standard`, run in a repository
// whose work tree is the test folder.
test.skipIf(Bun.which("git") === null)("lists in each folder ruled by .gitignore files alone what git lists", async () => {
  const listedByGit = await gitListing(root);
  for (const folder of ["build", "dist", "gen", "lib", "tools", "vendor", "web"]) {
    const expected = listedByGit.filter((path) => path.startsWith(`${folder}/`));
    expect(await glob({ pattern: `${folder}/**` })).toEqual(expected.length > 0 ? expected : ["(no matches)"]);
  }
  expect(listedByGit).toContain("tools/cache/run.ts");
  expect(listedByGit).not.toContain("dist/bundle.js");
});

async function gitListing(workTree: string): Promise<string[]> {
  const gitDir = await mkdtemp(join(tmpdir(), "plugboard-glob-git-"));
  // No user or system configuration: a global excludes file would change the listing.
  const env = { PATH: process.env.PATH ?? "", HOME: gitDir, GIT_CONFIG_NOSYSTEM: "1", GIT_DIR: gitDir, GIT_WORK_TREE: workTree };
  const git = (...args: string[]) => {
    const run = Bun.spawnSync(["git", ...args], { cwd: workTree, env });
    if (run.exitCode !== 0) throw new Error(`git ${args.join(" ")} failed: ${run.stderr.toString()}`);
    return run.stdout.toString();
  };
  try {
    git("init", "-q");
    return git("ls-files", "-z", "--others", "--exclude-standard").split("\0").filter((path) => path !== "").sort();
  } finally {
    await rm(gitDir, { recursive: true, force: true });
  }
}

describe("glob finds a path named literally", () => {
  test.each([
    ["app/(group)/page.tsx", ["app/(group)/page.tsx"]],
    ["app/[id]/page.tsx", ["app/[id]/page.tsx", "app/i/page.tsx"]],
    ["file[1].txt", ["file1.txt", "file[1].txt"]],
    ["secret.txt", ["secret.txt"]],
  ])("%s", async (pattern, expected) => {
    expect(await glob({ pattern })).toEqual(expected);
  });
});

test("sorts by code point: U+FFFD and fullwidth Ａ before 😀 (U+1F600)", async () => {
  expect(await glob({ pattern: "sort/*" })).toEqual(["sort/a.txt", "sort/z.txt", "sort/Ａ.txt", "sort/\uFFFD.txt", "sort/😀.txt"]);
});
