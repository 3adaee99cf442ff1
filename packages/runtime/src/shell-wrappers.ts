/**
 * Commands that run another command given as their arguments (`env X=1 git status`,
 * `nohup`, `xargs rm`): the policy judges the command they run. Each wrapper's options are
 * known exactly; one it does not know (or an option word built by an expansion) makes the
 * wrapped command unknown, since a mistaken guess would judge the wrong command.
 */
import { knownWord, type ShellWord } from "./shell-words.ts";

/** What a wrapper runs: the wrapped command's words, and whether it sets variables for it. */
export type Unwrapped =
  | { readonly kind: "runs"; readonly words: readonly ShellWord[]; readonly setsVariables: boolean }
  | { readonly kind: "unknown"; readonly reason: string }
  /** No command follows (`env` alone prints the environment): the wrapper is judged as itself. */
  | { readonly kind: "itself" };

interface WrapperSpec {
  /** Short options without an argument. */
  readonly flags: string;
  /** Short options that take one (attached `-n5` or next word `-n 5`). */
  readonly withArgument?: string;
  /** Long options (`--name` or `--name=value`): true when they take an argument. */
  readonly long?: Readonly<Record<string, boolean>>;
  /** `NAME=value` words before the command set its environment (env). */
  readonly assignments?: boolean;
  /** A first word the command needs before the wrapped one (timeout's duration). */
  readonly operand?: boolean;
  /** `-N` (a number) is an option (nice). */
  readonly numeric?: boolean;
  /** The wrapped command gets more arguments from elsewhere (xargs, from its input): judged with `…` after its words. */
  readonly appends?: boolean;
}

const WRAPPERS: Readonly<Record<string, WrapperSpec>> = {
  env: {
    flags: "i0v",
    withArgument: "uC",
    long: { "ignore-environment": false, null: false, debug: false, unset: true, chdir: true },
    assignments: true,
  },
  command: { flags: "pvV" },
  builtin: { flags: "" },
  exec: { flags: "cl", withArgument: "a" },
  nohup: { flags: "" },
  time: { flags: "p" },
  nice: { flags: "", withArgument: "n", long: { adjustment: true }, numeric: true },
  timeout: {
    flags: "v",
    withArgument: "sk",
    long: { "preserve-status": false, foreground: false, verbose: false, signal: true, "kill-after": true },
    operand: true,
  },
  xargs: {
    flags: "0prtx",
    withArgument: "adEILnPsJRS",
    long: { null: false, "no-run-if-empty": false, verbose: false, interactive: false, exit: false, "open-tty": false },
    appends: true,
  },
};

/** Whether `name` is a wrapper this module reads. */
export function isWrapper(name: string): boolean {
  return Object.hasOwn(WRAPPERS, name);
}

/** What the wrapper `name` runs given its arguments `args`. */
export function unwrap(name: string, args: readonly ShellWord[]): Unwrapped {
  const spec = WRAPPERS[name];
  if (spec === undefined) return { kind: "itself" };
  let index = 0;
  let setsVariables = false;
  const unknown = (word: ShellWord): Unwrapped => ({ kind: "unknown", reason: `\`${name}\` with \`${word.raw}\`, an option Plugboard does not read` });
  while (index < args.length) {
    const word = args[index] as ShellWord;
    const value = word.value;
    if (value === undefined) {
      // An expansion as an option or assignment could be anything; as the command, the caller judges it.
      if (word.raw.startsWith("-") || word.raw.includes("=")) return unknown(word);
      break;
    }
    if (value === "--") {
      index++;
      break;
    }
    if (spec.assignments && /^[A-Za-z_][A-Za-z0-9_]*=/.test(value)) {
      setsVariables = true;
      index++;
      continue;
    }
    if (!value.startsWith("-") || value === "-") break;
    const consumed = optionLength(spec, args, index);
    if (consumed === undefined) return unknown(word);
    index += consumed;
  }
  if (spec.operand) index++;
  const words = args.slice(index);
  if (words.length === 0) return { kind: "itself" };
  return { kind: "runs", words: spec.appends ? [...words, knownWord("…")] : words, setsVariables };
}

/** How many words the option at `index` takes (itself and its argument), or undefined for one the spec does not know. */
function optionLength(spec: WrapperSpec, args: readonly ShellWord[], index: number): number | undefined {
  const value = (args[index] as ShellWord).value ?? "";
  if (value.startsWith("--")) {
    const [longName = "", attached] = value.slice(2).split(/=(.*)/s, 2);
    const takes = spec.long?.[longName];
    if (takes === undefined) return undefined;
    return takes && attached === undefined ? 2 : 1;
  }
  if (spec.numeric && /^-\d+$/.test(value)) return 1;
  for (let at = 1; at < value.length; at++) {
    const letter = value.charAt(at);
    if (spec.withArgument?.includes(letter)) return at === value.length - 1 ? 2 : 1;
    if (!spec.flags.includes(letter)) return undefined;
  }
  return 1;
}
