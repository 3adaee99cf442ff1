/**
 * The client side of MCP's stdio transport, on `Bun.spawn`: the server runs in its own
 * process group so closing ends its whole tree, a launcher may rewrite the command line
 * (the sandbox wraps it), and the last lines of its stderr are kept for error messages.
 * Framing is the SDK's own (`ReadBuffer`, `serializeMessage`).
 */
import { type JSONRPCMessage, ReadBuffer, serializeMessage, type Transport } from "@modelcontextprotocol/client";
import { killGroup, killGroupOnExit, PIPE_GRACE_MS, settlesWithin } from "@plugboard/core/process";

/** The process a stdio server runs as: what a launcher receives and returns. */
export interface Launch {
  /** The command line: the program, then its arguments. */
  readonly argv: readonly string[];
  /** The whole environment of the process (nothing else is inherited). */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string | undefined;
  /** Open fds the process gets as its fd 3 on (a sandbox's channel to the app). @default none */
  readonly fds?: readonly number[];
  /** Called once the process is spawned, or failed to spawn (the sandbox then closes its copy of `fds`). */
  readonly spawned?: () => void;
  /** Called once the process has exited and its group has been killed (the sandbox then removes the tree's cgroups); `close` waits for it a moment. */
  readonly ended?: () => Promise<void>;
}

/** Rewrites or wraps a server's command line before it is spawned. */
export type Launcher = (launch: Launch) => Launch | Promise<Launch>;

/** How long a server may take to exit after its stdin closes before its group is killed. */
const EXIT_GRACE_MS = 1000;
/** Lines of stderr kept for messages. */
const STDERR_LINES = 20;


export class ProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #launch: Launch;
  readonly #stderr: string[] = [];
  #child: Bun.Subprocess<"pipe", "pipe", "pipe"> | undefined;
  /** Forgets the group of the process, once it has ended, among those killed when the app exits. */
  #forget: () => void = () => {};
  #stderrRead: Promise<void> = Promise.resolve();
  /** Settles once the process has exited and what follows its end (`Launch.ended`) is done. */
  #done: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(launch: Launch) {
    this.#launch = launch;
  }

  /**
   * The SDK tells a local process from a remote server by a `pid` and a `stderr` (a silent
   * process is then an older server, not an outage). Its stderr is read here (`stderrTail`).
   */
  readonly stderr = null;

  /** The server's process id once started (also its process group id). */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** The last lines the server wrote to stderr; once it has exited, all of them. */
  async stderrTail(): Promise<string[]> {
    await settlesWithin(quietly(this.#stderrRead), PIPE_GRACE_MS);
    return [...this.#stderr];
  }

  async start(): Promise<void> {
    const { argv, env, cwd } = this.#launch;
    const [program, ...args] = argv;
    if (program === undefined) throw new Error("empty command line");
    const found = Bun.which(program, { PATH: env.PATH ?? "", cwd: cwd ?? process.cwd() });
    if (found === null) throw new Error(`command not found: ${program}`);
    let child: Bun.Subprocess<"pipe", "pipe", "pipe">;
    try {
      child = Bun.spawn([found, ...args], { env: { ...env }, cwd, detached: true, stdio: ["pipe", "pipe", "pipe", ...(this.#launch.fds ?? [])] });
    } finally {
      this.#launch.spawned?.();
    }
    this.#child = child;
    this.#forget = killGroupOnExit(child.pid);
    const stdoutRead = this.#readStdout(child.stdout);
    this.#stderrRead = this.#readStderr(child.stderr);
    this.#done = child.exited.then(async () => {
      // Descendants left in the group die with the server; then its last messages are read.
      killGroup(child.pid);
      await settlesWithin(quietly(stdoutRead), PIPE_GRACE_MS);
      this.#finish(child.pid);
      await this.#launch.ended?.();
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const child = this.#child;
    if (!child || this.#closed) throw new Error("the server process is not running");
    child.stdin.write(serializeMessage(message));
    await child.stdin.flush();
  }

  /** Closes stdin, gives the server a moment to exit, then kills its whole process group. */
  async close(): Promise<void> {
    const child = this.#child;
    if (!child) return;
    try {
      await child.stdin.end();
    } catch {
      // The pipe is already closed: the server is gone or going.
    }
    await settlesWithin(quietly(child.exited), EXIT_GRACE_MS);
    this.#finish(child.pid);
    await child.exited;
    await settlesWithin(quietly(this.#done), EXIT_GRACE_MS);
  }

  #finish(pid: number): void {
    killGroup(pid);
    this.#forget();
    if (this.#closed) return;
    this.#closed = true;
    this.onclose?.();
  }

  async #readStdout(stream: ReadableStream<Uint8Array>): Promise<void> {
    const buffer = new ReadBuffer();
    for await (const chunk of stream) {
      buffer.append(Buffer.from(chunk));
      for (;;) {
        let message: JSONRPCMessage | null;
        try {
          message = buffer.readMessage();
        } catch (error) {
          this.onerror?.(error as Error);
          continue;
        }
        if (message === null) break;
        this.onmessage?.(message);
      }
    }
  }

  async #readStderr(stream: ReadableStream<Uint8Array>): Promise<void> {
    let partial = "";
    const decoder = new TextDecoder();
    for await (const chunk of stream) {
      const lines = (partial + decoder.decode(chunk, { stream: true })).split("\n");
      partial = lines.pop() ?? "";
      this.#keep(lines);
    }
    this.#keep([partial]);
  }

  #keep(lines: readonly string[]): void {
    for (const line of lines) if (line.trim() !== "") this.#stderr.push(line.trimEnd());
    this.#stderr.splice(0, Math.max(0, this.#stderr.length - STDERR_LINES));
  }
}

/** `promise`, settled either way: a stream that failed has ended all the same. */
function quietly(promise: Promise<unknown>): Promise<void> {
  return promise.then(
    () => undefined,
    () => undefined,
  );
}
