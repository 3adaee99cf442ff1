import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PathEscapeError, ToolError, WorkspaceError } from "./errors.ts";
import { Workspace } from "./workspace.ts";

let base: string;
let root: string;
let outside: string;
let workspace: Workspace;

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "plugboard-ws-")));
  root = join(base, "root");
  outside = join(base, "outside");
  await mkdir(join(root, "src/deep"), { recursive: true });
  await mkdir(outside);
  await writeFile(join(root, "src/a.ts"), "a");
  await writeFile(join(outside, "secret.txt"), "secret");
  await symlink(join(outside, "secret.txt"), join(root, "secret-link"));
  await symlink(outside, join(root, "outside-dir"));
  await symlink(join(outside, "new.txt"), join(root, "dangling-out"));
  await symlink(join(root, "src/a.ts"), join(root, "inside-link"));
  await symlink(join(root, "src/not-yet.ts"), join(root, "dangling-in"));
  await symlink("loop-b", join(root, "loop-a"));
  await symlink("loop-a", join(root, "loop-b"));
  workspace = await Workspace.open(root);
});

afterAll(() => rm(base, { recursive: true, force: true }));

const escapes = (path: string) => expect(workspace.resolve(path)).rejects.toThrow(new PathEscapeError(path));

describe("Workspace.open", () => {
  test("resolves the root to its real path", async () => {
    await symlink(root, join(base, "root-link"));
    expect((await Workspace.open(join(base, "root-link"))).root).toBe(root);
  });

  test.each([
    ["a relative path", "relative/dir", "must be an absolute path"],
    ["a missing folder", "/definitely/not/here", "does not exist"],
  ])("refuses %s with a WorkspaceError", async (_, path, text) => {
    const error = await Workspace.open(path).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkspaceError);
    expect((error as Error).message).toContain(text);
  });

  test("refuses a file", async () => {
    await expect(Workspace.open(join(root, "src/a.ts"))).rejects.toThrow("Workspace is not a folder");
  });
});

describe("Workspace.resolve", () => {
  test("resolves relative paths, existing or not, inside the root", async () => {
    expect(await workspace.resolve("src/a.ts")).toBe(join(root, "src/a.ts"));
    expect(await workspace.resolve("src/deep/new/file.txt")).toBe(join(root, "src/deep/new/file.txt"));
    expect(await workspace.resolve(".")).toBe(root);
    expect(await workspace.resolve("src/../src/a.ts")).toBe(join(root, "src/a.ts"));
  });

  test("accepts an absolute path inside the root", async () => {
    expect(await workspace.resolve(join(root, "src/a.ts"))).toBe(join(root, "src/a.ts"));
  });

  test("follows symlinks that stay inside", async () => {
    expect(await workspace.resolve("inside-link")).toBe(join(root, "src/a.ts"));
    expect(await workspace.resolve("dangling-in")).toBe(join(root, "src/not-yet.ts"));
  });

  test("refuses .. that climbs out", () => escapes("../outside/secret.txt"));
  test("refuses .. hidden in the middle", () => escapes("src/../../outside"));
  test("refuses an absolute path elsewhere", () => escapes("/etc/passwd"));
  test("refuses a symlinked file that points out", () => escapes("secret-link"));
  test("refuses a path through a symlinked parent folder", () => escapes("outside-dir/secret.txt"));
  test("refuses a not-yet-existing file under a symlinked parent", () => escapes("outside-dir/new/file.txt"));
  test("refuses a dangling symlink whose target is outside", () => escapes("dangling-out"));
  test("refuses NUL bytes", () => escapes("src/a.ts\0.png"));
  test("refuses a symlink loop instead of hanging", () => escapes("loop-a"));

  test("a name or a path too long for the system is an Error: result, not a throw", async () => {
    await expect(workspace.resolve("n".repeat(300))).rejects.toThrow(new ToolError(`Path too long: ${"n".repeat(300)}`));
    const deep = "d/".repeat(2100);
    await expect(workspace.resolve(deep)).rejects.toThrow(/^Path too long: d\/d\/.*… \(4200 characters\)$/);
  });

  test("relative() gives the form shown to the model", async () => {
    expect(workspace.relative(await workspace.resolve("src/a.ts"))).toBe("src/a.ts");
    expect(workspace.relative(root)).toBe(".");
  });

  test("a sibling folder whose name starts like the root is outside", async () => {
    await mkdir(`${root}-twin`, { recursive: true });
    await escapes(`${root}-twin/file`);
    await escapes("../root-twin/file");
  });
});
