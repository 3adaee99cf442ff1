/**
 * The line a confined plugin's result ends with when what failed was the sandbox's refusal
 * (a connection without `network`, a write to a protected path or without `fs.write`, a
 * read of what is not in its view, a program run without `process.spawn`): it names the
 * plugin, what was refused and the grant or config key that would allow it; or, when one of
 * its limits refused (its process count, its memory, the size of a private temporary
 * folder), which limit and its `"limits"` key. Worked out in the app, which sees the real
 * disk, so that "not in the view" is told from "missing", and reads the kernel's counters of
 * the plugin's cgroups.
 */
import { statfsSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, relative, resolve } from "node:path";
import type { ToolResult } from "@plugboard/core";
import type { Controller } from "../limits/cgroups.ts";
import { formatSize, type Limits } from "../limits/limits.ts";
import { PRIVATE_FOLDERS, type ProtectedPath } from "../view/build-view.ts";
import type { LimitCounts } from "../limits/limit-tally.ts";
import { exists, isWithin } from "../view/view.ts";
import { type PathGrants, realOrSame, type ReservedFolder, reservedGrant } from "../granted-paths.ts";
import type { Permission } from "@plugboard/core";
import type { MissingGrant } from "@plugboard/core/internal";

/** Who ran confined, with which grants, and where. */
export interface RefusalContext {
  /** The plugin's name (an MCP server's: its entry's `name`). */
  readonly plugin: string;
  readonly grants: readonly Permission[];
  /** What its manifest asks for, optional permissions included; an MCP server: every permission. */
  readonly offered: readonly Permission[];
  /** The workspace root (a real path); relative paths in a result are read against it. */
  readonly workspace: string;
  readonly protect: readonly ProtectedPath[];
  readonly configPath: string;
  /** The hosts its `network` grant is narrowed to; none: any host (or no grant). */
  readonly network?: readonly string[];
  /** The hosts its egress proxy refused since a `Date.now()` time (see network-refusals.ts). */
  readonly refusedHosts?: (since: number) => readonly string[];
  /** The limits it runs with, and how often they have refused so far (see limit-tally.ts); none: no limits in force. */
  readonly limits?: { readonly values: Limits; readonly counts: LimitCounts };
  /** The paths its entry grants besides the workspace (`"read"`, `"write"`). @default none */
  readonly paths?: PathGrants;
  /** Plugboard's own folders (granted-paths.ts), never offered as a `"read"` grant. @default unknown: no `"read"` grant is offered */
  readonly reserved?: readonly ReservedFolder[];
  /**
   * Whether the protections of a writable workspace have been in force since the app started
   * (some confined process could write it then: its code protected, the span recorded for the
   * planted-files check, what calls leave behind looked for). Only then is `fs.write` offered
   * as a grant. @default false
   */
  readonly writableWorkspace?: boolean;
}

/** A sandbox's refusal as a result's last line says it, and the grant that would allow the call when its plugin may be given it. */
export interface HintedRefusal {
  readonly hint: string;
  /** Absent when no config could allow it (a protected path, a permission the manifest does not ask for) or it is not one grant. */
  readonly grant?: MissingGrant;
}

/** What a call's result became: ended with its refusal's hint, and the missing grant it names. */
export interface Explained {
  readonly result: ToolResult;
  readonly grant?: MissingGrant;
}

/** A hint's words, and the grant they name. */
interface Found {
  readonly text: string;
  readonly grant?: MissingGrant;
}

const PREFIX = "plugboard: refused by the sandbox: ";
const LIMIT_PREFIX = "plugboard: refused by a limit: ";

/**
 * The hint for the first refusal `result` shows whose grant is missing, or undefined.
 *
 * @example refusalHint({ content: "curl: (6) Could not resolve host: x", isError: false }, context)
 * // 'plugboard: refused by the sandbox: P has no network access; grant "network" to it in /w/plugboard.json to allow it'
 */
export function refusalHint(result: ToolResult, context: RefusalContext, refused: readonly string[] = []): string | undefined {
  return hintedRefusal(result, context, refused)?.hint;
}

/** The first refusal `result` shows, its hint and the grant that would allow the call, or undefined. */
export function hintedRefusal(result: ToolResult, context: RefusalContext, refused: readonly string[] = []): HintedRefusal | undefined {
  const found = refused.length > 0 ? proxyHint(refused, context) : firstFound(result, context);
  return found === undefined ? undefined : { hint: `${PREFIX}${found.text}`, ...(found.grant === undefined ? {} : { grant: found.grant }) };
}

function firstFound(result: ToolResult, context: RefusalContext): Found | undefined {
  for (const line of result.content.split("\n")) {
    const found = networkHint(line, context) ?? writeHint(line, context) ?? readHint(line, context) ?? spawnHint(line, context);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * Begins explaining one call, as it starts: the function returned ends the call's result with
 * its refusal's hint (a read-only tool's successful result is data, never read).
 */
export function explainingRefusals(context: RefusalContext, readOnly: boolean): (result: ToolResult) => ToolResult {
  const explain = explainingGrants(context, readOnly);
  return (result) => explain(result).result;
}

/**
 * `explainingRefusals`, which also tells the grant whose lack refused the call (never for a
 * limit's refusal, a protected path or what the manifest does not ask for).
 */
export function explainingGrants(context: RefusalContext, readOnly: boolean): (result: ToolResult) => Explained {
  // A refusal is dated in whole milliseconds: one in the call's first millisecond counts.
  const since = Date.now();
  const before = context.limits?.counts.refusals();
  return (result) => {
    if (readOnly && !result.isError) return { result };
    const limit = limitHint(result, context, before);
    const refusal: HintedRefusal | undefined = limit === undefined ? hintedRefusal(result, context, context.refusedHosts?.(since) ?? []) : { hint: limit };
    if (refusal === undefined) return { result };
    const ended = { ...result, content: `${result.content}\n${refusal.hint}` };
    return refusal.grant === undefined ? { result: ended } : { result: ended, grant: refusal.grant };
  };
}

/**
 * The hint for a limit that refused during the call: the kernel counted a refused task or a
 * process killed for memory in the plugin's cgroups since `before`; where `RLIMIT_NPROC`
 * bounds the processes (it counts nothing), the result says a fork or spawn was refused
 * (`EAGAIN`); or the result says a private memory file system is full (unless the workspace's
 * own disk is).
 */
export function limitHint(result: ToolResult, context: RefusalContext, before: Readonly<Record<Controller, number>> | undefined): string | undefined {
  const { limits } = context;
  if (limits === undefined) return undefined;
  const now = limits.counts.refusals();
  const raise = (key: keyof Limits) => `raise "limits.${key}" in ${context.configPath} to allow more`;
  const uncounted = !limits.counts.countsProcesses() && NO_PROCESS.test(result.content);
  if (uncounted || (before !== undefined && now.pids > before.pids)) {
    return `${LIMIT_PREFIX}${context.plugin} reached its limit of ${limits.values.processes} processes (threads count too), so starting another failed; ${raise("processes")}`;
  }
  if (before !== undefined && now.memory > before.memory) {
    return `${LIMIT_PREFIX}${context.plugin} used its limit of ${formatSize(limits.values.memory)} of memory, so the kernel ended a process of it; ${raise("memory")}`;
  }
  if (NO_SPACE.test(result.content) && !diskFull(context.workspace)) {
    return `${LIMIT_PREFIX}each private temporary folder of ${context.plugin} (/tmp, /var/tmp, /dev/shm, /run, its HOME) holds at most ${formatSize(limits.values.tmp)}; ${raise("tmp")}`;
  }
  return undefined;
}

const NO_SPACE = /no space left on device|\bENOSPC\b/i;
/** What bash, coreutils and Bun say when a fork or spawn is refused for the process count. */
const NO_PROCESS = /fork: (?:retry: )?resource temporarily unavailable|\bEAGAIN\b.*(?:spawn|fork)/i;

/** Whether the file system of `folder` has no room left (then a full disk, not a limit, refused). */
function diskFull(folder: string): boolean {
  try {
    return statfsSync(folder).bavail === 0;
  } catch {
    return false;
  }
}

/** What curl, wget, git, ssh, npm, pip, bash's /dev/tcp, Bun, Node and Python say when they cannot connect. */
const NETWORK_FAILURES = [
  /could not resolve host/i,
  /temporary failure in name resolution/i,
  /name or service not known/i,
  /unable to resolve host/i,
  /network is unreachable/i,
  /\bgetaddrinfo\b/i,
  /\b(?:ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ENETUNREACH|EHOSTUNREACH)\b/,
  /failed to connect/i,
  /couldn't connect to server/i,
  /immediate connect fail/i,
  /connection refused/i,
  /failed to establish a new connection/i,
  /urlopen error/i,
  /\bfetch failed\b/i,
  /\bsocket: operation not permitted/i,
  /\/dev\/(?:tcp|udp)\/\S+: operation not permitted/i,
  /connecting to \S+\.\.\. failed: operation not permitted/i,
  /\bconnect EPERM\b/,
  /\bEPERM: was there a typo in the url/i,
];
const READ_ONLY = /read-only file system|\bEROFS\b/i;
const BUSY = /device or resource busy|\bEBUSY\b/i;
const MISSING = /no such file or directory|\bENOENT\b/i;
const DENIED = /permission denied|\bEACCES\b/i;
/** Where a view has private, empty folders of its own (and HOME): the real ones are hidden. */
const HIDDEN = [...PRIVATE_FOLDERS, homedir()].filter((folder) => folder !== "/");

function networkHint(line: string, context: RefusalContext): Found | undefined {
  if (!NETWORK_FAILURES.some((failure) => failure.test(line))) return undefined;
  if (context.grants.includes("network")) {
    if (context.network === undefined) return undefined;
    return { text: `${context.plugin} reaches the network only through the app's proxy (HTTP_PROXY, HTTPS_PROXY), to the hosts of its "network" list in ${context.configPath}` };
  }
  return fix(context, "network", `${context.plugin} has no network access`, "to allow it");
}

/** The hint for connections the egress proxy refused during the call. */
function proxyHint(refused: readonly string[], context: RefusalContext): Found {
  const them = refused.length === 1 ? "it" : "them";
  return {
    text: `network to ${refused.join(", ")} is not granted to ${context.plugin}; add ${them} to its "network" list in ${context.configPath} to allow ${them}`,
    grant: { hosts: refused },
  };
}

function writeHint(line: string, context: RefusalContext): Found | undefined {
  const words = wordsNear(line, READ_ONLY);
  const paths = words.map((word) => resolve(context.workspace, word));
  // A protected file replaced by renaming over it (git's `config.lock` → `config`) fails as a busy mount point.
  const replaced = wordsNear(line, BUSY).map((word) => resolve(context.workspace, word));
  for (const path of [...paths, ...replaced]) {
    const rule = protectingRule(path, context.protect);
    if (rule !== undefined) return { text: `${context.plugin} may not write ${shown(path, context)}: it is a protected path (${unnested(rule)})` };
  }
  // A file that does not exist yet is taken only from a word that looks like a path (`new.txt`, not `Error`).
  const named = words.find((word) => !/\s/.test(word) && /[./]/.test(word) && exists(dirname(resolve(context.workspace, word))));
  const path = paths.find(exists) ?? (named === undefined ? undefined : resolve(context.workspace, named));
  if (path === undefined) return undefined;
  const what = `${context.plugin} may not write ${shown(path, context)}`;
  const readOnly = context.paths?.read?.find((granted) => isWithin(path, granted) && !context.paths?.write?.some((writable) => isWithin(path, writable)));
  if (readOnly !== undefined) return { text: `${what}: "read" grants ${readOnly} read-only; list it in "write" instead, in its entry in ${context.configPath}, to let it write there` };
  if (context.grants.includes("fs.write")) return undefined;
  if (isWithin(path, context.workspace)) return fix(context, "fs.write", what, "to let it write the workspace");
  if (HIDDEN.some((folder) => isWithin(path, folder))) return fix(context, "fs.write", what, "to let it write its private temporary folders");
  return undefined;
}

function readHint(line: string, context: RefusalContext): Found | undefined {
  const seesWorkspace = context.grants.includes("fs.read") || context.grants.includes("fs.write");
  for (const path of new Set(wordsNear(line, MISSING).map((word) => resolve(context.workspace, word)))) {
    if (isWithin(path, context.workspace)) {
      if (!seesWorkspace && exists(path)) return fix(context, "fs.read", `${context.plugin} cannot see ${shown(path, context)}`, "to let it read the workspace");
      continue;
    }
    // A missing file in a hidden folder that exists (a write to /tmp/x/new.txt) is refused as much as an existing one.
    const parent = dirname(path);
    if (exists(path) || (HIDDEN.some((folder) => parent !== folder && isWithin(parent, folder)) && exists(parent))) {
      const text = `${path} is outside what ${context.plugin} can see (its own code, the system's folders, the paths its entry grants and, with fs.read, the workspace); add "read": [${JSON.stringify(path)}] to its entry in ${context.configPath} to let it read it`;
      // The grant is of the real path, as checked now: a link the plugin points elsewhere later does not move it.
      const real = realOrSame(path);
      // Never Plugboard's own folders (its logins, its state), nor a folder holding them.
      const offered = context.reserved !== undefined && reservedGrant([real], context.reserved) === undefined;
      return offered ? { text, grant: { read: real } } : { text };
    }
  }
  return undefined;
}

function spawnHint(line: string, context: RefusalContext): Found | undefined {
  if (context.grants.includes("process.spawn")) return undefined;
  for (const name of wordsNear(line, DENIED)) {
    const program = name.includes("/") ? resolve(context.workspace, name) : Bun.which(name);
    if (program !== null && isProgram(program)) return fix(context, "process.spawn", `${context.plugin} may not run ${name}`, "to let it run programs");
  }
  return undefined;
}

/** `what` was refused for lack of `permission`: the config's grant, or nothing when the manifest does not ask for it. */
function fix(context: RefusalContext, permission: Permission, what: string, purpose: string): Found {
  if (!context.offered.includes(permission)) return { text: `${what}; its manifest does not ask for "${permission}", so no config can grant it` };
  const text = `${what}; grant "${permission}" to it in ${context.configPath} ${purpose}`;
  // A workspace no one could write at the start lacks the protections a writer needs: that grant waits for a new start.
  return permission === "fs.write" && context.writableWorkspace !== true ? { text } : { text, grant: { permission } };
}

/** The most specific protected path holding `path`, unless that is an exception (`.plugboard/results/`). */
function protectingRule(path: string, protect: readonly ProtectedPath[]): string | undefined {
  const holding = protect.filter((entry) => isWithin(path, entry.path)).sort((a, b) => b.path.length - a.path.length)[0];
  return holding === undefined || holding.writable === true ? undefined : holding.rule;
}

/** `.git/hooks/ (always protected)` as `.git/hooks/, always protected`, to sit in parentheses. */
function unnested(rule: string): string {
  return rule.replace(/^(.*) \((.*)\)$/, "$1, $2");
}

function shown(path: string, context: RefusalContext): string {
  return isWithin(path, context.workspace) && path !== context.workspace ? relative(context.workspace, path) : path;
}

/**
 * What the message may be about, most likely first: a quoted name after it (Node's
 * `EROFS: …, open '/x'`, Python's `…: 'x'`), a quoted name just before it (coreutils'
 * `cannot touch 'x': …`), the part before it (bash's `line 1: x: …`), that part's last word
 * (`could not lock config file .git/config: …`).
 */
function wordsNear(line: string, message: RegExp): string[] {
  const at = message.exec(line);
  if (at === null) return [];
  const after = line.slice(at.index + at[0].length);
  const before = line.slice(0, at.index).replace(/[\s:,]+$/, "");
  const part = before.slice(before.lastIndexOf(": ") + 1).trim();
  const words = [quoted(after)[0], quoted(part).at(-1), part, part.split(/\s+/).at(-1)];
  return words.filter((word): word is string => word !== undefined && word !== "");
}

function quoted(text: string): string[] {
  return [...text.matchAll(/['‘"`]([^'’"`]+)['’"`]/g)].map((match) => match[1] ?? "");
}

function isProgram(path: string): boolean {
  try {
    const stats = statSync(path);
    return stats.isFile() && (stats.mode & 0o111) !== 0;
  } catch {
    return false;
  }
}

