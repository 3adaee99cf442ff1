/**
 * One tool call in a fresh `bun` process, to measure the memory it costs: the child's peak
 * resident size (VmHWM in /proc/self/status, so Linux only) is the call's plus a bare
 * runtime's, with nothing of the test runner in it.
 */
import { fileURLToPath } from "node:url";

const CHILD = fileURLToPath(new URL("./peak-rss-child.ts", import.meta.url));

/** The call to make in the child. */
export interface ChildToolCall {
  /** The workspace folder. */
  readonly root: string;
  /** The plugin's options, as a config entry would give them. @default {} */
  readonly options?: unknown;
  readonly tool: string;
  readonly args: Readonly<Record<string, unknown>>;
  /** Results over `maxBytes` saved to the workspace's `.plugboard/results/`, as an app does (core's `ResultsLimits`). @default none */
  readonly results?: { readonly maxBytes: number; readonly maxFileBytes: number };
  /**
   * Run the child as this user, so the test must run as root. It keeps one right of root's:
   * reading and listing any folder (CAP_DAC_READ_SEARCH), so it loads the code wherever the
   * checkout lives, however private; it writes only where the user may.
   */
  readonly user?: string;
  /** Words run before the child's command, which they must `exec`: `["prlimit", "--nofile=64"]`, `["unshare", "--mount", …]`. */
  readonly prefix?: readonly string[];
}

/**
 * What the call returned (core's `ToolResult`, by shape: this package depends on no other, so
 * that every package's tests may use it), and the child's peak resident size in KiB.
 */
export interface ToolCallPeak {
  readonly result: { readonly content: string; readonly isError: boolean };
  readonly peakKb: number;
}

/** What the child is given, as JSON in its first argument. */
export interface ChildInput extends ChildToolCall {
  /** The absolute path of the plugin's entry module (its default export is the plugin). */
  readonly entry: string;
}

/**
 * Runs `pluginRuntime(plugin, { root, options }).call(tool, args)` in a new `bun` process,
 * where `plugin` is the default export of the module at `entry` and `pluginRuntime` is from the
 * `@plugboard/testing` that module resolves (its devDependency). Throws when the child
 * writes to stderr, exits with another code than 0, or reports no peak (not Linux).
 *
 * @example
 * const { result, peakKb } = await peakRssOfToolCall(join(import.meta.dir, "index.ts"), { root, tool: "read_file", args: { path: "huge.txt", limit: 2 } });
 * expect(peakKb).toBeLessThan(90 * 1024);
 */
export async function peakRssOfToolCall(entry: string, call: ChildToolCall): Promise<ToolCallPeak> {
  const report = await toolCallInChild(entry, call);
  if (!(report.peakKb > 0)) throw new Error(`the child process reported no peak resident size (VmHWM): ${JSON.stringify(report).slice(0, 200)}`);
  return report;
}

/**
 * Runs `pluginRuntime(plugin, { root, options }).call(tool, args)` in a new `bun` process
 * (as `call.user` when given, after `call.prefix`), where `plugin` is the default export of the module at
 * `entry`. Throws when the child writes to stderr or exits with another code than 0.
 *
 * @example
 * const { result } = await toolCallInChild(entry, { root, user: "nobody", tool: "write_file", args: { path: "ro.txt", content: "x" } });
 */
export async function toolCallInChild(entry: string, call: ChildToolCall): Promise<ToolCallPeak> {
  const input: ChildInput = { entry, ...call };
  const command = [process.execPath, CHILD, JSON.stringify(input)];
  const asUser = call.user === undefined ? command : [...asReader(call.user), ...command];
  const child = Bun.spawn([...(call.prefix ?? []), ...asUser], { cwd: call.root, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  if (code !== 0 || stderr !== "") throw new Error(`the child process exited with code ${code}; its stderr:\n${stderr}`);
  return JSON.parse(stdout) as ToolCallPeak;
}

/** `setpriv` arguments that run a command as `user` (and its group), able to read anything and to write only as `user`. */
function asReader(user: string): string[] {
  const group = Bun.spawnSync(["id", "-g", user], { stdout: "pipe", stderr: "pipe" });
  if (group.exitCode !== 0) throw new Error(`no user ${user}: ${group.stderr.toString().trim()}`);
  const gid = group.stdout.toString().trim();
  const read = "+dac_read_search";
  return ["setpriv", `--reuid=${user}`, `--regid=${gid}`, "--clear-groups", `--inh-caps=${read}`, `--ambient-caps=${read}`, "--"];
}
