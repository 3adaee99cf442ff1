/**
 * A plugin host: what a confined plugin runs in (started as host-program.ts). Loads the spec's plugins with the
 * loader the app uses in its own process, answers `ready` with their tools (or `load-failed`
 * with the loader's error), then runs each call's handler and answers with its result or
 * what it threw, until the app hangs up. The app starts it through the sandbox's launcher,
 * so everything here runs with the plugins' grants only. The protocol: protocol.ts. Not an API.
 *
 * Arguments arrive validated by the app (the same compiled TypeBox check as in its process);
 * a handler's bug is sent back as what it threw, which the app wraps in the same
 * `PluginError` as in its process.
 */
import { type AnyToolDefinition, errorResult, type Logger, type ToolResult, Workspace } from "@plugboard/core";
import { runHandler } from "@plugboard/core/internal";
import { PlugboardError } from "@plugboard/errors";
import { loadPlugin } from "@plugboard/loader/load-plugin";
import type { ResolvedPlugin } from "@plugboard/loader/resolve-plugin";
import { refusalOf } from "@plugboard/sandbox/refusal";
import { type AppMessage, concurrencyKind, encodeSchema, eachLine, type HostListing, type HostMessage, type HostSpec, protocolLine, type Thrown } from "./protocol.ts";
import { endOtherProcesses } from "@plugboard/core/process";
import { trace } from "@plugboard/core/trace";
import { protocolOffStdout, reapExited, undumpable } from "./own-process.ts";

/** Plugin messages go to stderr, which the app logs. */
const logger: Logger = {
  debug() {},
  info() {},
  warn: (message) => process.stderr.write(`warning: ${message}\n`),
};

/** One tool of the host, with the grants of its plugin. */
interface Served {
  readonly tool: AnyToolDefinition;
  readonly plugin: string;
  readonly grants: readonly string[];
}

async function host(spec: HostSpec, send: (message: HostMessage) => void, lines: Lines): Promise<void> {
  const workspace = await Workspace.open(spec.workspace);
  // Each plugin is loaded once, on its first use (the whole spec at once unless `lazy`).
  const loads = new Map<string, Promise<ReadonlyMap<string, Served>>>();
  const load = (resolved: ResolvedPlugin): Promise<ReadonlyMap<string, Served>> => {
    let loading = loads.get(resolved.manifest.name);
    if (loading === undefined) {
      const grants = resolved.entry.permissions;
      loading = loadPlugin(resolved, { workspace, logger }).then(
        ({ entries }) => new Map(entries.map(({ tool }) => [tool.name, { tool, plugin: resolved.manifest.name, grants }] as const)),
      );
      loads.set(resolved.manifest.name, loading);
    }
    return loading;
  };
  /** Which plugin provides each tool, by its manifest (the loader checks the code lists the same). */
  const owners = new Map(spec.plugins.flatMap((resolved) => resolved.manifest.tools.map(({ name }) => [name, resolved] as const)));
  const listing: HostListing["plugins"][number][] = [];
  if (spec.lazy !== true) {
    for (const resolved of spec.plugins) {
      const tools = [...(await load(resolved)).values()].map(({ tool }) => tool);
      listing.push({
        name: resolved.manifest.name,
        tools: tools.map((tool) => ({
          name: tool.name,
          description: tool.description,
          parameters: encodeSchema(tool.parameters),
          ...(tool.outputSchema === undefined ? {} : { outputSchema: encodeSchema(tool.outputSchema) }),
          concurrency: concurrencyKind(tool),
        })),
      });
    }
  }
  trace("host program: sends ready");
  send({ type: "ready", listing: { plugins: listing } });

  /** The tool a request names, its plugin loaded; a load failure is answered as the loader's error. */
  const served = async (message: Extract<AppMessage, { tool: string }>): Promise<Served | undefined> => {
    const resolved = owners.get(message.tool);
    const tool = resolved === undefined ? undefined : await load(resolved).then(
      (tools) => tools.get(message.tool),
      (error: unknown) => {
        if (!(error instanceof PlugboardError)) throw error;
        send({ type: "load-failed", id: message.id, code: error.code, message: error.message });
        return null;
      },
    );
    if (tool === undefined) send({ type: "thrown", id: message.id, error: { name: "Error", message: `this host has no tool ${message.tool}` } });
    return tool ?? undefined;
  };
  /** The calls received and not answered yet (their plugin perhaps still loading), each with its abort. */
  const running = new Map<number, AbortController>();
  const spawns = spec.plugins.some(({ entry }) => entry.permissions.includes("process.spawn"));
  const answer = async (message: Extract<AppMessage, { type: "call" }>, target: Served, controller: AbortController) => {
    let answered: HostMessage;
    trace(`host program: runs ${message.tool}`);
    try {
      const progress = message.progress === true ? (text: string) => send({ type: "progress", id: message.id, text }) : undefined;
      const ctx = { workspace, signal: controller.signal, callId: message.callId, logger, ...(message.results ? { results: message.results } : {}), ...(progress ? { progress } : {}) };
      const result: ToolResult = await runHandler(target.tool, message.args, ctx).catch((error: unknown) => {
        const refusal = refusalOf(error, target.plugin, target.grants, workspace.root);
        if (refusal === undefined) throw error;
        return errorResult(refusal);
      });
      answered = { type: "result", id: message.id, result };
    } catch (error) {
      answered = { type: "thrown", id: message.id, error: thrown(error) };
    } finally {
      running.delete(message.id);
      // Whatever a call started ends with it, before its answer leaves: once no call runs,
      // every other process of the namespace goes, and what has ended is reaped (a zombie
      // would count against the process limit; one killed now and not yet gone, the next time).
      if (spawns && running.size === 0) {
        reapExited();
        endOtherProcesses();
        reapExited();
      }
    }
    trace(`host program: ${message.tool} answered`);
    send(answered);
  };

  await lines.each((line) => {
    if (line === "") return;
    const message = JSON.parse(line) as AppMessage;
    if (message.type === "cancel") {
      running.get(message.id)?.abort();
      return;
    }
    // A call counts as running from its arrival: a cancel that comes while its plugin loads aborts it.
    const controller = new AbortController();
    if (message.type === "call") running.set(message.id, controller);
    void served(message).then((tool) => {
      if (message.type === "call") {
        if (tool !== undefined) return answer(message, tool, controller);
        running.delete(message.id);
        return;
      }
      if (tool === undefined) return;
      const { concurrency } = tool.tool;
      try {
        if (typeof concurrency !== "object") throw new TypeError(`${tool.tool.name} does not name what it writes`);
        send({ type: "written", id: message.id, key: concurrency.writes(message.args, workspace) });
      } catch (error) {
        send({ type: "thrown", id: message.id, error: thrown(error) });
      }
    });
  });
}

/** The host's stdin as lines: the first (the protocol's token), then each later one, kept until a handler takes them. */
interface Lines {
  /** The first line; undefined when stdin ends before it. */
  readonly first: Promise<string | undefined>;
  /** Hands every later line to `handler` (those that came before it first); settles when stdin ends. */
  each(handler: (line: string) => void): Promise<void>;
}

function stdinLines(): Lines {
  let resolveFirst: (line: string | undefined) => void = () => {};
  const first = new Promise<string | undefined>((resolve) => (resolveFirst = resolve));
  let seenFirst = false;
  let handler: ((line: string) => void) | undefined;
  const waiting: string[] = [];
  const ended = eachLine(Bun.stdin.stream(), (line) => {
    if (!seenFirst) {
      seenFirst = true;
      resolveFirst(line);
    } else if (handler === undefined) waiting.push(line);
    else handler(line);
  }).finally(() => resolveFirst(undefined));
  return {
    first,
    each: (given) => {
      handler = given;
      for (const line of waiting.splice(0)) given(line);
      return ended;
    },
  };
}

/** Sends a protocol message; `flushed` settles once what was sent is out. */
interface Sender {
  (message: HostMessage): void;
  flushed(): Promise<void>;
}

/**
 * Sends the protocol's lines in order, through a sink of Bun's own on the protocol's
 * descriptor (`protocolOffStdout`: what a plugin writes to stdout goes to stderr). Where that
 * cannot be made, on stdout itself, with what a plugin prints sent to stderr instead.
 */
function protocolSender(token: string): Sender {
  const protocol = protocolOffStdout();
  if (protocol === undefined) {
    const write = process.stdout.write.bind(process.stdout);
    console.log = console.error;
    console.info = console.error;
    console.debug = console.error;
    process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
    return Object.assign((message: HostMessage) => void write(protocolLine(token, message)), { flushed: () => Bun.sleep(0) });
  }
  const out = Bun.file(protocol).writer();
  const flush = async () => {
    try {
      await out.flush();
    } catch {
      // The app no longer reads: it is gone, and so is the one this host answered.
      process.exit(0);
    }
  };
  return Object.assign(
    (message: HostMessage) => {
      out.write(protocolLine(token, message));
      void flush();
    },
    { flushed: flush },
  );
}

/** What a handler threw, to rebuild on the app's side. */
function thrown(error: unknown): Thrown {
  if (error instanceof Error) return { name: error.name, message: error.message, ...(error.stack === undefined ? {} : { stack: error.stack }) };
  return { message: String(error) };
}

/**
 * Runs the host for the spec in `argument` (JSON) until the app hangs up, then exits 0; a
 * plugin that fails to load is answered `load-failed` (and the host exits 2).
 */
export async function runHost(argument: string | undefined): Promise<never> {
  trace("host program: loaded");
  // Before the token is read: no program a plugin starts may read it from this process's memory.
  undumpable();
  const spec = JSON.parse(argument ?? "{}") as HostSpec;
  const lines = stdinLines();
  const token = await lines.first;
  // The app hung up before it sent the token: there is no one to answer.
  if (token === undefined) process.exit(0);
  const send = protocolSender(token);
  try {
    await host(spec, send, lines);
    process.exit(0);
  } catch (error) {
    if (!(error instanceof PlugboardError)) throw error;
    send({ type: "load-failed", code: error.code, message: error.message });
    // Let the line reach the app before the process ends.
    await send.flushed();
    process.exit(2);
  }
}
