/**
 * How a narrowed process's one route out is made, through `bun:ffi`. The confined process
 * has a network namespace of its own, so no address it can connect to leads out of it, and
 * its seccomp filter refuses every socket family but IPv4 and IPv6 (no UNIX socket, which
 * would cross namespaces by path). Before that filter applies, the confining step, still in
 * that namespace, brings its loopback interface up, listens on `127.0.0.1:EGRESS_PORT` there
 * and hands the listening socket to the app over a socket pair the app gave it as fd 3
 * (`SCM_RIGHTS`), then closes its own copies. From then on nothing inside holds the
 * listener: the app accepts each connection the process makes to that port — the kernel
 * lets a socket serve outside the namespace it was made in — and its proxy decides where,
 * if anywhere, the connection goes. No relay runs inside the sandbox to be attacked, and
 * nothing inside can reach any other socket of the app's.
 */
import { closeSync } from "node:fs";
import { EAGAIN, EINTR, lastErrno, libc, sys } from "../kernel/libc.ts";

/** The port the app's proxy answers on inside a narrowed process's namespace: the usual proxy port. */
export const EGRESS_PORT = 3128;
/** The fd a narrowed process's confining step receives its channel to the app on (the one after stderr). */
export const CHANNEL_FD = 3;

const AF_UNIX = 1n;
const AF_INET = 2n;
const SOCK_STREAM = 1n;
const SOCK_DGRAM = 2n;
const SOCK_NONBLOCK = 0o4000n;
const SOCK_CLOEXEC = 0o2000000n;
const SOL_SOCKET = 1;
const SCM_RIGHTS = 1;
const MSG_DONTWAIT = 0x40n;
const MSG_CMSG_CLOEXEC = 0x40000000n;
const SIOCGIFFLAGS = 0x8913n;
const SIOCSIFFLAGS = 0x8914n;
const IFF_UP = 1;

/** The two ends of a new channel: the app keeps `app`; `child` becomes the confined process's fd 3. Both close on exec. */
export function openChannel(): { readonly app: number; readonly child: number } {
  const pair = new Int32Array(2);
  const result = sys("socketpair", AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0n, libc.pointer(pair));
  if (result !== 0n) throw new Error(`socketpair failed: errno ${lastErrno()}`);
  return { app: pair[0] ?? -1, child: pair[1] ?? -1 };
}

/**
 * In the confining step, inside the process's own network namespace: brings `lo` up, listens
 * on 127.0.0.1:`EGRESS_PORT`, sends the listener to the app over `channel` and closes both.
 * Throws, naming the step, on a refusal.
 */
export function handOverListener(channel: number): void {
  loopbackUp();
  const listener = call(sys("socket", AF_INET, SOCK_STREAM | SOCK_CLOEXEC), "socket");
  try {
    // struct sockaddr_in { sa_family_t family; in_port_t port (big-endian); struct in_addr addr; char zero[8]; }
    const address = new DataView(new ArrayBuffer(16));
    address.setUint16(0, Number(AF_INET), true);
    address.setUint16(2, EGRESS_PORT, false);
    address.setUint32(4, 0x7f000001, false);
    call(sys("bind", listener, libc.pointer(address), 16n), `bind 127.0.0.1:${EGRESS_PORT}`);
    call(sys("listen", listener, 511n), "listen");
    const { message, keep } = messageHeader(Number(listener));
    call(sys("sendmsg", BigInt(channel), libc.pointer(message), 0n), "sending the listener to the app");
    keep.length = 0;
  } finally {
    closeSync(Number(listener));
    closeSync(channel);
  }
}

/**
 * In the app: the listening socket the confining step sent over `channel`, without waiting
 * — a number once it has come, `"waiting"` before, `"closed"` when every other end of the
 * channel has closed without sending one (the process ended first). The fd closes on exec.
 */
export function receiveListener(channel: number): number | "waiting" | "closed" {
  const { message, control, keep } = messageHeader(-1);
  const received = sys("recvmsg", BigInt(channel), libc.pointer(message), MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
  keep.length = 0;
  if (received < 0n) {
    const errno = lastErrno();
    if (errno === EAGAIN || errno === EINTR) return "waiting";
    throw new Error(`receiving the listener failed: errno ${errno}`);
  }
  if (received === 0n) return "closed";
  const level = control.getInt32(8, true);
  const type = control.getInt32(12, true);
  if (level !== SOL_SOCKET || type !== SCM_RIGHTS || control.getBigUint64(0, true) < 20n) throw new Error("the confined process sent no listener");
  return control.getInt32(16, true);
}

/** Whether `channel`'s other ends have all closed (the confined process and everything that held the channel ended). */
export function channelClosed(channel: number): boolean {
  return receiveListener(channel) === "closed";
}

/** A `struct msghdr` for one byte of data and (with `fd` ≥ 0) one fd to pass; `keep` holds the buffers it points into. */
function messageHeader(fd: number): { message: DataView; control: DataView; keep: unknown[] } {
  const data = new Uint8Array([0x50]);
  // struct iovec { void *base; size_t len; }
  const iov = new DataView(new ArrayBuffer(16));
  iov.setBigUint64(0, libc.pointer(data), true);
  iov.setBigUint64(8, 1n, true);
  // struct cmsghdr { size_t len; int level; int type; int fd; } padded to CMSG_SPACE(4) = 24.
  const control = new DataView(new ArrayBuffer(24));
  if (fd >= 0) {
    control.setBigUint64(0, 20n, true);
    control.setInt32(8, SOL_SOCKET, true);
    control.setInt32(12, SCM_RIGHTS, true);
    control.setInt32(16, fd, true);
  }
  // struct msghdr { name; namelen; iov; iovlen; control; controllen; flags; } (56 bytes on 64-bit Linux)
  const message = new DataView(new ArrayBuffer(56));
  message.setBigUint64(16, libc.pointer(iov), true);
  message.setBigUint64(24, 1n, true);
  message.setBigUint64(32, libc.pointer(control), true);
  message.setBigUint64(40, 24n, true);
  return { message, control, keep: [data, iov, control] };
}

/** `ip link set lo up`, through the ioctl every Linux has. */
function loopbackUp(): void {
  const socket = call(sys("socket", AF_INET, SOCK_DGRAM | SOCK_CLOEXEC), "socket");
  try {
    // struct ifreq { char name[16]; short flags; … } (40 bytes)
    const request = new DataView(new ArrayBuffer(40));
    new Uint8Array(request.buffer).set(Buffer.from("lo\0"));
    call(sys("ioctl", socket, SIOCGIFFLAGS, libc.pointer(request)), "reading lo's flags");
    request.setInt16(16, request.getInt16(16, true) | IFF_UP, true);
    call(sys("ioctl", socket, SIOCSIFFLAGS, libc.pointer(request)), "bringing lo up");
  } finally {
    closeSync(Number(socket));
  }
}

function call(result: bigint, what: string): bigint {
  if (result < 0n) throw new Error(`${what} failed: errno ${lastErrno()}`);
  return result;
}
