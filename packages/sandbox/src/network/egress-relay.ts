/**
 * The egress proxy's byte relay between two of Bun's native sockets (egress-proxy.ts): each
 * chunk read from one is written straight to the other, with no stream in between. A write
 * the other's kernel buffer has no room for keeps its rest and pauses the reading side until
 * the other drains, so the proxy never reads faster than the slower side takes, and buffers
 * at most one chunk per direction. An end (FIN) passes through once what was queued is out;
 * a side that closes ends the other the same way. (Bun's `end()` closes a socket both ways;
 * `shutdown()` sends the FIN and keeps reading, so each direction ends on its own.) A connection that carries more than
 * `SPLICE_AFTER` bytes (a download) is handed to the bulk relay (splice-relay.ts), which
 * moves the rest without copying it into the process; short exchanges never pay the hand-over.
 */
import type { Socket } from "bun";
import { spliceRelay } from "./splice-relay.ts";

declare module "bun" {
  interface Socket<Data = undefined> {
    /** The socket's file descriptor (Bun 1.4 has it; its types do not list it yet). */
    readonly fd: number;
  }
}

/** The bytes one direction relays before the connection is handed to the bulk relay. */
const SPLICE_AFTER = 256 * 1024;

/** Who relays a connection: this thread, this thread until the hand-over, or the bulk relay. */
type Relayer = "here" | "handing" | "bulk";

/** One socket of a relayed connection: the client's (accepted) or the upstream's (connected). */
export class Leg {
  /** The other socket, once the connection is relayed. */
  peer: Leg | undefined;
  /** Bytes for this socket that its kernel buffer had no room for yet. */
  queued: Uint8Array | undefined;
  /** Ends this socket's writing once `queued` is out: the other side ended or closed. */
  finishing = false;
  closed = false;
  /** Bytes written to this socket so far. */
  sent = 0;
  relayer: Relayer = "here";

  constructor(readonly socket: Socket<Leg>) {}

  /** Writes `bytes` to this socket, queueing what does not fit and pausing the peer's reading until it drains. */
  send(bytes: Uint8Array): void {
    if (this.closed || bytes.byteLength === 0) return;
    this.sent += bytes.byteLength;
    if (this.queued !== undefined) {
      this.queued = Buffer.concat([this.queued, bytes]);
      return;
    }
    const written = this.socket.write(bytes);
    if (written < 0 || written >= bytes.byteLength) return;
    this.queued = bytes.subarray(written);
    this.peer?.socket.pause();
  }

  /** The socket can take more: what was queued goes out, then the peer reads again (or this socket ends). */
  drained(): void {
    const queued = this.queued;
    if (queued === undefined || this.closed) return;
    const written = this.socket.write(queued);
    if (written >= 0 && written < queued.byteLength) {
      this.queued = queued.subarray(written);
      return;
    }
    this.queued = undefined;
    if (this.finishing) this.socket.shutdown();
    else if (this.relayer === "handing" && this.peer !== undefined) handOver(this, this.peer);
    else this.peer?.socket.resume();
  }

  /** The peer sent its end, or closed: this socket ends once its queue is out. */
  finish(): void {
    if (this.closed || this.finishing) return;
    this.finishing = true;
    if (this.queued === undefined) this.socket.shutdown();
  }

  /** This socket closed: the peer ends once its queue is out, and reads again so that its own end is seen. */
  lost(): void {
    this.closed = true;
    this.queued = undefined;
    const peer = this.peer;
    if (peer === undefined) return;
    peer.finish();
    peer.socket.resume();
  }
}

/** Joins `client` and `upstream`: from now on what one reads, the other writes. */
export function link(client: Leg, upstream: Leg): void {
  client.peer = upstream;
  upstream.peer = client;
}

/** Passes `chunk`, read from `from`'s socket, to its peer; past `SPLICE_AFTER` bytes, starts the hand-over. */
export function relay(from: Leg, chunk: Uint8Array): void {
  const to = from.peer;
  if (to === undefined || from.relayer === "bulk") return;
  to.send(chunk);
  if (from.relayer !== "here" || to.sent < SPLICE_AFTER) return;
  // Both sockets stop reading; once what this thread read is written, the bulk relay takes them.
  from.relayer = to.relayer = "handing";
  from.socket.pause();
  to.socket.pause();
  setImmediate(() => handOver(from, to));
}

/** Hands the pair to the bulk relay once nothing waits in this thread; an end or close first keeps it here. */
function handOver(a: Leg, b: Leg): void {
  if (a.relayer !== "handing") return;
  if (a.closed || b.closed || a.finishing || b.finishing) {
    keepHere(a, b);
    return;
  }
  if (a.queued !== undefined || b.queued !== undefined) return;
  const handed = spliceRelay(a.socket.fd, b.socket.fd, () => {
    for (const leg of [a, b]) {
      if (leg.closed) continue;
      leg.socket.resume();
      leg.socket.shutdown();
    }
  });
  if (!handed) {
    keepHere(a, b);
    return;
  }
  a.relayer = b.relayer = "bulk";
}

function keepHere(a: Leg, b: Leg): void {
  a.relayer = b.relayer = "here";
  if (b.queued === undefined) a.socket.resume();
  if (a.queued === undefined) b.socket.resume();
}

/** The socket handlers of a relayed leg (the upstream's from the start, the client's once linked); the bulk relay's sockets are its own. */
export const relayHandlers = {
  data(socket: Socket<Leg>, chunk: Buffer) {
    relay(socket.data, chunk);
  },
  drain(socket: Socket<Leg>) {
    if (socket.data.relayer !== "bulk") socket.data.drained();
  },
  end(socket: Socket<Leg>) {
    if (socket.data.relayer !== "bulk") socket.data.peer?.finish();
  },
  close(socket: Socket<Leg>) {
    if (socket.data.relayer === "bulk") socket.data.closed = true;
    else socket.data.lost();
  },
  error(socket: Socket<Leg>) {
    socket.terminate();
  },
};
