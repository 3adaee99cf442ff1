/**
 * The protected paths of the hooks (see protected-paths.ts): what each hook runs, the folder
 * it runs in, and what it imports from the workspace.
 */
import { realpathSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { readRegularText } from "@plugboard/core/internal";
import type { ProtectedPath } from "../view/build-view.ts";
import { isWithin } from "../view/view.ts";

/** What protection reads of a hook (the runtime's `Hook` has these). */
export interface HookCode {
  /** The command as the config writes it, which names the hook in a rule. */
  readonly label: string;
  /** The program and its arguments, paths resolved. */
  readonly command: readonly string[];
  /** The file that is the hook's code (the script an interpreter runs, else the program); absent when the command names none. */
  readonly program?: string;
  /** The folder it runs in. */
  readonly cwd: string;
}

/** The hooks of an app (the runtime's `Hooks`), in config order. */
export interface HookLists {
  readonly before: readonly HookCode[];
  readonly after: readonly HookCode[];
}

/** As every rule of protected-paths.ts says it. */
const ALWAYS = "always protected";

/**
 * What a hook runs, which runs unconfined as the user: a plugin that could change it would
 * run its code outside the sandbox at the next call. Its program and each argument naming a
 * file; the folder of its program whole, where it runs (so nothing can be planted beside it
 * for it to load: a `bunfig.toml`, a Python module), unless that folder holds the workspace
 * (a hook in its top folder runs in an empty folder instead, and `check` warns); and, for a JavaScript or TypeScript program, the files it imports
 * that lie in the workspace (a package's whole folder).
 */
export function hookFiles(hooks: HookLists, workspace: string): ProtectedPath[] {
  const root = realpathSync(workspace);
  const phases = [...hooks.before.map((hook) => ({ phase: "before", hook })), ...hooks.after.map((hook) => ({ phase: "after", hook }))];
  return phases.flatMap(({ phase, hook }) => {
    const [program = "", ...args] = hook.command;
    const named = [...(program.includes("/") ? [program] : []), ...args.map((arg) => resolve(hook.cwd, arg))];
    const rule = `a file of the hook ${JSON.stringify(hook.label)} ("hooks.${phase}" in the config, ${ALWAYS})`;
    const code = hook.program === undefined || !isFile(hook.program) ? undefined : realpathSync(hook.program);
    const folder = code === undefined ? undefined : dirname(code);
    const whole = folder !== undefined && isWithin(folder, root) && !isWithin(root, folder);
    return [
      ...named.filter(isFile).map((path) => ({ path, rule })),
      ...(whole ? [{ path: folder, rule: `the folder of the hook ${JSON.stringify(hook.label)}'s program ("hooks.${phase}" in the config, ${ALWAYS})` }] : []),
      ...(code === undefined ? [] : importedFiles(code, root).map((path) => ({ path, rule: `code the hook ${JSON.stringify(hook.label)} imports ("hooks.${phase}" in the config, ${ALWAYS})` }))),
    ];
  });
}

const SCRIPT = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;
/** How many files of a hook's imports are followed: a hook is a small program. */
const MAX_IMPORTED_FILES = 500;

/**
 * The files `entry` imports, directly or not (through files outside the workspace too), that
 * lie in the workspace `root`, as Bun resolves them now (a package's folder whole, for one in a
 * `node_modules`).
 */
function importedFiles(entry: string, root: string): string[] {
  if (!SCRIPT.test(entry)) return [];
  const found = new Set<string>();
  const seen = new Set<string>([entry]);
  const queue = [entry];
  const transpiler = new Bun.Transpiler({ loader: "tsx" });
  for (let file = queue.shift(); file !== undefined && seen.size < MAX_IMPORTED_FILES; file = queue.shift()) {
    let imports: { path: string }[];
    try {
      imports = transpiler.scanImports(readRegularText(file));
    } catch {
      continue;
    }
    for (const { path } of imports) {
      let target: string;
      try {
        target = realpathSync(Bun.resolveSync(path, dirname(file)));
      } catch {
        continue;
      }
      if (seen.has(target)) continue;
      seen.add(target);
      const modules = target.lastIndexOf("/node_modules/");
      const inWorkspace = isWithin(target, root);
      // A package is taken whole; one outside the workspace is not followed: no plugin writes there.
      if (modules !== -1) {
        if (inWorkspace) found.add(packageFolder(target, target.slice(0, modules + "/node_modules".length)));
        continue;
      }
      if (inWorkspace) found.add(target);
      if (SCRIPT.test(target)) queue.push(target);
    }
  }
  return [...found];
}

/** The package folder in `modules` that holds `file` (`NAME` or `@scope/NAME`). */
function packageFolder(file: string, modules: string): string {
  const [first = "", second = ""] = file.slice(modules.length + 1).split("/");
  return join(modules, first.startsWith("@") ? join(first, second) : first);
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
