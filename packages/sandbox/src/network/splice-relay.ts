/**
 * Hands a relayed connection's two sockets to the bulk relay (splice-worker.ts), a worker
 * thread that moves their bytes with `splice(2)` without copying them into the process. The
 * worker starts at the first hand-over and lives as long as the app, without keeping it
 * alive; the app keeps its own sockets (paused, so that it reads nothing meanwhile) and ends
 * them when the worker posts the pair back. Where the worker cannot start, nothing is handed
 * over and the proxy relays in the app's thread.
 */
import { dirname, join } from "node:path";
import { libc, pipe, sys } from "../kernel/libc.ts";
import type { SpliceDone, SpliceWorkerStart } from "./splice-worker.ts";

/** What the app does when the worker has relayed a pair to the end. */
export type AfterSplice = () => void;

const F_DUPFD_CLOEXEC = 1030n;

let relay: { readonly control: number; readonly waiting: Map<number, AfterSplice> } | "unavailable" | undefined;

/**
 * Hands the connected sockets `client` and `upstream` (fds) to the worker, which relays them
 * until both directions have ended, then calls `after`. False when they cannot be handed over
 * (no worker): the caller relays them itself.
 */
export function spliceRelay(client: number, upstream: number, after: AfterSplice): boolean {
  relay ??= startWorker();
  const { control, waiting } = relay === "unavailable" ? { control: -1, waiting: undefined } : relay;
  if (waiting === undefined || client < 0 || upstream < 0) return false;
  const pair = new Int32Array([duplicate(client), duplicate(upstream)]);
  if (!pair.includes(-1) && sys("write", BigInt(control), libc.pointer(pair), 8n) === 8n) {
    waiting.set(pair[0] ?? -1, after);
    return true;
  }
  for (const fd of pair) if (fd >= 0) sys("close", BigInt(fd));
  return false;
}

function startWorker(): NonNullable<typeof relay> {
  const fds = pipe();
  if (fds === undefined) return "unavailable";
  const [read, control] = fds;
  const waiting = new Map<number, AfterSplice>();
  // From the package's sources, found by its name, so that an app bundling this package (the CLI's dist/bin.js) still finds it.
  const folder = dirname(Bun.resolveSync("@plugboard/sandbox/package.json", import.meta.dir));
  const worker = new Worker(join(folder, "src/network/splice-worker.ts"));
  // Bun's Worker can be unref'd (a DOM-typed program sees the web's Worker type, without it); node:worker_threads' Worker would hold the app's exit while the thread waits in epoll_wait.
  if ("unref" in worker && typeof worker.unref === "function") worker.unref();
  worker.onmessage = ({ data }: MessageEvent<SpliceDone>) => {
    const after = waiting.get(data[0]);
    waiting.delete(data[0]);
    after?.();
  };
  // A worker that failed relays nothing more: the connections it held end, and the proxy relays the next ones itself.
  worker.onerror = () => {
    relay = "unavailable";
    for (const after of waiting.values()) after();
    waiting.clear();
  };
  const start: SpliceWorkerStart = { control: read };
  worker.postMessage(start);
  return { control, waiting };
}

/** A duplicate of `fd`, closed on exec; -1 when none could be made. */
function duplicate(fd: number): number {
  return Number(sys("fcntl", BigInt(fd), F_DUPFD_CLOEXEC, 0n));
}
