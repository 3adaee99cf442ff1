/**
 * What a confined call leaves behind that the person's own tools would run, and that the
 * sandbox could not keep read-only because it did not exist yet (nothing is created on the
 * person's disk to be protected): a new repository (`git init`, a `.git` file pointing
 * elsewhere), a new name in an existing repository's metadata (hooks/ where there were none,
 * `config.worktree`, `commondir`), a new `.vscode/`, `.envrc` or `.bashrc`. The workspace is
 * walked again after each call of a plugin that may write it (workspace-scan.ts) and what
 * appeared since the last walk is said to the person; later calls run in a view that keeps it
 * read-only.
 */
import { existsSync, renameSync } from "node:fs";
import { basename, join, relative } from "node:path";
import { readRegularText } from "@plugboard/core/internal";
import { trace } from "@plugboard/core/trace";
import { codeIn } from "./git-code.ts";
import { OTHER_TOOLS_FOLDERS, type WorkspaceScan, type WorkspaceWalker } from "./workspace-scan.ts";

/** One thing a call left behind. */
export interface Leftover {
  /** What it is: a new repository, a new name in an existing repository's metadata, a file other tools run. */
  readonly kind: "repository" | "git-metadata" | "other-tools";
  /** Its path relative to the workspace. */
  readonly path: string;
  /** What in it would run code: `hook pre-commit`, `core.fsmonitor`. */
  readonly runs: readonly string[];
  /** What a `commondir` names. */
  readonly pointsTo?: string;
  /** Where the app moved it (a `commondir` written into a repository that had none). */
  readonly movedTo?: string;
}

/** The workspace as the last walk found it, and the walk after each call. */
export class LeftoverWatch {
  readonly #workspace: string;
  readonly #walker: WorkspaceWalker;
  #seen: Seen | undefined;

  /**
   * Compares each walk with the one before, the first with `walker`'s first walk: the one
   * the protected paths make when the first host starts, before any call (the walker is
   * shared, so that each walk reads only what changed). Nothing is walked before a host starts:
   * an app that starts no host (`plugboard tools` from its listing cache) never walks.
   */
  constructor(workspace: string, walker: WorkspaceWalker) {
    this.#workspace = workspace;
    this.#walker = walker;
  }

  /**
   * What appeared since the last walk (or the start). A `commondir` written into a
   * repository that had none is moved aside: git never writes one there, and it would point
   * git's next command at another folder's config and hooks.
   */
  look(): Leftover[] {
    const first = this.#walker.first();
    const scan = this.#walker.scan();
    const before = this.#seen ?? seen(first ?? scan);
    this.#seen = seen(scan);
    const shown = (path: string) => relative(this.#workspace, path);
    const found: Leftover[] = [];
    for (const repository of scan.repositories) {
      const known = before.repositories.get(key(repository.path, repository.folder));
      if (known === undefined) {
        found.push({ kind: "repository", path: shown(repository.path), runs: codeIn(repository.path, repository.folder) });
        continue;
      }
      for (const name of repository.metadata.filter((name) => !known.has(name))) {
        const path = join(repository.path, name);
        if (name === "commondir") {
          const runs = codeIn(repository.path, true);
          const pointsTo = pointed(path);
          const movedTo = moveAside(path);
          found.push({ kind: "git-metadata", path: shown(path), runs, pointsTo, ...(movedTo === undefined ? {} : { movedTo: shown(movedTo) }) });
          continue;
        }
        found.push({ kind: "git-metadata", path: shown(path), runs: codeIn(repository.path, true) });
      }
    }
    for (const path of scan.otherTools) if (!before.otherTools.has(path)) found.push({ kind: "other-tools", path: shown(path), runs: [] });
    if (found.some(({ movedTo }) => movedTo !== undefined)) this.#seen = seen(this.#walker.scan());
    return found;
  }
}

/**
 * The line a result ends with when its call left something behind, naming each thing and
 * what in it runs code.
 *
 * @example leftoverLine("bash", [{ kind: "repository", path: "vendor/x/.git", runs: ["hook pre-commit"] }])
 * // "plugboard: bash created a git repository at vendor/x/.git, whose hook pre-commit would run code on your next git command there; plugboard keeps them read-only from the next call"
 */
export function leftoverLine(plugin: string, leftovers: readonly Leftover[]): string {
  return `plugboard: ${plugin} ${leftovers.map(described).join("; ")}`;
}

/** What the app does with what a call left behind: say it (the audit, the person's terminal) and protect it from the next call. */
export type LeftoverHandler = (call: { readonly plugin: string; readonly tool: string; readonly callId: string }, leftovers: readonly Leftover[], line: string) => void;

/**
 * What `call` left behind, looked for once it has ended (see `LeftoverWatch`): said through
 * `handle`, and the line its result ends with; undefined when it left nothing.
 */
export function reportLeftovers(watch: LeftoverWatch, handle: LeftoverHandler, call: Parameters<LeftoverHandler>[0]): string | undefined {
  const leftovers = watch.look();
  trace("call: leftovers looked for");
  if (leftovers.length === 0) return undefined;
  const line = leftoverLine(call.plugin, leftovers);
  handle(call, leftovers, line);
  return line;
}

function described(leftover: Leftover): string {
  const runs = listed(leftover.runs);
  switch (leftover.kind) {
    case "repository":
      return `created a git repository at ${leftover.path}, ${runs === "" ? "whose hooks and config would run" : `whose ${runs} would run`} code on your next git command there; plugboard keeps them read-only from the next call`;
    case "git-metadata":
      if (leftover.movedTo !== undefined) {
        return `wrote ${leftover.path} into a repository that had none: it points git at ${leftover.pointsTo ?? "another folder"} for its config and hooks${runs === "" ? "" : ` (${runs})`}, which would run code on your next git command there; plugboard moved it to ${leftover.movedTo}`;
      }
      return `wrote ${leftover.path} into a repository that had none${runs === "" ? "" : ` (now ${runs} would run code on your next git command there)`}; plugboard keeps it read-only from the next call`;
    case "other-tools":
      return `created ${leftover.path}${OTHER_TOOLS_FOLDERS.some((name) => basename(leftover.path) === name) ? "/" : ""}, which ${whoRuns(basename(leftover.path))}; plugboard keeps it read-only from the next call`;
  }
}

/** `a`, `a and b`, `a, b and c`. */
function listed(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}

/** Who runs a file of `OTHER_TOOLS_*` on their own. */
function whoRuns(name: string): string {
  if (name === ".vscode" || name === ".idea") return "your editor reads for tasks to run when the folder opens";
  if (name === ".mcp.json") return "an MCP client reads for servers to start";
  if (name === ".envrc") return "direnv runs when you enter the folder";
  if (name === ".gitconfig") return "git reads as your own config when this folder is your home";
  return "a shell runs at its start when this folder is your home";
}

/** What the file at `path` says, on one line (a `commondir`'s folder). */
function pointed(path: string): string | undefined {
  try {
    return readRegularText(path).trim().split("\n")[0];
  } catch {
    return undefined;
  }
}

/** `path` renamed to `path.plugboard-refused` (or `-2`, …); undefined when it cannot be. */
function moveAside(path: string): string | undefined {
  for (let n = 1; n < 100; n++) {
    const target = `${path}.plugboard-refused${n === 1 ? "" : `-${n}`}`;
    if (existsSync(target)) continue;
    try {
      renameSync(path, target);
      return target;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** A walk's findings, as sets to compare the next walk's with. */
interface Seen {
  readonly repositories: ReadonlyMap<string, ReadonlySet<string>>;
  readonly otherTools: ReadonlySet<string>;
}

function seen(scan: WorkspaceScan): Seen {
  return {
    repositories: new Map(scan.repositories.map(({ path, folder, metadata }) => [key(path, folder), new Set(metadata)] as const)),
    otherTools: new Set(scan.otherTools),
  };
}

function key(path: string, folder: boolean): string {
  return `${folder ? "folder" : "file"} ${path}`;
}

