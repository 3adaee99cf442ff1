/**
 * The app's side of confined plugins: their host process, started through the sandbox's
 * launcher with their grants, spoken to over the host protocol (protocol.ts). When the
 * listing cache knows the host's tools, nothing starts until the first call (or `warm`).
 * A host that dies fails the calls in flight with an `Error:` result and starts again on
 * the next call; hosts end with the app, however it ends. Its tools are offered as a
 * `ToolSource` by confined-source.ts.
 */
import { existsSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { errorResult, type Logger, type ToolContext, type ToolResult } from "@plugboard/core";
import { type CloseOptions, lazilySync, visible } from "@plugboard/core/internal";
import { killGroup, killGroupOnExit, settlesWithin } from "@plugboard/core/process";
import { TRACE_PREFIX, trace, tracing } from "@plugboard/core/trace";
import { PlugboardError } from "@plugboard/errors";
import type { ResolvedPlugin } from "@plugboard/loader/resolve-plugin";
import type { EgressRecord, Mechanism, ProtectedPath } from "@plugboard/sandbox";
import { type ConfinedHost, confinedSource, type HostConnection, type ResultNotes } from "./confined-source.ts";
import { ListingCache } from "./listing-cache.ts";
import { LimitTally } from "@plugboard/sandbox/limit-tally";
import { type HostPrograms, SHIPPED_PROGRAMS } from "./shipped-programs.ts";
import { type HostAhead, type HostChild, spawnStep } from "./ahead.ts";
import { type AppMessage, eachLine, type HostListing, type HostMessage, type HostSpec, parseHostMessage, protocolLine, type Thrown } from "./protocol.ts";

/** How long a closed host's pipes may take to close once it is killed. */
const CLOSE_GRACE_MS = 1000;
/** Lines of a host's stderr kept for the message of a host that fails. */
const STDERR_TAIL = 20;

/** Where a host's listing is kept between runs, and whether to use what is kept. */
export interface HostListingCache {
  /** The cache folder (`listingCacheFolder`); none: always start and list. */
  readonly cacheFolder: string | undefined;
  /** Start and list even when a listing is kept (and keep the new one). */
  readonly fresh: boolean;
}

export type { ConfinedHost } from "./confined-source.ts";

/** Where hosts run and report, how their listings are cached, and what their results end with (see confined-source.ts). */
export interface HostContext extends ResultNotes {
  readonly logger: Logger;
  readonly listing?: HostListingCache;
  /** The paths inside the workspace no host may write, as they are when a host starts (see protected-paths.ts). @default none */
  readonly protect?: () => readonly ProtectedPath[];
  /** Told of each connection a host narrowed to a `"network"` list asks its egress proxy for (the audit log). @default none */
  readonly onConnection?: (record: EgressRecord) => void;
  /**
   * The programs hosts start with, shipped with the app (`shippedPrograms`: the bundled
   * CLI's). @default the bundles kept in the listing cache's folder (program.ts), built when
   * the first host starts
   */
  readonly programs?: HostPrograms;
  /** A confining step the app started ahead, which the first host it fits takes (ahead.ts). @default none: each host spawns its own */
  readonly ahead?: HostAhead;
  /**
   * Told when a host ended before it was ready with `unshare`'s own words on its stderr: the
   * namespaces the sandbox found working could not be made (the app forgets that they work). @default none
   */
  readonly namespacesRefused?: () => void;
}

/**
 * The host of `group` (plugins with the same grants), confined by `mechanism`. When the
 * listing cache holds its tools for unchanged plugins (see listing-cache.ts), nothing starts
 * now: the host starts on the first call. Otherwise it starts and lists its tools here, and
 * the listing is kept. With `warm` (the group's tools about to be called), a host mounted
 * from the cache starts at once, in the background, and loads their plugins first. Throws a plugin's load error (the loader's `PlugboardError`, as in the
 * app's process) or `PLUGIN_HOST` when the host fails otherwise.
 */
export async function startConfinedHost(
  group: readonly ResolvedPlugin[],
  mechanism: Extract<Mechanism, { available: true }>,
  context: HostContext,
  options: { readonly warm?: readonly string[] } = {},
): Promise<ConfinedHost> {
  const cache = context.listing?.cacheFolder === undefined ? undefined : listingCache(context.listing.cacheFolder, group, mechanism, context.workspace, context.logger);
  const kept = context.listing?.fresh === true ? undefined : cache?.read();
  // Known tools: the host need not list them, and loads each plugin on its first call.
  const warm = options.warm ?? [];
  const host = new HostProcess(group, mechanism, context, kept !== undefined, warm);
  if (kept !== undefined) {
    const deferred = confinedSource(group, kept, host, context);
    // Started at once, before the other hosts are looked at: a call is about to come.
    if (warm.length > 0) deferred.warm();
    return deferred;
  }
  const listing = await host.start();
  cache?.write(listing);
  return confinedSource(group, listing, host, context);
}

/** The listing cache's entry of `group`'s host (exported for tests). */
export function listingCache(
  folder: string,
  group: readonly ResolvedPlugin[],
  mechanism: Extract<Mechanism, { available: true }>,
  workspace: string,
  logger: Logger,
): ListingCache | undefined {
  return ListingCache.of(folder, group, { workspace, mechanism: mechanism.description }, logger);
}

/**
 * What starting a host takes: its programs (shipped with the app, or found or built once per
 * cache folder and app), the sandbox's launcher and the egress channel. Loaded when the first
 * host starts: an app that starts none (`plugboard tools` mounting from the listing cache) never loads them.
 */
interface Starter {
  /** The host's program (at its real path when it is a bundle) and the confining step's bundle. */
  readonly programs: HostPrograms;
  /**
   * The host program's own code in every host's view: the shipped program and its bytecode
   * (files at their real paths, nothing else of the app's folder), or the folder of the bundle
   * kept in the cache (bound whole: another start may write a new build over its file), or the
   * hosts package's folder when it runs from its sources.
   */
  readonly hostCode: { readonly folders: readonly string[]; readonly files: readonly string[] };
  /** This package's folder. */
  readonly hostsFolder: string;
  readonly confineAhead: typeof import("@plugboard/sandbox/launcher").confineAhead;
  readonly openEgress: typeof import("@plugboard/sandbox/egress").openEgress;
}

/** Found once per app and place: the shipped host program, or the cache folder whose bundles it is. */
const startersByKey = new Map<string | undefined, Promise<Starter>>();
function starterOf(context: HostContext): Promise<Starter> {
  const key = context.programs?.host ?? context.listing?.cacheFolder;
  let found = startersByKey.get(key);
  if (found === undefined) {
    found = loadStarter(context);
    startersByKey.set(key, found);
  }
  return found;
}

async function loadStarter({ programs: shipped, listing, logger }: HostContext): Promise<Starter> {
  // Required, not imported: a host about to be called (`warm`) is spawned as soon as its programs are found, not after the app's next stage.
  const program = lazilySync("the plugin hosts' programs", () => require("./program.ts") as typeof import("./program.ts"));
  const { confineAhead } = lazilySync("the sandbox's launcher", () => require("@plugboard/sandbox/launcher") as typeof import("@plugboard/sandbox/launcher"));
  const { openEgress } = lazilySync("the egress channel", () => require("@plugboard/sandbox/egress") as typeof import("@plugboard/sandbox/egress"));
  const common = { hostsFolder: program.HOSTS_FOLDER, confineAhead, openEgress };
  if (shipped === undefined) {
    const programs = await program.hostPrograms(listing?.cacheFolder, logger);
    const folder = programs.host === program.HOST_SOURCE ? program.HOSTS_FOLDER : dirname(programs.host);
    return { programs, hostCode: { folders: [folder], files: [] }, ...common };
  }
  // A shipped bundle, the compiler it requires from beside it, and their bytecode are all of the host's own code a view needs (not the app's folder around them).
  const host = realpathSync(shipped.host);
  const compiler = join(dirname(host), SHIPPED_PROGRAMS.compiler);
  const files = [host, `${host}.jsc`, compiler, `${compiler}.jsc`].filter((file) => existsSync(file)).map((file) => realpathSync(file));
  return { programs: { ...shipped, host }, hostCode: { folders: [], files }, ...common };
}

/** A running host, as the app sees it. */
interface Running {
  readonly process: HostChild;
  readonly ready: Promise<HostListing>;
  /** Calls and `writes` requests waiting for their answer, by id. */
  readonly waiting: Map<number, (message: HostMessage | undefined) => void>;
  /** Where the output of calls in flight goes as it comes (`ToolContext.progress`), by id. */
  readonly progress: Map<number, (text: string) => void>;
  /** Settles once the host has exited and its pipes have closed (so nothing of its namespace is left). */
  readonly ended: Promise<void>;
  /** Set when the host wrote a protocol line the app could not read: it was ended for it. */
  brokeProtocol: boolean;
}

class HostProcess implements HostConnection {
  readonly #group: readonly ResolvedPlugin[];
  readonly #mechanism: Extract<Mechanism, { available: true }>;
  readonly #context: HostContext;
  /** A start in progress: the programs being found (or built), then the process spawned. */
  #starting: Promise<Running> | undefined;
  /** Whether the app knows the tools already (`HostSpec.lazy`). */
  readonly #lazy: boolean;
  /** The tools about to be called when the host first starts (`HostSpec.first`). */
  readonly #first: readonly string[];
  readonly names: string;
  #running: Running | undefined;
  #started = false;
  #closed = false;
  #nextId = 1;
  #protect: readonly ProtectedPath[] = [];
  #warned = false;
  /** The view no longer protects all it should: start a new host when none of this one's calls is in flight. */
  #stale = false;
  readonly #stderr: string[] = [];
  readonly limits = new LimitTally();

  constructor(group: readonly ResolvedPlugin[], mechanism: Extract<Mechanism, { available: true }>, context: HostContext, lazy: boolean, first: readonly string[] = []) {
    this.#lazy = lazy;
    this.#first = first;
    this.#group = group;
    this.#mechanism = mechanism;
    this.#context = context;
    this.names = group.map(({ manifest }) => manifest.name).join(", ");
  }

  /** Starts the host and waits for its listing; throws the plugin's load error, or `PLUGIN_HOST`. */
  async start(): Promise<HostListing> {
    return await (await this.#runningOrStarted()).ready;
  }

  /** Gets ready for a first call: starts the host in the background unless it runs. */
  warm(): void {
    if (this.#closed || this.#running !== undefined) return;
    this.#ready().catch(() => undefined);
  }

  protected(): readonly ProtectedPath[] {
    return this.#protect;
  }

  refresh(): void {
    this.#stale = this.#running !== undefined;
  }

  alone(plugin: ResolvedPlugin): HostConnection {
    return new HostProcess([plugin], this.#mechanism, this.#context, true);
  }

  close(options?: CloseOptions): Promise<void> {
    return this.#close(options?.wait !== false);
  }

  async call(plugin: string, tool: string, args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
    if (this.#closed) return errorResult(`${plugin} has been closed`);
    await this.#endIfStale();
    const restarting = this.#started;
    let running: Running;
    try {
      running = await this.#ready();
    } catch (error) {
      // The plugin's load error (its first line), or why the host did not start.
      const reason = error instanceof Error ? (error.message.split("\n")[0] ?? "") : String(error);
      return errorResult(restarting ? `${plugin} could not be started again: ${reason}` : reason);
    }
    const id = this.#nextId++;
    trace("call: sent to the host");
    if (ctx.progress !== undefined) running.progress.set(id, ctx.progress);
    const answered = this.#ask(running, { type: "call", id, tool, args, callId: ctx.callId, ...(ctx.results ? { results: ctx.results } : {}), ...(ctx.progress ? { progress: true } : {}) });
    const cancel = () => this.#send(running, { type: "cancel", id });
    ctx.signal.addEventListener("abort", cancel, { once: true });
    if (ctx.signal.aborted) cancel();
    try {
      const answer = await answered;
      trace("call: the host answered");
      if (answer === undefined) return errorResult(`${plugin} stopped while running ${tool} (${this.#ending(running)}); it starts again on the next call`);
      if (answer.type === "result") return answer.result;
      if (answer.type === "thrown") throw rebuilt(answer.error);
      // A lazy host's plugin that failed to load: what a host that failed to start says.
      if (answer.type === "load-failed") return errorResult(answer.message.split("\n")[0] ?? "");
      throw new Error(`${plugin}'s host answered a call with ${answer.type}`);
    } finally {
      running.progress.delete(id);
      ctx.signal.removeEventListener("abort", cancel);
    }
  }

  async writes(tool: string, args: Record<string, unknown>): Promise<string> {
    const running = await this.#ready();
    const answer = await this.#ask(running, { type: "writes", id: this.#nextId++, tool, args });
    if (answer === undefined) throw new Error(`the host stopped (${this.#ending(running)})`);
    if (answer.type === "written") return answer.key;
    if (answer.type === "thrown") throw rebuilt(answer.error);
    if (answer.type === "load-failed") throw new PlugboardError(answer.code, answer.message);
    throw new Error(`the host answered a writes request with ${answer.type}`);
  }

  #ask(running: Running, message: Extract<AppMessage, { id: number }>): Promise<HostMessage | undefined> {
    return new Promise((resolve) => {
      running.waiting.set(message.id, resolve);
      this.#send(running, message);
    });
  }

  #send(running: Running, message: AppMessage): void {
    try {
      running.process.stdin.write(protocolLine("", message));
      running.process.stdin.flush();
    } catch {
      // The host is gone: its exit answers what waits.
    }
  }

  /** Ends a stale host that runs no call, so that the next call starts one with a fresh view. */
  async #endIfStale(): Promise<void> {
    const running = this.#running;
    if (!this.#stale || running === undefined || running.waiting.size > 0) return;
    this.#stale = false;
    this.#running = undefined;
    this.#context.logger.info(`the plugin host of ${this.names} starts again to protect what a call left behind`);
    killGroup(running.process.pid);
    await settlesWithin(running.ended, CLOSE_GRACE_MS);
  }

  /** The running host, or one started now (`restarting` it when one ran before). */
  #ready(): Promise<Running> {
    return this.#runningOrStarted().then((running) => running.ready.then(() => running));
  }

  /**
   * The running host, or one started now. Its programs are found (or built) only here, when a
   * host first starts: an app that starts none (`plugboard tools`) never looks at them.
   */
  #runningOrStarted(): Promise<Running> {
    if (this.#running !== undefined) return Promise.resolve(this.#running);
    this.#starting ??= starterOf(this.#context)
      .then((starter) => {
        trace("host: programs found");
        if (this.#closed) throw new Error(`${this.names} has been closed`);
        return this.#running ?? this.#spawn(starter);
      })
      .finally(() => {
        this.#starting = undefined;
      });
    return this.#starting;
  }

  #spawn({ programs, hostCode, hostsFolder, confineAhead, openEgress }: Starter): Running {
    const { logger } = this.#context;
    logger.info(`${this.#started ? "restarting" : "starting"} the plugin host of ${this.names}`);
    // What is about to be called is known for the first start only.
    const calledFirst = this.#lazy && !this.#started && this.#first.length > 0 ? { first: this.#first } : {};
    this.#started = true;
    this.#stderr.length = 0;
    const token = `${crypto.randomUUID()} `;
    const spec: HostSpec = { plugins: this.#group, workspace: this.#context.workspace, ...(this.#lazy ? { lazy: true } : {}), ...calledFirst };
    const first = this.#group[0];
    const grants = first?.entry.permissions ?? [];
    // A narrowed grant: the host's only route out is a proxy of its own, which names it in refusals.
    const network = grants.includes("network") ? first?.entry.network : undefined;
    const egress = network === undefined ? undefined : openEgress({ plugin: this.names, network, ...(this.#context.onConnection ? { onConnection: this.#context.onConnection } : {}) });
    const options = {
      argv: [process.execPath, programs.host, JSON.stringify(spec)],
      // The host program runs in the confining step's own process: no second Bun starts.
      inPlace: true,
      grants,
      ...(network === undefined ? {} : { network }),
      // Grouped hosts share grants; an entry granted paths has a host of its own.
      paths: { read: first?.entry.read ?? [], write: first?.entry.write ?? [], ...(this.#context.reserved === undefined ? {} : { reserved: this.#context.reserved }) },
      workspace: this.#context.workspace,
      // The bundled program is one file: the hosts package's sources are needed only to run from them.
      code: [...this.#group.map(({ directory }) => directory), ...hostCode.folders],
      ...(hostCode.files.length === 0 ? {} : { codeFiles: hostCode.files }),
      // Not the workspace: without fs.read it is not in the view, and Bun reads its current folder when it resolves imports.
      cwd: first?.directory ?? hostsFolder,
      // In the listing cache's folder (protected as it is), not in a folder of code, whose
      // change would make the closure it is part of stale.
      ...(this.#context.listing?.cacheFolder === undefined ? {} : { closureCache: join(this.#context.listing.cacheFolder, "closures") }),
      ...(programs.confine === undefined ? {} : { confineProgram: programs.confine }),
      ...(this.#context.limits === undefined ? {} : { limits: this.#context.limits }),
    };
    // Started before its rules are made: its confining step starts (unshare, a Bun) while this
    // process works out the view, then waits for them, and runs nothing without them. One the
    // app started ahead when it fits (never a narrowed network's: its proxy's variables differ,
    // and it needs its channel).
    const ahead = this.#context.ahead?.take(options);
    const step = ahead?.step ?? confineAhead(this.#mechanism, options);
    let child: HostChild;
    try {
      child = ahead?.child ?? spawnStep(step, egress?.childFd);
    } finally {
      egress?.spawned();
    }
    if (ahead === undefined) trace("host: spawned");
    let confined: ReturnType<typeof step.send>;
    try {
      // The protected paths (found again at each start) and the writable span begin before it can run anything.
      this.#protect = this.#context.protect?.() ?? [];
      confined = step.send(options, this.#protect);
    } catch (error) {
      killGroup(child.pid);
      throw error;
    }
    trace("host: view and limits made");
    if (!this.#warned) {
      this.#warned = true;
      for (const link of confined.refusedLinks) {
        logger.warn(`${this.names}: not following ${link.path} to ${link.target}: a link in the workspace, which confined plugins may write, must not lead out of it`);
      }
    }
    const limited = this.limits.track(confined.limits);
    // The token goes first, on stdin: on the command line, every process of the sandbox could read it in /proc.
    try {
      child.stdin.write(`${token}\n`);
      child.stdin.flush();
    } catch {
      // The host is gone already: its exit answers what waits.
    }
    const forget = killGroupOnExit(child.pid);
    const waiting = new Map<number, (message: HostMessage | undefined) => void>();
    let listed: ((listing: HostListing) => void) | undefined;
    let refused: ((error: unknown) => void) | undefined;
    let wasReady = false;
    const ready = new Promise<HostListing>((resolve, reject) => {
      listed = resolve;
      refused = reject;
    });
    let ended: () => void = () => {};
    const running: Running = { process: child, ready, waiting, progress: new Map(), ended: new Promise((resolve) => (ended = resolve)), brokeProtocol: false };
    this.#running = running;
    const onMessage = (message: HostMessage) => {
      if (message.type === "ready") {
        trace("host: ready");
        wasReady = true;
        listed?.(message.listing);
      }
      else if (message.type === "load-failed" && !("id" in message)) refused?.(new PlugboardError(message.code, message.message));
      // Shown as text: whoever shows it writes out its control characters.
      else if (message.type === "progress") running.progress.get(message.id)?.(message.text);
      else {
        waiting.get(message.id)?.(message);
        waiting.delete(message.id);
      }
    };
    const stdout = eachLine(child.stdout, (line) => {
      const at = line.indexOf(token);
      const printed = at === -1 ? line : line.slice(0, at);
      if (printed !== "") logger.info(`${this.names} printed: ${visible(printed)}`);
      if (at === -1) return;
      const message = parseHostMessage(line.slice(at + token.length));
      if (message !== undefined) {
        onMessage(message);
        return;
      }
      // The plugin's code can write to the host's stdout: a line that is not the protocol ends the host.
      if (!running.brokeProtocol) logger.warn(`${this.names}: its host wrote a protocol line the app cannot read; the host is ended`);
      running.brokeProtocol = true;
      killGroup(child.pid);
    });
    const stderr = eachLine(child.stderr, (line) => {
      // The confining step's and the host's own stages, when tracing (a plugin could write such a line too: it is only shown).
      if (tracing && line.startsWith(TRACE_PREFIX)) process.stderr.write(`${visible(line)}\n`);
      // What a plugin writes reaches a person's terminal: its control characters are shown, not obeyed.
      if (line.startsWith("warning: ")) logger.warn(visible(line.slice("warning: ".length)));
      else logger.debug(`${this.names}: ${visible(line)}`);
      this.#stderr.push(line);
      if (this.#stderr.length > STDERR_TAIL) this.#stderr.shift();
    });
    void Promise.all([child.exited, stdout.catch(() => undefined), stderr.catch(() => undefined)]).then(async () => {
      forget();
      egress?.close();
      killGroup(child.pid);
      await limited();
      if (this.#running === running) this.#running = undefined;
      // util-linux's `unshare: …`: it could not make the namespaces (and ran nothing), which a probe found it could.
      const refusal = wasReady ? undefined : this.#stderr.find((line) => line.startsWith("unshare: "));
      if (refusal !== undefined && this.#context.namespacesRefused !== undefined) {
        logger.warn(`${this.names}: its host could not be confined (${visible(refusal)}); the next start checks again whether this system can confine plugins`);
        this.#context.namespacesRefused();
      }
      refused?.(this.#startFailure(running));
      for (const answer of waiting.values()) answer(undefined);
      waiting.clear();
      ended();
    });
    ready.catch(() => undefined);
    return running;
  }

  /** Why a host ended before it listed its tools. */
  #startFailure(running: Running): PlugboardError {
    const tail = this.#stderr.length === 0 ? "" : `\nLast lines of its stderr:\n${this.#stderr.map((line) => `  ${line}`).join("\n")}`;
    return new PlugboardError("PLUGIN_HOST", `Plugin ${this.names}: its host ended before listing its tools (${this.#ending(running)})${tail}`);
  }

  #ending(running: Running): string {
    if (running.brokeProtocol) return "ended: its host broke the host protocol";
    const { exitCode, signalCode } = running.process;
    if (signalCode !== null) return `killed by ${signalCode}`;
    return exitCode === null ? "its output closed" : `exit code ${exitCode}`;
  }

  async #close(wait: boolean): Promise<void> {
    this.#closed = true;
    const running = this.#running;
    if (running === undefined) return;
    this.#running = undefined;
    // Killed at once (it holds nothing to save): `unshare` first, the host with it (its
    // parent-death signal), and with the host, everything in its PID namespace. Ended once its
    // pipes have closed, which happens only when every process that held them is gone.
    killGroup(running.process.pid);
    // A tree with limits is waited for even so: its cgroups are removed once it has ended.
    if (wait || this.#context.limits !== undefined) await settlesWithin(running.ended, CLOSE_GRACE_MS);
  }
}

/** What the handler threw as the app rebuilds it: an error of the same class name, message and stack, or the same text. */
function rebuilt(thrown: Thrown): unknown {
  if (thrown.name === undefined) return thrown.message;
  const error = new Error(thrown.message);
  error.name = thrown.name;
  if (thrown.stack !== undefined) error.stack = thrown.stack;
  return error;
}

