/**
 * The egress proxy's bulk relay, a worker thread of the app (splice-relay.ts starts it): it
 * moves a connection's bytes from one socket to the other with `splice(2)` through a pipe,
 * so that they never enter the process (no copy into a buffer and back, the kernel moves
 * the pages), waiting in `epoll_wait` for either socket to be ready. It is handed a pair of
 * sockets (its own duplicates of their fds) over a control pipe, passes each end (FIN) on
 * once the bytes before it are out, and, when both directions have ended or one side failed,
 * closes its duplicates and posts the pair back. Started only as a worker: importing it does nothing.
 */
import { EAGAIN, EINTR, lastErrno, libc, O_CLOEXEC, pipe as pipeOf, sys } from "../kernel/libc.ts";

/** What the app posts once, before any pair: the control pipe's reading end. */
export interface SpliceWorkerStart {
  readonly control: number;
}

/** What the worker posts when a pair is relayed to the end: its fds, now closed. */
export type SpliceDone = readonly [client: number, upstream: number];

const EPOLLIN = 0x1;
const EPOLLOUT = 0x4;
const EPOLLRDHUP = 0x2000;
const EPOLLET = 0x80000000;
const EPOLL_CTL_ADD = 1n;
const EPOLL_CTL_DEL = 2n;
const SPLICE_F_MOVE = 1n;
const SPLICE_F_NONBLOCK = 2n;
const O_NONBLOCK = 0o4000n;
const F_SETPIPE_SZ = 1031n;
const SHUT_WR = 1n;
const SHUT_RDWR = 2n;
/** A pipe's capacity: the most one splice moves. */
const PIPE_BYTES = 1 << 20;
/** `struct epoll_event` is packed on x86-64 (12 bytes), aligned elsewhere (16). */
const EVENT_BYTES = process.arch === "x64" ? 12 : 16;
const DATA_OFFSET = process.arch === "x64" ? 4 : 8;
const BATCH = 64;

/** One direction of a pair: from a socket into the pipe, from the pipe into the other socket. */
interface Flow {
  readonly from: number;
  readonly to: number;
  readonly pipe: readonly [read: number, write: number];
  inPipe: number;
  ended: boolean;
  done: boolean;
}

interface Pair {
  readonly client: number;
  readonly upstream: number;
  readonly flows: readonly [Flow, Flow];
}

const pairs = new Map<number, Pair>();

function run({ control }: SpliceWorkerStart): void {
  const epoll = sys("epollCreate1", O_CLOEXEC);
  if (!watch(epoll, control, EPOLLIN)) throw new Error(`epoll_ctl failed: errno ${lastErrno()}`);
  const events = new DataView(new ArrayBuffer(EVENT_BYTES * BATCH));
  const handed = new Int32Array(64);
  for (;;) {
    const count = Number(sys("epollPwait", epoll, libc.pointer(events), BigInt(BATCH), -1n));
    if (count < 0 && lastErrno() !== EINTR) throw new Error(`epoll_pwait failed: errno ${lastErrno()}`);
    for (let index = 0; index < count; index++) {
      const fd = Number(events.getBigUint64(index * EVENT_BYTES + DATA_OFFSET, true));
      if (fd === control) receive(epoll, control, handed);
      else {
        const pair = pairs.get(fd);
        if (pair !== undefined) pump(epoll, pair);
      }
    }
  }
}

/** Takes the pairs the app wrote on the control pipe (two fds each) and starts relaying them. */
function receive(epoll: bigint, control: number, handed: Int32Array): void {
  const read = Number(sys("read", BigInt(control), libc.pointer(handed), BigInt(handed.byteLength)));
  for (let index = 0; index + 1 < read / 4; index += 2) {
    const client = handed[index] ?? -1;
    const upstream = handed[index + 1] ?? -1;
    const pair: Pair = { client, upstream, flows: [flow(client, upstream), flow(upstream, client)] };
    pairs.set(client, pair);
    pairs.set(upstream, pair);
    const mask = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
    if (pair.flows.some(({ pipe }) => pipe.includes(-1)) || !watch(epoll, client, mask) || !watch(epoll, upstream, mask)) fail(epoll, pair);
    else pump(epoll, pair);
  }
}

/** A direction and its pipe (both ends -1 when none could be made). */
function flow(from: number, to: number): Flow {
  const pipe = pipeOf(O_NONBLOCK | O_CLOEXEC) ?? ([-1, -1] as const);
  sys("fcntl", BigInt(pipe[1]), F_SETPIPE_SZ, BigInt(PIPE_BYTES));
  return { from, to, pipe, inPipe: 0, ended: false, done: false };
}

/** Moves what each direction can move now; ends the pair once both are done or one failed. */
function pump(epoll: bigint, pair: Pair): void {
  let failed = false;
  for (const direction of pair.flows) if (!direction.done && !move(direction)) failed = true;
  if (failed) fail(epoll, pair);
  else if (pair.flows.every((direction) => direction.done)) end(epoll, pair);
}

/** A socket failed (or the pair could not be watched): both are shut both ways, so that each side sees its end, and the pair ends. */
function fail(epoll: bigint, pair: Pair): void {
  for (const fd of [pair.client, pair.upstream]) sys("shutdown", BigInt(fd), SHUT_RDWR);
  end(epoll, pair);
}

/** Moves `direction`'s bytes until a socket would block; false when a socket failed. */
function move(direction: Flow): boolean {
  for (;;) {
    if (direction.inPipe > 0) {
      const moved = Number(sys("splice", BigInt(direction.pipe[0]), 0n, BigInt(direction.to), 0n, BigInt(direction.inPipe), SPLICE_F_MOVE | SPLICE_F_NONBLOCK));
      if (moved < 0) return lastErrno() === EAGAIN;
      direction.inPipe -= moved;
      continue;
    }
    if (direction.ended) {
      sys("shutdown", BigInt(direction.to), SHUT_WR);
      direction.done = true;
      return true;
    }
    const taken = Number(sys("splice", BigInt(direction.from), 0n, BigInt(direction.pipe[1]), 0n, BigInt(PIPE_BYTES), SPLICE_F_MOVE | SPLICE_F_NONBLOCK));
    if (taken < 0) return lastErrno() === EAGAIN;
    if (taken === 0) direction.ended = true;
    direction.inPipe += taken;
  }
}

function end(epoll: bigint, pair: Pair): void {
  for (const fd of [pair.client, pair.upstream]) {
    // The app's own fd refers to the same socket: the watch must go before the duplicate closes.
    sys("epollCtl", epoll, EPOLL_CTL_DEL, BigInt(fd), 0n);
    sys("close", BigInt(fd));
    pairs.delete(fd);
  }
  for (const direction of pair.flows) for (const fd of direction.pipe) if (fd >= 0) sys("close", BigInt(fd));
  const done: SpliceDone = [pair.client, pair.upstream];
  postMessage(done);
}

/** Watches `fd` for `mask`; false when epoll refused. */
function watch(epoll: bigint, fd: number, mask: number): boolean {
  const event = new DataView(new ArrayBuffer(EVENT_BYTES));
  event.setUint32(0, mask >>> 0, true);
  event.setBigUint64(DATA_OFFSET, BigInt(fd), true);
  return sys("epollCtl", epoll, EPOLL_CTL_ADD, BigInt(fd), libc.pointer(event)) === 0n;
}

if (!Bun.isMainThread) {
  addEventListener("message", (message: MessageEvent<SpliceWorkerStart>) => run(message.data), { once: true });
}
