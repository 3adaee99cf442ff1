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
import { readSync } from "node:fs";
import { type AnyToolDefinition, errorResult, type Logger, type ToolResult, Workspace } from "@plugboard/core";
import { runHandler } from "@plugboard/core/internal";
import { PlugboardError } from "@plugboard/errors";
import { importEntry, loadPlugin } from "@plugboard/loader/load-plugin";
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

/**
 * Serves the spec's plugins. The workspace, `opening` since the program was loaded, is waited
 * for by the first plugin loaded: a lazy host answers `ready` before it is open, so that a
 * fresh Bun's first asynchronous file operation (which starts its thread pool, milliseconds)
 * runs while the app sends the first call and its plugin is imported.
 */
async function host(spec: HostSpec, opening: Promise<Workspace>, send: (message: HostMessage) => void, lines: Lines): Promise<void> {
  // Each plugin is loaded once, on its first use (the whole spec at once unless `lazy`).
  const loads = new Map<string, Promise<ReadonlyMap<string, Served>>>();
  const load = (resolved: ResolvedPlugin): Promise<ReadonlyMap<string, Served>> => {
    let loading = loads.get(resolved.manifest.name);
    if (loading === undefined) {
      const grants = resolved.entry.permissions;
      // Its module is imported while the workspace opens (the loader's import then finds it loaded; a failure is the loader's to report).
      const imported = importEntry(resolved).catch(() => undefined);
      loading = Promise.all([opening, imported]).then(async ([workspace]) => {
        const { entries } = await loadPlugin(resolved, { workspace, logger });
        return new Map(entries.map(({ tool }) => [tool.name, { tool, plugin: resolved.manifest.name, grants }] as const));
      });
      loads.set(resolved.manifest.name, loading);
    }
    return loading;
  };
  /** Which plugin provides each tool, by its manifest (the loader checks the code lists the same). */
  const owners = new Map(spec.plugins.flatMap((resolved) => resolved.manifest.tools.map(({ name }) => [name, resolved] as const)));
  // The plugins of the tools about to be called start loading now (a failure is answered to their call).
  for (const tool of spec.lazy === true ? (spec.first ?? []) : []) {
    const resolved = owners.get(tool);
    if (resolved !== undefined) load(resolved).catch(() => undefined);
  }
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
      // Open: the tool's plugin was loaded with it.
      const workspace = await opening;
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
    void served(message).then(async (tool) => {
      if (message.type === "call") {
        if (tool !== undefined) return answer(message, tool, controller);
        running.delete(message.id);
        return;
      }
      if (tool === undefined) return;
      const { concurrency } = tool.tool;
      try {
        if (typeof concurrency !== "object") throw new TypeError(`${tool.tool.name} does not name what it writes`);
        send({ type: "written", id: message.id, key: concurrency.writes(message.args, await opening) });
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

/**
 * Stdin's first line, read now, byte by byte (so that nothing after it is taken from the
 * stream): the app writes the token before this program runs, and a fresh Bun's first
 * asynchronous read of stdin costs milliseconds of a confined call's start. `done` is false
 * when stdin would block first (its descriptor non-blocking and the token not written yet):
 * then `read` is what came of it so far, and the stream reads the rest.
 */
function firstLineNow(): { readonly done: boolean; readonly read: string | undefined } {
  const byte = new Uint8Array(1);
  const bytes: number[] = [];
  for (;;) {
    let count: number;
    try {
      count = readSync(0, byte);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EAGAIN") throw error;
      return { done: false, read: Buffer.from(bytes).toString() };
    }
    if (count === 0) return { done: true, read: bytes.length === 0 ? undefined : Buffer.from(bytes).toString() };
    if (byte[0] === 0x0a) return { done: true, read: Buffer.from(bytes).toString() };
    bytes.push(byte[0] ?? 0);
  }
}

function stdinLines(): Lines {
  const now = firstLineNow();
  let resolveFirst: (line: string | undefined) => void = () => {};
  const first = now.done ? Promise.resolve(now.read) : new Promise<string | undefined>((resolve) => (resolveFirst = resolve));
  /** What came of the first line before stdin would have blocked, which the stream's first line continues. */
  let partial = now.done ? undefined : now.read;
  let handler: ((line: string) => void) | undefined;
  const waiting: string[] = [];
  let ended: Promise<void> | undefined;
  /**
   * Stdin read as a stream from then on. Made when the first handler comes (a fresh Bun's
   * stream costs more than a millisecond, which the first plugin's import need not wait for:
   * the app sends no call before `ready`), or at once when the first line is still to come.
   */
  const reading = () =>
    (ended ??= eachLine(Bun.stdin.stream(), (line) => {
      if (partial !== undefined) {
        resolveFirst(partial + line);
        partial = undefined;
      } else if (handler === undefined) waiting.push(line);
      else handler(line);
    }).finally(() => resolveFirst(partial || undefined)));
  if (!now.done) reading();
  return {
    first,
    each: (given) => {
      handler = given;
      for (const line of waiting.splice(0)) given(line);
      return reading();
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
  // Opened while the token is read and the first call comes (see `host`); a failure is the first load's.
  const opening = Workspace.open(spec.workspace);
  opening.catch(() => undefined);
  const lines = stdinLines();
  const token = await lines.first;
  // The app hung up before it sent the token: there is no one to answer.
  if (token === undefined) process.exit(0);
  const send = protocolSender(token);
  try {
    await host(spec, opening, send, lines);
    process.exit(0);
  } catch (error) {
    if (!(error instanceof PlugboardError)) throw error;
    send({ type: "load-failed", code: error.code, message: error.message });
    // Let the line reach the app before the process ends.
    await send.flushed();
    process.exit(2);
  }
}
