/**
 * The walk for repositories and other tools' files, over real folders: its depth, what it does
 * not enter, what a repository's config says runs code, and a walker that reads again only
 * what changed yet misses no new entry, even in a folder whose mtime a plugin set back.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { removeTempDirs, tempDir } from "@plugboard/test-helpers";
import { codeIn, runningKeys } from "./git-code.ts";
import { LeftoverWatch } from "./leftovers.ts";
import { scanWorkspace, WorkspaceWalker } from "./workspace-scan.ts";

afterAll(removeTempDirs);

function make(root: string, paths: readonly string[]): void {
  for (const path of paths) {
    if (path.endsWith("/")) mkdirSync(join(root, path), { recursive: true });
    else {
      mkdirSync(join(root, path, ".."), { recursive: true });
      writeFileSync(join(root, path), "x\n");
    }
  }
}

test("repositories and other tools' files to the depth, not inside node_modules or .git; deeper ones only when asked", async () => {
  const root = await tempDir();
  make(root, [".git/hooks/", ".git/config", "a/.vscode/", "a/b/.git", "node_modules/x/.git/", "node_modules/x/.envrc", "a/b/c/.git/", "a/b/c/.bashrc", ".git/modules/m/.git/"]);
  const scan = scanWorkspace(root, 2);
  expect(scan.repositories.map(({ path, folder, metadata }) => [path.slice(root.length), folder, metadata])).toEqual([
    ["/.git", true, ["config", "hooks", "modules"]],
    ["/a/b/.git", false, []],
  ]);
  expect(scan.otherTools.map((path) => path.slice(root.length))).toEqual(["/a/.vscode"]);
  expect(scan.deeper).toEqual([]);
  expect(scanWorkspace(root, 2, 5).deeper.map((path) => path.slice(root.length))).toEqual(["/a/b/c/.git"]);
  expect(scanWorkspace(root, 3).otherTools.map((path) => path.slice(root.length))).toEqual(["/a/.vscode", "/a/b/c/.bashrc"]);
});

test("what runs code: non-sample hooks, and the config keys git runs or follows, in the common folder a commondir names", async () => {
  const root = await tempDir();
  make(root, [".git/hooks/pre-commit.sample", ".git/hooks/post-merge", "wt/commondir", "wt/config.worktree"]);
  writeFileSync(
    join(root, ".git/config"),
    '[core]\n\tbare = false\n\tFSMonitor = "x"\n[alias]\n\tst = status\n[filter "lfs"]\n\tclean = git-lfs clean\n[difftool "x"]\n\tcmd = run\n[include]\n\tpath = ../other\n[remote "origin"]\n\turl = x\n',
  );
  writeFileSync(join(root, "wt/commondir"), "../.git\n");
  writeFileSync(join(root, "wt/config.worktree"), "[core]\n\thooksPath = .githooks\n");
  expect(runningKeys(join(root, ".git/config"))).toEqual(["core.fsmonitor", "filter.lfs.clean", "difftool.x.cmd", "include.path"]);
  expect(codeIn(join(root, "wt"), true)).toEqual(["hook post-merge", "core.fsmonitor", "filter.lfs.clean", "difftool.x.cmd", "include.path", "core.hookspath"]);
});

test("a walker kept between calls finds a new entry in a folder whose mtime was set back (ctime cannot be)", async () => {
  const root = await tempDir();
  make(root, ["src/a.ts", "src/deep/b.ts"]);
  const old = new Date(Date.now() - 60_000);
  utimesSync(join(root, "src"), old, old);
  // A folder is kept from one walk to the next only once its status has settled (a second before it was read).
  await Bun.sleep(1100);
  const walker = new WorkspaceWalker(root, 8);
  const watch = new LeftoverWatch(root, walker);
  // The first walk, as a host's start makes it.
  walker.scan();
  expect(watch.look()).toEqual([]);
  make(root, ["src/.vscode/"]);
  utimesSync(join(root, "src"), old, old);
  expect(watch.look()).toEqual([{ kind: "other-tools", path: "src/.vscode", runs: [] }]);
  expect(watch.look()).toEqual([]);
});
