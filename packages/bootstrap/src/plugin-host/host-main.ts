/**
 * A plugin host: loads ONE plugin with the bootstrap's own loader into a runtime and serves
 * its tools over MCP on stdin/stdout until the app hangs up. The app starts it through the
 * sandbox's launcher, so everything here runs with the plugin's grants only. Not an API.
 */
import { type AnyToolDefinition, errorResult, type Logger, ToolError, Workspace } from "@plugboard/core";
import { ToolRegistry, ToolRuntime } from "@plugboard/core/runtime";
// The server side only: the package's index would also load the client, Ajv and Hono.
import { annotationsFor } from "@plugboard/mcp/serve";
import { serveStdio } from "@plugboard/mcp/serve-stdio";
import { PlugboardError } from "../errors.ts";
import { loadPlugin } from "../load-plugin.ts";
import { type HostSpec, hostErrorLine } from "./host-spec.ts";
import { lstatSync, readdirSync, readlinkSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { isWithin } from "@plugboard/sandbox/view";

/** Whether `path` lies outside `workspace`, itself or through a link in it that leads out. */
function leavesWorkspace(given: string, workspace: string): boolean {
  // A relative path in an error is the host's current folder's (the plugin's), not the workspace's.
  const path = resolve(given);
  if (!isWithin(path, workspace)) return true;
  for (let at = path; at !== workspace && isWithin(at, workspace); at = dirname(at)) {
    try {
      if (lstatSync(at).isSymbolicLink() && !isWithin(resolve(dirname(at), readlinkSync(at)), workspace)) return true;
    } catch {
      // Not there: look further up.
    }
  }
  return false;
}


/** Plugin messages go to stderr, which the app keeps for its error messages. */
const logger: Logger = {
  debug() {},
  info() {},
  warn: (message) => process.stderr.write(`warning: ${message}\n`),
};

async function host(spec: HostSpec): Promise<void> {
  const { resolved } = spec;
  const workspace = await Workspace.open(spec.workspace);
  const { entries } = await loadPlugin(resolved, { workspace, logger });
  const grants = resolved.entry.permissions;
  const answered = entries.map((entry) => ({ ...entry, tool: served(entry.tool, resolved.manifest.name, grants, workspace.root) }));
  const runtime = new ToolRuntime(new ToolRegistry(answered), { workspace, logger });
  // readOnlyHint carries a tool's "read-only" concurrency to the app, which runs such calls in parallel.
  const fromGrants = annotationsFor(grants);
  const readOnly = new Set(entries.filter(({ tool }) => tool.concurrency === "read-only").map(({ tool }) => tool.name));
  await serveStdio(runtime, { annotations: (name) => ({ ...fromGrants, readOnlyHint: fromGrants.readOnlyHint === true && readOnly.has(name) }) });
}

/**
 * Operating-system refusals: what the sandbox answers to an operation the grants do not
 * cover. Without `network` the host's empty network namespace also answers a connection
 * with an unreachable network or a refused connection; with it, those are the peer's answers.
 */
const REFUSALS = ["EACCES", "EPERM", "EROFS"];
const NETWORK_REFUSALS = ["ENETUNREACH", "ECONNREFUSED"];
/** A path outside the workspace is not in a host's view at all: it reads as missing. */
const OUTSIDE_REFUSALS = ["ENOENT", "ENOTDIR"];

/**
 * The tool as the host serves it: an exception (an operation the sandbox refused, or a
 * bug) becomes an `Error:` result naming the plugin, so the model reads what was refused
 * and the host keeps serving; with `process.spawn`, what a call started ends with it.
 */
function served(tool: AnyToolDefinition, plugin: string, grants: readonly string[], workspaceRoot: string): AnyToolDefinition {
  const refusals = new Set(grants.includes("network") ? REFUSALS : [...REFUSALS, ...NETWORK_REFUSALS]);
  const answering = answeringErrors(tool, plugin, grants.length === 0 ? "no permissions" : grants.join(", "), refusals, workspaceRoot);
  if (!grants.includes("process.spawn")) return answering;
  return {
    ...answering,
    handler: async (args, ctx) => {
      calls++;
      try {
        return await answering.handler(args, ctx);
      } finally {
        calls--;
        if (calls === 0) endStartedProcesses();
      }
    },
  };
}

/** Calls running in this host. */
let calls = 0;

/**
 * Whatever a call started ends with it: once no call runs, every other process of this
 * host's PID namespace (daemons, `setsid` and double forks included) is killed. Only as the
 * namespace's first process, where /proc lists nothing but this host's own descendants.
 */
function endStartedProcesses(): void {
  if (process.pid !== 1) return;
  for (const entry of readdirSync("/proc")) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid <= 1) continue;
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
}

/** The tool with a handler that turns an exception into an `Error:` result naming the plugin. */
function answeringErrors(tool: AnyToolDefinition, plugin: string, granted: string, refusals: ReadonlySet<string>, workspaceRoot: string): AnyToolDefinition {
  return {
    ...tool,
    handler: async (args, ctx) => {
      try {
        return await tool.handler(args, ctx);
      } catch (error) {
        if (error instanceof ToolError || !(error instanceof Error)) throw error;
        const code = Reflect.get(error, "code");
        if (typeof code === "string" && refusals.has(code)) {
          return errorResult(`Refused by the sandbox (${plugin} is granted ${granted}): ${error.message}`);
        }
        const path = Reflect.get(error, "path");
        if (typeof code === "string" && OUTSIDE_REFUSALS.includes(code) && typeof path === "string" && leavesWorkspace(path, workspaceRoot)) {
          return errorResult(`Refused by the sandbox (${plugin} is granted ${granted}): ${error.message} (outside the workspace a plugin sees only its own code, the system's files and private temporary folders)`);
        }
        return errorResult(`${plugin} failed in ${tool.name}: ${error.message}`);
      }
    },
  };
}

/**
 * Runs the host for the spec in `argument` (JSON) until the app hangs up, then exits: 0, or
 * 2 with the plugin's load error on stderr. The program of `bun host-main.ts SPEC`, and of an
 * app's bundle of this file (the CLI's `dist/host.js`).
 */
export async function runHost(argument: string | undefined): Promise<never> {
  // stdout carries the protocol: a plugin's console output goes to stderr instead.
  console.log = console.error;
  console.info = console.error;
  try {
    await host(JSON.parse(argument ?? "{}") as HostSpec);
    process.exit(0);
  } catch (error) {
    if (!(error instanceof PlugboardError)) throw error;
    process.stderr.write(hostErrorLine(error));
    process.exit(2);
  }
}

if (import.meta.main) await runHost(process.argv[2]);
