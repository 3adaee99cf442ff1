/**
 * Paths granted besides the workspace, tried with real confined processes: read and write
 * where granted and nowhere else, protected paths inside a writable grant kept read-only
 * (the attack, which unconfined succeeds), and the folders no grant may write.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Permission } from "@plugboard/core";
import { attempt as attemptIn, type Extra } from "../test/attempt.ts";
import { expandHome, reservedFolders, reservedGrant, type ReservedFolder } from "./granted-paths.ts";
import type { ProtectedPath } from "./view/build-view.ts";

let dir = "";
let workspace = "";
let reading = "";
let writing = "";

beforeAll(async () => {
  dir = realpathSync(await mkdtemp(join(tmpdir(), "plugboard-grants-")));
  workspace = join(dir, "workspace");
  reading = join(dir, "reading");
  writing = join(dir, "writing");
  for (const folder of [workspace, reading, join(writing, ".git/hooks")]) mkdirSync(folder, { recursive: true });
  writeFileSync(join(reading, "data.txt"), "granted to read");
  writeFileSync(join(dir, "secret.txt"), "not granted");
  writeFileSync(join(dir, "note.txt"), "a granted file");
  writeFileSync(join(writing, ".git/config"), "[core]\n");
  writeFileSync(join(dir, ".bashrc"), "# mine\n");
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const attempt = (grants: readonly Permission[] | "off", args: readonly string[], extra: Extra = {}) => attemptIn(workspace, grants, args, extra);

describe("read and write grants", () => {
  const paths = () => ({ read: [reading], write: [writing, join(dir, "note.txt")] });

  test("a read grant is readable, not writable; a write grant is both; what lies beside them is not there", async () => {
    const extra = { paths: paths() };
    expect(await attempt([], ["read", join(reading, "data.txt")], extra)).toBe("ok: granted to read");
    expect(await attempt([], ["write", join(reading, "data.txt")], extra)).toStartWith("refused: EROFS");
    expect(await attempt([], ["write", join(writing, "new.txt")], extra)).toBe(`ok: wrote ${join(writing, "new.txt")}`);
    expect(await attempt([], ["write", join(dir, "note.txt")], extra)).toBe(`ok: wrote ${join(dir, "note.txt")}`);
    expect(await attempt(["fs.read", "fs.write"], ["read", join(dir, "secret.txt")], extra)).toStartWith("refused: ENOENT");
    expect(await attempt("off", ["read", join(dir, "secret.txt")])).toBe("ok: not granted");
  });

  test("a path that does not exist is left out of the view, and nothing is made for it", async () => {
    const missing = join(dir, "missing");
    expect(await attempt([], ["write", join(missing, "x")], { paths: { write: [missing] } })).toStartWith("refused:");
    expect(existsSync(missing)).toBe(false);
  });

  test("the attack: protected paths in a write grant, and a granted file that is one, stay read-only; unconfined they are written", async () => {
    const protect: ProtectedPath[] = [
      { path: join(writing, ".git/config"), rule: ".git/config (always protected)" },
      { path: join(writing, ".git/hooks"), rule: ".git/hooks/ (always protected)" },
      { path: join(dir, ".bashrc"), rule: ".bashrc (other tools run it on their own, always protected)" },
    ];
    const extra = { paths: { write: [writing, join(dir, ".bashrc")] }, protect };
    for (const target of [join(writing, ".git/config"), join(writing, ".git/hooks/pre-commit"), join(dir, ".bashrc")]) {
      expect(await attempt([], ["write", target], extra)).toStartWith("refused: EROFS");
      expect(await attempt("off", ["write", target])).toBe(`ok: wrote ${target}`);
    }
    expect(await attempt([], ["rename", `${join(writing, ".git")}:${join(writing, ".git-moved")}`], extra)).toStartWith("refused: EBUSY");
    expect(await attempt([], ["write", join(writing, ".git/HEAD")], extra)).toBe(`ok: wrote ${join(writing, ".git/HEAD")}`);
  });
});

describe("the folders no write grant may touch", () => {
  const env = { HOME: "/home/me", XDG_CACHE_HOME: "/var/cache/me" };
  const reserved = reservedFolders(env, "/opt/plugboard");

  test("are the app's install and Plugboard's config, state and cache folders (XDG places first)", () => {
    expect(reserved.map(({ path }) => path)).toEqual(["/opt/plugboard", "/home/me/.config/plugboard", "/home/me/.local/state/plugboard", "/var/cache/me/plugboard"]);
  });

  test("a grant that is, holds or lies in one is refused; one beside them is not", () => {
    expect(reservedGrant(["/home/me/.config"], reserved)?.folder.what).toBe("Plugboard's config folder");
    expect(reservedGrant(["/home/me/.local/state/plugboard/sessions"], reserved)?.folder.what).toBe("Plugboard's state folder");
    expect(reservedGrant(["/opt"], reserved)?.folder.what).toBe("the app's install");
    expect(reservedGrant(["/home/me/.config/my-tool", "/var/cache/me/my-tool", "/home/me/notes"], reserved)).toBeUndefined();
  });

  test("the attack: a granted path that did not exist at start, made a link into Plugboard's config folder later, is refused when the process starts", async () => {
    const home = join(dir, "home");
    const config = join(home, ".config/plugboard");
    mkdirSync(config, { recursive: true });
    writeFileSync(join(config, "mcp-logins.json"), "a login");
    const own: ReservedFolder[] = reservedFolders({ HOME: home }, undefined);
    const later = join(writing, "later");
    // At start it is not there, so the config's check passes.
    expect(reservedGrant([later], own)).toBeUndefined();
    // A process granted the folder it lies in makes it a link into Plugboard's own folder.
    symlinkSync(config, later);
    const extra = { paths: { read: [later], reserved: own } };
    await expect(attempt([], ["read", join(later, "mcp-logins.json")], extra)).rejects.toThrow(`the granted path ${later} now leads to ${config}, in Plugboard's config folder`);
    // The twin without the check: the link puts the folder, and the login, in the view (at its real path).
    expect(await attempt([], ["read", join(config, "mcp-logins.json")], { paths: { read: [later] } })).toBe("ok: a login");
  });

  test("~ is the home folder", () => {
    expect([expandHome("~", "/home/me"), expandHome("~/notes", "/home/me"), expandHome("/opt/x", "/home/me")]).toEqual(["/home/me", "/home/me/notes", "/opt/x"]);
  });
});
