/**
 * A temp folder for testing that a tool never leaves its workspace: a workspace `root/`, a
 * sibling `outside/` holding a secret, and in `root/` the three symlinks that lead out of it.
 */
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The symlinks `escapeFixture` makes in `root/`, by what they escape through. */
export const ESCAPE_LINKS = {
  /** A symlinked file: `root/secret-link` → `outside/secret.txt`. */
  file: "secret-link",
  /** A symlinked folder: `root/outside-dir` → `outside/`. */
  folder: "outside-dir",
  /** A dangling link: `root/dangling-out` → `outside/planted.txt`, which does not exist. */
  dangling: "dangling-out",
} as const;

/**
 * The ways out of `root` the fixture offers, as `[how, path]` rows for `test.each`: a parent
 * climb to `outside/NAME`, the symlinked file, `NAME` through the symlinked folder, and the
 * dangling link. A tool must answer each with `Error: Path escapes workspace: PATH`.
 */
export function escapePaths(name = "secret.txt"): [how: string, path: string][] {
  return [
    ["a parent climb", `../outside/${name}`],
    ["a symlinked file", ESCAPE_LINKS.file],
    ["a symlinked parent folder", `${ESCAPE_LINKS.folder}/${name}`],
    ["a dangling symlink to a not-yet-existing file", ESCAPE_LINKS.dangling],
  ];
}

/** The folders of an escape fixture, all real paths (no symlink above them). */
export interface EscapeFixture extends AsyncDisposable {
  /** The temp folder that holds `root/` and `outside/`. */
  readonly base: string;
  /** The workspace: empty but for the `ESCAPE_LINKS`. */
  readonly root: string;
  /** Outside the workspace: holds only `secret.txt`, whose content is `secret`. */
  readonly outside: string;
  /** Removes the whole temp folder. */
  remove(): Promise<void>;
}

/**
 * Makes a fresh escape fixture under the system's temp folder (named after `prefix`).
 *
 * @example
 * await using fixture = await escapeFixture("plugboard-edit-file");
 * await call("edit_file", { path: ESCAPE_LINKS.file, old_text: "secret", new_text: "x" });
 */
export async function escapeFixture(prefix = "plugboard-escape"): Promise<EscapeFixture> {
  const base = await realpath(await mkdtemp(join(tmpdir(), `${prefix}-`)));
  const root = join(base, "root");
  const outside = join(base, "outside");
  await mkdir(root);
  await mkdir(outside);
  await writeFile(join(outside, "secret.txt"), "secret");
  await symlink(join(outside, "secret.txt"), join(root, ESCAPE_LINKS.file));
  await symlink(outside, join(root, ESCAPE_LINKS.folder));
  await symlink(join(outside, "planted.txt"), join(root, ESCAPE_LINKS.dangling));
  const remove = () => rm(base, { recursive: true, force: true });
  return { base, root, outside, remove, [Symbol.asyncDispose]: remove };
}
