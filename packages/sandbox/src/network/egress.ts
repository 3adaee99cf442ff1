/**
 * A narrowed process's egress, from the app's side: the channel its confining step hands its
 * listener over (egress-channel.ts), and the proxy served on that listener once it has come
 * (egress-proxy.ts). The proxy ends when the process's tree has ended (every end of the
 * channel closed) or at `close`.
 *
 * @example
 * const egress = openEgress({ plugin: "bash", network: ["registry.npmjs.org"] });
 * const child = Bun.spawn([command, ...args], { env, stdio: ["pipe", "pipe", "pipe", egress.childFd] });
 * egress.spawned();
 */
import { closeSync } from "node:fs";
import { lazilySync } from "@plugboard/core/internal";
import { channelClosed, openChannel, receiveListener } from "./egress-channel.ts";
import type { EgressProxy, EgressProxyOptions } from "./egress-proxy.ts";

/** A narrowed process's egress, before and after it starts. */
export interface Egress extends EgressProxy {
  /** The channel's end to give the confined process as its fd 3 (`CHANNEL_FD`). */
  readonly childFd: number;
  /** Says the process is spawned (or failed to spawn): the app's copy of `childFd` is closed, and the listener awaited. */
  spawned(): void;
}

/** How often the app looks for the listener, then for the end of the process's tree. */
const RECEIVE_POLL_MS = 5;
const END_POLL_MS = 500;

/** Opens the channel of a process to be narrowed to `options.network`. */
export function openEgress(options: EgressProxyOptions): Egress {
  const channel = openChannel();
  let proxy: EgressProxy | undefined;
  let timer: ReturnType<typeof setInterval> | undefined;
  let closed = false;
  let childOpen = true;
  const stop = () => {
    if (timer !== undefined) clearInterval(timer);
    timer = undefined;
  };
  const close = () => {
    if (closed) return;
    closed = true;
    stop();
    proxy?.close();
    if (childOpen) closeSync(channel.child);
    childOpen = false;
    closeSync(channel.app);
  };
  const watchEnd = () => {
    stop();
    timer = setInterval(() => {
      if (channelClosed(channel.app)) close();
    }, END_POLL_MS);
    timer.unref();
  };
  return {
    childFd: channel.child,
    spawned() {
      if (closed || !childOpen) return;
      closeSync(channel.child);
      childOpen = false;
      // The listener comes within the process's first moments; connections made meanwhile wait in its backlog.
      timer = setInterval(() => {
        const received = receiveListener(channel.app);
        if (received === "waiting") return;
        if (received === "closed") {
          close();
          return;
        }
        proxy = egressProxy().serveEgressProxy({ fd: received }, options);
        watchEnd();
      }, RECEIVE_POLL_MS);
      timer.unref();
    },
    close,
  };
}

/**
 * The proxy's module, required when the first listener comes: it loads `node:dns` and the
 * relay, which an app that starts no narrowed process never needs.
 */
function egressProxy(): typeof import("./egress-proxy.ts") {
  return lazilySync("the egress proxy", () => require("./egress-proxy.ts") as typeof import("./egress-proxy.ts"));
}
