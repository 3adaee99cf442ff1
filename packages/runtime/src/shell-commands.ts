/**
 * A bash command line as the policy judges it: every simple command it would run, found
 * through pipelines, lists, subshells, groups, functions' bodies, command and process
 * substitutions, wrappers (`env`, `nohup`, `xargs`, …), `find -exec`, and nested shells
 * (`sh -c '…'`, `eval '…'`, `bash <<'EOF'`) whose script is written out in the line.
 * What cannot be known from the line (a command named by `$X`, `eval "$X"`, a shell reading
 * a pipe) is marked unknown; what an allowed command may do besides (write a file with a
 * redirection, set variables such as `PATH` for it) is marked with a caveat.
 */
import { basename, dirname } from "node:path";
import type { Node } from "web-tree-sitter";
import { parseBash } from "./shell-parser.ts";
import { knownWord, type ShellWord, wordOf, wordsText } from "./shell-words.ts";
import { isWrapper, unwrap } from "./shell-wrappers.ts";

/** One simple command of a line. */
export interface ShellCommand {
  /** Its words as rules match them (`git log --oneline`): quotes removed, a system path reduced to the name (`/usr/bin/git` → `git`). */
  readonly text: string;
  /** A form only a deny rule judges: the wrapper around a command (`env X=1 git log`), a path as written (`./rm x` as `rm x`). */
  readonly denyOnly?: true;
  /** Why no rule can allow it: what runs is not in the line. */
  readonly unknown?: string;
  /** What it does besides running: an allow by a command pattern alone does not cover it. */
  readonly caveats: readonly string[];
}

/** A line read whole, or why it could not be. */
export type ShellReading = { readonly readable: true; readonly commands: readonly ShellCommand[] } | { readonly readable: false; readonly reason: string };

/** Folders whose programs are judged by their name alone: `/usr/bin/git status` is `git status`. */
const SYSTEM_FOLDERS = new Set(["/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin", "/usr/local/sbin"]);
const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash"]);
/** Options of a shell before `-c`'s script that take no argument of their own. */
const SHELL_SCRIPT_OPTION = /^-[eilvxu]*c[eilvxu]*$/;
const FIND_RUNS = new Set(["-exec", "-execdir", "-ok", "-okdir"]);
const FIND_WRITES = new Set(["-delete", "-fprint", "-fprint0", "-fprintf", "-fls"]);
const HARMLESS_TARGETS = new Set(["/dev/null", "/dev/stdout", "/dev/stderr"]);
const WRITE_OPERATORS = new Set([">", ">>", ">|", "&>", "&>>", ">&"]);
/** Nested scripts (`sh -c "sh -c '…'"`) are read this deep; deeper is unknown. */
const MAX_DEPTH = 4;

/** Reads `line` into its simple commands. */
export async function readCommandLine(line: string): Promise<ShellReading> {
  const commands: ShellCommand[] = [];
  const pending: Script[] = [{ text: line, caveats: [], depth: 0 }];
  for (let script = pending.shift(); script !== undefined; script = pending.shift()) {
    const parsed = await parseBash(script.text);
    if (parsed === undefined) {
      if (script.depth === 0) return { readable: false, reason: "bash cannot read the line as written (a syntax error)" };
      commands.push({ text: script.text, unknown: "a nested script that is not valid bash", caveats: script.caveats });
      continue;
    }
    try {
      const walker = new Walker(commands, pending, script.depth);
      walker.walk(parsed.root, script.caveats, undefined);
    } finally {
      parsed.close();
    }
  }
  return { readable: true, commands };
}

interface Script {
  readonly text: string;
  readonly caveats: readonly string[];
  readonly depth: number;
}

/** The text a command reads as its standard input when the line writes it out (a quoted heredoc, a here-string); null when an expansion builds it. */
type Stdin = string | null | undefined;

class Walker {
  constructor(
    private readonly commands: ShellCommand[],
    private readonly pending: Script[],
    private readonly depth: number,
  ) {}

  walk(node: Node, caveats: readonly string[], stdin: Stdin): void {
    switch (node.type) {
      case "command":
        this.command(node, caveats, stdin);
        return;
      case "redirected_statement":
        this.redirected(node, caveats);
        return;
      case "declaration_command":
      case "unset_command":
        this.commands.push({ text: node.text, caveats: [...caveats, "sets shell variables"] });
        for (const child of node.namedChildren) {
          if (child?.type === "variable_assignment") this.children(child, caveats);
          else if (child) this.walk(child, caveats, undefined);
        }
        return;
      case "variable_assignment":
        this.commands.push({ text: node.text, caveats: [...caveats, "sets a shell variable"] });
        this.children(node, caveats);
        return;
      case "function_definition": {
        const body = node.childForFieldName("body");
        if (body) this.walk(body, caveats, undefined);
        return;
      }
      default:
        this.children(node, caveats);
        return;
    }
  }

  private children(node: Node, caveats: readonly string[]): void {
    for (const child of node.namedChildren) if (child) this.walk(child, caveats, undefined);
  }

  private redirected(node: Node, caveats: readonly string[]): void {
    const redirects = node.childrenForFieldName("redirect");
    const { added, stdin } = this.redirects(redirects, caveats);
    const body = node.childForFieldName("body");
    if (body) this.walk(body, [...caveats, ...added], stdin);
  }

  /** The caveats redirections add (a file written), the stdin they give, and the commands inside them (`>(…)`). */
  private redirects(redirects: readonly Node[], caveats: readonly string[]): { added: string[]; stdin: Stdin } {
    const added: string[] = [];
    let stdin: Stdin;
    for (const redirect of redirects) {
      this.children(redirect, caveats);
      if (redirect.type === "file_redirect") {
        const operator = redirect.children.find((child) => child !== null && !child.isNamed)?.type ?? "";
        const target = redirect.childForFieldName("destination");
        const value = target ? wordOf(target).value : undefined;
        const duplicate = operator === ">&" && value !== undefined && /^(\d+|-)$/.test(value);
        if (WRITE_OPERATORS.has(operator) && !duplicate && !(value !== undefined && HARMLESS_TARGETS.has(value))) {
          added.push(`writes ${target?.text ?? "a file"} (${operator})`);
        }
      } else if (redirect.type === "heredoc_redirect") {
        stdin = heredocText(redirect);
      } else if (redirect.type === "herestring_redirect") {
        const word = redirect.namedChildren.find((child) => child !== null);
        stdin = word ? (wordOf(word).value ?? null) : null;
      }
    }
    return { added, stdin };
  }

  private command(node: Node, outer: readonly string[], outerStdin: Stdin): void {
    const caveats = [...outer];
    const assignments = node.namedChildren.filter((child) => child?.type === "variable_assignment");
    if (assignments.length > 0) caveats.push(`sets ${assignments.map((a) => a?.text).join(" ")} for the command`);
    for (const assignment of assignments) if (assignment) this.children(assignment, outer);
    const { added, stdin } = this.redirects(node.childrenForFieldName("redirect"), outer);
    caveats.push(...added);
    const name = node.childForFieldName("name")?.namedChild(0);
    const args = node.childrenForFieldName("argument");
    for (const child of [name, ...args]) if (child) this.walk(child, outer, undefined);
    if (!name) return;
    this.judge([wordOf(name), ...args.map(wordOf)], caveats, stdin === undefined ? outerStdin : stdin);
  }

  /** Adds the command `words` runs, seeing through wrappers and nested scripts. */
  private judge(words: readonly ShellWord[], caveats: readonly string[], stdin: Stdin): void {
    const [nameWord, ...args] = words as [ShellWord, ...ShellWord[]];
    const text = wordsText(words);
    const written = nameWord.value;
    if (written === undefined || nameWord.expands) {
      this.commands.push({ text, unknown: `its name comes from \`${nameWord.raw}\``, caveats });
      return;
    }
    const name = basename(written);
    const named = wordsText([knownWord(name), ...args]);
    if (written.includes("/") && !SYSTEM_FOLDERS.has(dirname(written))) {
      // Not the program its name says: judged as written, and denied as the name too.
      this.commands.push({ text: named, denyOnly: true, caveats }, { text, caveats });
      return;
    }
    if (written.includes("/")) this.commands.push({ text, denyOnly: true, caveats });
    const unknown = this.runs(name, named, args, caveats, stdin);
    if (unknown !== undefined) this.commands.push({ text: named, unknown, caveats });
  }

  /** Adds what the command `name` runs; returns why that is unknown, if it is. */
  private runs(name: string, text: string, args: readonly ShellWord[], caveats: readonly string[], stdin: Stdin): string | undefined {
    if (isWrapper(name)) {
      const inner = unwrap(name, args);
      if (inner.kind === "unknown") return inner.reason;
      if (inner.kind === "itself") {
        this.commands.push({ text, caveats });
        return undefined;
      }
      this.commands.push({ text, denyOnly: true, caveats });
      this.judge(inner.words, inner.setsVariables ? [...caveats, `\`${name}\` sets variables for the command`] : caveats, stdin);
      return undefined;
    }
    if (SHELLS.has(name)) return this.shell(text, args, caveats, stdin);
    if (name === "eval") return this.script(text, args, caveats, "eval");
    if ((name === "source" || name === ".") && args[0]?.value === undefined) return `\`${name}\` of \`${args[0]?.raw ?? ""}\``;
    if (name === "find") this.find(text, args, caveats);
    else this.commands.push({ text, caveats });
    return undefined;
  }

  /** `bash -c 'script'`, `bash <<'EOF'`: the script's commands; `bash file.sh` is judged as written. */
  private shell(text: string, args: readonly ShellWord[], caveats: readonly string[], stdin: Stdin): string | undefined {
    const [first, second] = args;
    if (first?.value !== undefined && SHELL_SCRIPT_OPTION.test(first.value)) {
      return second === undefined ? "`-c` without a script" : this.script(text, [second], caveats, "-c");
    }
    const readsStdin = args.length === 0 || (args.length === 1 && (first?.value === "-s" || first?.value === "-"));
    if (!readsStdin) {
      this.commands.push({ text, caveats });
      return undefined;
    }
    if (typeof stdin !== "string") return "a shell reading commands that are not written in the line";
    this.commands.push({ text, denyOnly: true, caveats });
    this.nested(stdin, caveats);
    return undefined;
  }

  /** The script `parts` make (eval's words, `-c`'s string), read as a line of its own. */
  private script(text: string, parts: readonly ShellWord[], caveats: readonly string[], how: string): string | undefined {
    const values = parts.map((part) => part.value);
    if (values.some((value) => value === undefined)) return `${how} of \`${parts.map((part) => part.raw).join(" ")}\``;
    this.commands.push({ text, denyOnly: true, caveats });
    this.nested(values.join(" "), caveats);
    return undefined;
  }

  private nested(script: string, caveats: readonly string[]): void {
    if (this.depth + 1 > MAX_DEPTH) {
      this.commands.push({ text: script, unknown: "scripts nested deeper than Plugboard reads", caveats });
      return;
    }
    this.pending.push({ text: script, caveats, depth: this.depth + 1 });
  }

  /** `find` itself, and each command its `-exec`/`-ok` runs; `-delete` and `-fprint` write. */
  private find(text: string, args: readonly ShellWord[], caveats: readonly string[]): void {
    const writes = args.filter((arg) => arg.value !== undefined && FIND_WRITES.has(arg.value)).map((arg) => `find ${arg.value}`);
    const own = writes.length > 0 ? [...caveats, ...writes] : caveats;
    this.commands.push({ text, caveats: own });
    for (let index = 0; index < args.length; index++) {
      if (!FIND_RUNS.has(args[index]?.value ?? "")) continue;
      const end = args.findIndex((arg, at) => at > index && (arg.value === ";" || arg.value === "+"));
      const inner = args.slice(index + 1, end === -1 ? undefined : end);
      if (inner.length > 0) this.judge(inner, caveats, undefined);
      index = end === -1 ? args.length : end;
    }
  }
}

/**
 * The text a heredoc gives: as written when its delimiter is quoted (`<<'EOF'`) or it holds
 * no expansion and no backslash (which bash would process); otherwise null (built by bash).
 */
function heredocText(redirect: Node): Stdin {
  const start = redirect.namedChildren.find((child) => child?.type === "heredoc_start")?.text ?? "";
  const body = redirect.namedChildren.find((child) => child?.type === "heredoc_body");
  if (!body) return "";
  if (/['"\\]/.test(start)) return body.text;
  const plain = body.namedChildren.every((child) => child?.type === "heredoc_content") && !body.text.includes("\\");
  return plain ? body.text : null;
}
