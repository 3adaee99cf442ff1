/**
 * What `plugboard policy explain` says of the session's taint: the config's `policy.taint`,
 * where it is set, what it does, which tools' results are untrusted and which can send data
 * out (by each entry's grants, as the app decides them: bootstrap's `taintRoles`).
 */
import { DEFAULT_TAINT, type TaintMode } from "@plugboard/runtime";
import { inspectPlugin, type McpEntry, type PluginEntry, taintRoles } from "@plugboard/bootstrap";

/** A plugin as `inspectPlugin` finds it. */
type Inspected = Awaited<ReturnType<typeof inspectPlugin>>;
import { CLI_FOLDER } from "../load-app.ts";
import type { LoadedPolicy } from "./policy-load.ts";

const MEANING: Record<TaintMode, string> = {
  ask: "once a result from outside (an untrusted source) entered the conversation, a call that can send data out is asked about, even when allowed, --yes included",
  deny: "once a result from outside (an untrusted source) entered the conversation, a call that can send data out is refused",
  off: "not followed: calls that can send data out are judged by the rules alone",
};

/** The `taint:` lines of `policy explain` for a call of `tool`. */
export async function taintLines(policy: LoadedPolicy, tool: string): Promise<string[]> {
  const { config, file, source } = policy;
  const mode = config.policy.taint ?? DEFAULT_TAINT;
  const where = source.taint === undefined ? `the default, not set in ${file}` : `${file}:${source.taint.line}`;
  const untrusted: string[] = [];
  const sendOut: string[] = [];
  const roles: string[] = [];
  for (const [index, entry] of config.plugins.entries()) {
    const found = "mcp" in entry ? undefined : await inspectPlugin(entry, { index, configPath: config.configPath }, CLI_FOLDER).catch(() => undefined);
    const confined = found !== undefined && policy.confined.includes(found.manifest.name);
    const { untrusted: reads, sendOut: sends } = taintRoles(entry, confined);
    if (!reads && !sends) continue;
    const { names, tools } = described(entry, index, found, confined);
    if (reads) untrusted.push(names);
    if (sends) sendOut.push(names);
    if (tools.includes(tool)) roles.push(...(reads ? ["its results are untrusted"] : []), ...(sends ? ["it can send data out"] : []));
  }
  const first = `taint:    ${mode} (${where})`;
  if (untrusted.length === 0 && sendOut.length === 0) return [`${first}: nothing here reads the outside world or sends data out (no plugin is granted network or runs programs without the sandbox, no MCP server is mounted)`];
  const lines = [
    `${first}: ${MEANING[mode]}`,
    `          untrusted sources: ${untrusted.length === 0 ? "none" : untrusted.join("; ")}`,
    `          can send data out: ${sendOut.join("; ")}`,
  ];
  const own = [...new Set(roles)];
  if (own.length > 0) lines.push(`          ${tool}: ${own.join(", ")}`);
  return lines;
}

/** An entry as the lines name it, and its tools when known without starting it (none for a server). */
function described(entry: PluginEntry | McpEntry, index: number, found: Inspected | undefined, confined: boolean): { names: string; tools: readonly string[] } {
  if ("mcp" in entry) return { names: `every tool of MCP server ${entry.name}${entry.trust === "trusted" ? " (trusted)" : ""}`, tools: [] };
  const why = confined || entry.permissions.includes("network") ? "granted network" : "runs programs without the sandbox";
  if (found === undefined) return { names: `the tools of ${entry.package ?? entry.path ?? `plugins[${index}]`} (${why})`, tools: [] };
  const tools = found.manifest.tools.map(({ name }) => name);
  return { names: `${tools.join(", ")} (${found.manifest.name}, ${why})`, tools };
}
