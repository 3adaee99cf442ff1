/**
 * The bundle is a build output every user of the checkout can run (folders 0755, files 0644,
 * the executable entry 0755, whatever the builder's umask), and a start that must rebuild it
 * where it cannot write says what to do instead of dying with a stack.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmod, cp, mkdir, readdir, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { buildCli, CLI_DIR } from "../scripts/build.ts";
import { STACK_FRAME, cleanEnv, tempFolder } from "./helpers.ts";

let dir = "";
let remove = async () => {};
beforeAll(async () => {
  ({ dir, remove } = await tempFolder());
});
afterAll(() => remove());

describe("the CLI bundle", () => {
  test("is built readable by all: folders 0755, files 0644, the entry bin.js 0755, even under umask 077", async () => {
    const out = join(dir, "dist");
    const umask = process.umask(0o077);
    try {
      await buildCli(out);
    } finally {
      process.umask(umask);
    }
    const mode = async (path: string) => (await stat(path)).mode & 0o777;
    expect(await mode(out)).toBe(0o755);
    expect(await mode(join(out, "bin.js"))).toBe(0o755);
    const entries = (await readdir(out, { recursive: true, withFileTypes: true })).filter((entry) => entry.name !== "bin.js");
    expect(entries.map((entry) => entry.name)).toContain("sources.json");
    // The web chat's page is a folder of its own (chat-page/): 0755, its files 0644.
    expect(entries.some((entry) => entry.isDirectory())).toBe(true);
    const modes = await Promise.all(entries.map(async (entry) => [entry.name, entry.isDirectory(), await mode(join(entry.parentPath, entry.name))] as const));
    expect(modes.filter(([, folder, bits]) => bits !== (folder ? 0o755 : 0o644))).toEqual([]);
  }, 120_000);

  test("a stale bundle in a folder that cannot be written: one message with what to do, exit 2, no stack", async () => {
    // A copy of the CLI's folder (its scripts; its sources and node_modules linked) whose bundle was built by another Bun.
    const cli = join(dir, "cli");
    await mkdir(join(cli, "dist"), { recursive: true });
    await cp(join(CLI_DIR, "scripts"), join(cli, "scripts"), { recursive: true });
    await cp(join(CLI_DIR, "package.json"), join(cli, "package.json"));
    await symlink(join(CLI_DIR, "src"), join(cli, "src"));
    await symlink(join(CLI_DIR, "node_modules"), join(cli, "node_modules"));
    await writeFile(join(cli, "dist/sources.json"), JSON.stringify({ builtAt: 0, bun: "0.0.0", sources: [] }));
    await chmod(dir, 0o755);
    await chmod(cli, 0o555);
    // Root writes anywhere, whatever the mode (the tests run as root in CI): make the copy a
    // read-only mount for it instead, in a mount namespace of its own.
    const start = ["bun", join(cli, "scripts/start.ts"), "--version"];
    const readOnly = ["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"', cli];
    const child = Bun.spawn(process.getuid?.() === 0 ? [...readOnly, ...start] : start, {
      cwd: dir,
      env: cleanEnv({ HOME: dir }),
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    await chmod(cli, 0o755);
    expect({ code, stdout }).toEqual({ code: 2, stdout: "" });
    // EACCES for a user the mode stops, EROFS for root on the read-only mount.
    const refused = /cannot be written \((EACCES|EROFS)\)/.exec(stderr)?.[1] ?? "EACCES";
    expect(stderr).toBe(
      [
        "plugboard: building the CLI bundle (it was built by Bun 0.0.0)",
        `plugboard: the CLI bundle in ${cli}/dist must be rebuilt (it was built by Bun 0.0.0), but ${cli} cannot be written (${refused}).`,
        `Rebuild it as a user who can write there (bun run --cwd ${cli} build), or run the CLI from its sources: bun ${cli}/src/main.ts`,
        "",
      ].join("\n"),
    );
    expect(stderr).not.toContain(STACK_FRAME);
  }, 60_000);
});
