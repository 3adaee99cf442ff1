/**
 * Pinned tools: the first time a mounted MCP server's tools (or a third-party plugin's) are
 * listed, their fingerprints go to `plugboard.lock.json` beside the config; later, a tool whose
 * description or input schema differs from its pin — or a tool the lock does not have — is
 * withheld from the model until the person accepts it (`plugboard plugin accept NAME`, or the
 * interactive prompt). A server cannot so change what a tool says it does behind the
 * person's back. Each description is read before it is pinned (description-scan.ts): one that
 * addresses the model is flagged with the reason, and is not trusted on first use either.
 */
import type { RegistryEntry } from "@plugboard/core/internal";
import { fingerprintOf, readLock, type ToolFingerprint, type ToolLock, writeLock } from "@plugboard/config/lock-file";
import type { CodeChange } from "./code-pins.ts";
import { scanTool } from "./description-scan.ts";

/** A plugin or MCP server whose tools are pinned, by its name in the config. */
export interface PinnedSource {
  readonly name: string;
  readonly entries: readonly RegistryEntry[];
}

/** A tool that differs from its pin. */
export interface ToolChange {
  /** The plugin or server (its name in the config). */
  readonly source: string;
  /** The tool's name as the model sees it. */
  readonly tool: string;
  /** What differs: `description`, `input schema`, both, or `new tool` (the lock has none). */
  readonly what: "description" | "input schema" | "description and input schema" | "new tool";
  /** The pin, when there is one. */
  readonly pinned?: ToolFingerprint;
  readonly now: ToolFingerprint;
  /** Why its description reads as addressed to the model (description-scan.ts); none when it reads clean. */
  readonly flags: readonly string[];
}

/**
 * What to do with changed tools (and plugins whose code changed, see code-pins.ts): accept
 * every change of one plugin or server (dropping its tools that are gone from the lock), or
 * of one tool (`plugin accept NAME`); ask about each (the interactive prompt); or withhold
 * them, the app saying so itself (`check`).
 */
export type ChangedTools =
  | { readonly accept: string }
  | { readonly ask: (change: ToolChange | CodeChange) => Promise<boolean> }
  | { readonly withhold: true };

/** What pinning decided. */
export interface Pinning {
  /** The lock file. */
  readonly lockPath: string;
  /** Changed tools not offered to the model. */
  readonly withheld: readonly ToolChange[];
  /** Changed tools accepted now (their new fingerprints pinned). */
  readonly accepted: readonly ToolChange[];
  /** Tools that were pinned and are gone, dropped from the lock by the accept. */
  readonly dropped: readonly { readonly source: string; readonly tool: string }[];
  /** The names of the pinned plugins and servers. */
  readonly sources: readonly string[];
}

/**
 * Compares `sources`' tools with the lock at `lockPath`, pins the tools of sources it has
 * never seen, applies `handling`, writes the lock when anything was pinned, and returns what
 * was decided. A malformed lock throws its `CONFIG_INVALID` error (when there is anything to pin).
 * The lock as written is trusted in the planted-file `record`, when given (see `writeLock`).
 * `names` are every tool of the app: a description naming one of another source is flagged.
 */
export async function pinTools(lockPath: string, sources: readonly PinnedSource[], handling?: ChangedTools, record?: string, names: readonly string[] = []): Promise<Pinning> {
  // Nothing pinned: the lock is not read (nor checked).
  if (sources.length === 0) return { lockPath, withheld: [], accepted: [], dropped: [], sources: [] };
  const lock = await readLock(lockPath);
  const tools: Record<string, Record<string, ToolFingerprint>> = Object.fromEntries(Object.entries(lock.tools).map(([name, pins]) => [name, { ...pins }]));
  let dirty = false;
  const withheld: ToolChange[] = [];
  const accepted: ToolChange[] = [];
  const dropped: { source: string; tool: string }[] = [];
  for (const { name, entries } of sources) {
    const own = new Set(entries.map(({ tool }) => tool.name));
    const others = new Set(names.filter((tool) => !own.has(tool)));
    const flagsOf = (tool: string) => {
      const entry = entries.find((candidate) => candidate.tool.name === tool);
      return entry === undefined ? [] : scanTool(entry.tool, others);
    };
    const current = Object.fromEntries(entries.map(({ tool }) => [tool.name, fingerprintOf(tool.description, tool.parameters)]));
    let pins = tools[name];
    if (pins === undefined) {
      // Trust on first use: what is listed the first time is what is pinned, but for a flagged description, asked about as a new tool.
      const trusted = Object.fromEntries(Object.entries(current).filter(([tool]) => flagsOf(tool).length === 0));
      tools[name] = trusted;
      dirty = true;
      if (Object.keys(trusted).length === entries.length) continue;
      pins = trusted;
    }
    const acceptsAll = handling !== undefined && "accept" in handling && handling.accept === name;
    if (acceptsAll) {
      for (const tool of Object.keys(pins)) if (current[tool] === undefined) dropped.push({ source: name, tool });
      if (dropped.some(({ source }) => source === name)) {
        tools[name] = Object.fromEntries(Object.entries(pins).filter(([tool]) => current[tool] !== undefined));
        dirty = true;
      }
    }
    for (const [tool, now] of Object.entries(current)) {
      const changed = changeOf(name, tool, pins[tool], now);
      if (changed === undefined) continue;
      const change = { ...changed, flags: flagsOf(tool) };
      const accept = acceptsAll || (await accepts(handling, change));
      if (!accept) {
        withheld.push(change);
        continue;
      }
      tools[name] = { ...tools[name], [tool]: now };
      accepted.push(change);
      dirty = true;
    }
  }
  if (dirty) await writeLock(lockPath, { ...lock, tools } satisfies ToolLock, record);
  return { lockPath, withheld, accepted, dropped, sources: sources.map(({ name }) => name) };
}

async function accepts(handling: ChangedTools | undefined, change: ToolChange): Promise<boolean> {
  if (handling === undefined || "withhold" in handling) return false;
  return "accept" in handling ? handling.accept === change.tool : handling.ask(change);
}

/** How `now` differs from `pinned`, or undefined when it does not. */
function changeOf(source: string, tool: string, pinned: ToolFingerprint | undefined, now: ToolFingerprint): Omit<ToolChange, "flags"> | undefined {
  if (pinned === undefined) return { source, tool, what: "new tool", now };
  const description = pinned.description !== now.description;
  const schema = pinned.schema !== now.schema;
  if (!description && !schema) return undefined;
  const what = description && schema ? "description and input schema" : description ? "description" : "input schema";
  return { source, tool, what, pinned, now };
}

/** The line that says a tool is withheld and how to accept it. */
export function withheldLine(change: ToolChange, lockPath: string): string {
  const which = change.what === "new tool" ? `${change.source} has a new tool ${change.tool}, not in ${lockPath}` : `the ${change.what} of ${change.source}'s tool ${change.tool} changed since ${lockPath} pinned it`;
  return `${which}: it is not offered to the model.${flaggedSentence(change)} Accept it if you trust the change: plugboard plugin accept ${change.source}`;
}

/** The line that says a changed tool was accepted (pinned as it is now), with what its description scan flagged. */
export function acceptedLine(change: ToolChange): string {
  return `Accepted ${change.source}'s tool ${change.tool} (${change.what}).${flaggedSentence(change)}`;
}

/** What the scan flagged in the change's description, as a sentence after a space; nothing when it reads clean. */
export function flaggedSentence(change: ToolChange): string {
  return change.flags.length === 0 ? "" : ` Its description is flagged: ${change.flags.join("; ")}.`;
}
