/**
 * The egress proxy's byte relay between two of Bun's native sockets (egress-proxy.ts): each
 * chunk read from one is written straight to the other, with no stream in between. A write
 * the other's kernel buffer has no room for keeps its rest and pauses the reading side until
 * the other drains, so the proxy never reads faster than the slower side takes, and buffers
 * at most one chunk per direction. An end (FIN) passes through once what was queued is out;
 * a side that closes ends the other the same way.
 */
import type { Socket } from "bun";

/** One socket of a relayed connection: the client's (accepted) or the upstream's (connected). */
export class Leg {
  /** The other socket, once the connection is relayed. */
  peer: Leg | undefined;
  /** Bytes for this socket that its kernel buffer had no room for yet. */
  queued: Uint8Array | undefined;
  /** Ends this socket's writing once `queued` is out: the other side ended or closed. */
  finishing = false;
  closed = false;

  constructor(readonly socket: Socket<Leg>) {}

  /** Writes `bytes` to this socket, queueing what does not fit and pausing the peer's reading until it drains. */
  send(bytes: Uint8Array): void {
    if (this.closed || bytes.byteLength === 0) return;
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
    if (this.finishing) this.socket.end();
    else this.peer?.socket.resume();
  }

  /** The peer sent its end, or closed: this socket ends once its queue is out. */
  finish(): void {
    if (this.closed || this.finishing) return;
    this.finishing = true;
    if (this.queued === undefined) this.socket.end();
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

/** The socket handlers of a relayed leg (the upstream's from the start, the client's once linked). */
export const relayHandlers = {
  data(socket: Socket<Leg>, chunk: Buffer) {
    socket.data.peer?.send(chunk);
  },
  drain(socket: Socket<Leg>) {
    socket.data.drained();
  },
  end(socket: Socket<Leg>) {
    socket.data.peer?.finish();
  },
  close(socket: Socket<Leg>) {
    socket.data.lost();
  },
  error(socket: Socket<Leg>) {
    socket.terminate();
  },
};
