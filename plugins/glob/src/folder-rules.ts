/**
 * The rules of one folder's ignore files, prepared for speed: rules ending in `/` match only
 * folders, so files are tested against the others alone; and when none of those has a `/`,
 * a file's name decides by itself (git matches such a rule at any depth), which spares the
 * `ignore` package splitting every path and looking up each of its parents.
 */
import ignore, { type Ignore } from "ignore";

/** One folder's rules. */
export interface FolderRules {
  /** The folder the rules belong to, relative to the root (`""` for the root). */
  readonly folder: string;
  /** Every rule, for folders. */
  readonly all: Ignore;
  /** The rules that can match a file, or undefined when there are none. */
  readonly files: Ignore | undefined;
  /** Whether `files` is asked with a file's name alone (no rule of it has a `/`). */
  readonly byName: boolean;
  /**
   * With `byName`: endings one of which every name a rule can match has (`.log` for
   * `*.log`), so other names skip the rules; undefined when a rule ends in a wildcard.
   */
  readonly endings: readonly string[] | undefined;
}

/** Prepares the rules of `texts` (the folder's ignore files, in order of precedence). */
export function folderRules(folder: string, texts: readonly string[]): FolderRules {
  // One `add` per file: given an array, `ignore` takes each string as one rule. Names are
  // compared case-sensitively, as git does on Linux.
  const all = texts.reduce((rules, text) => rules.add(text), ignore({ ignorecase: false }));
  const fileLines = texts.flatMap((text) => text.split(/\r?\n/)).filter(isFileRule);
  if (fileLines.length === 0) return { folder, all, files: undefined, byName: true, endings: undefined };
  const byName = fileLines.every((line) => !ruleBody(line).includes("/"));
  const endings = fileLines.map((line) => literalEnding(ruleBody(line)));
  return {
    folder,
    all,
    files: ignore({ ignorecase: false }).add(fileLines),
    byName,
    endings: byName && endings.every((ending) => ending !== "") ? endings : undefined,
  };
}

/** The literal text a pattern ends with (`.log` of `*.log`); `""` when it ends in a wildcard or holds an escape. */
function literalEnding(pattern: string): string {
  const ending = pattern.slice(Math.max(pattern.lastIndexOf("*"), pattern.lastIndexOf("?"), pattern.lastIndexOf("]")) + 1);
  return ending.includes("\\") ? "" : ending;
}

function isFileRule(line: string): boolean {
  const trimmed = line.trimEnd();
  if (trimmed === "" || trimmed.startsWith("#")) return false;
  return !ruleBody(trimmed).endsWith("/");
}

/** The pattern of a rule line, without its negation. */
function ruleBody(line: string): string {
  const trimmed = line.trimEnd();
  return trimmed.startsWith("!") ? trimmed.slice(1) : trimmed;
}
