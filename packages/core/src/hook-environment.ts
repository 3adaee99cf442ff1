/**
 * The environment a hook runs with: the app's, less what runtimes read as code or as where to
 * find code. A hook runs unconfined; its program is protected, and what it loads must be too.
 */

/** Variables a runtime, a shell or the dynamic linker reads as code to run or as where code is found. */
const CODE_VARIABLES = new Set([
  // Node (and Bun, which reads NODE_OPTIONS and NODE_PATH too).
  "NODE_OPTIONS",
  "NODE_PATH",
  "NODE_REPL_EXTERNAL_MODULE",
  // Python.
  "PYTHONPATH",
  "PYTHONSTARTUP",
  "PYTHONHOME",
  "PYTHONUSERBASE",
  "PYTHONPLATLIBDIR",
  "PYTHONINSPECT",
  "PYTHONBREAKPOINT",
  "PYTHONWARNINGS",
  // Shells.
  "BASH_ENV",
  "ENV",
  "SHELLOPTS",
  "BASHOPTS",
  "PS4",
  "PROMPT_COMMAND",
  // Ruby, Perl.
  "RUBYOPT",
  "RUBYLIB",
  "PERL5OPT",
  "PERL5LIB",
  "PERLLIB",
  // The dynamic linker.
  "LD_PRELOAD",
  "LD_LIBRARY_PATH",
  "LD_AUDIT",
]);

/** Prefixes of such variables: Bun's configuration and preloads, bash's exported functions, macOS's linker. */
const CODE_PREFIXES = ["BUN_", "BASH_FUNC_", "DYLD_"];

/**
 * `env` without the variables runtimes read as code (`NODE_OPTIONS`, `BUN_*`, `PYTHONPATH`,
 * `PYTHONSTARTUP`, `BASH_ENV`, `LD_PRELOAD`, …).
 *
 * @example hookEnvironment({ PATH: "/bin", NODE_OPTIONS: "--require ./x.js" }) // { PATH: "/bin" }
 */
export function hookEnvironment(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || CODE_VARIABLES.has(name) || CODE_PREFIXES.some((prefix) => name.startsWith(prefix))) continue;
    kept[name] = value;
  }
  return kept;
}
