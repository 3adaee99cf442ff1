/**
 * Watching, from inside the harness process, for what needs a permission: programs started
 * and connections opened. It wraps the JavaScript entry points that do them — `Bun.spawn`,
 * `Bun.spawnSync` and `Bun.$` (which `node:child_process` also goes through), `fetch`,
 * `Bun.connect`, `net.Socket#connect` (which `node:http` uses) and `WebSocket` — before
 * any plugin code is imported. Native code that bypasses them is not seen.
 */
import net from "node:net";
import type { SideEffect } from "./harness-protocol.ts";

/** The effects seen so far, and what the harness is doing (stamped on each effect). */
export interface Observer {
  readonly effects: SideEffect[];
  during: string;
}

/** Installs the wrappers for the rest of the process's life and returns the observer. */
export function observeSideEffects(): Observer {
  const observer: Observer = { effects: [], during: "loading" };
  const record = (kind: SideEffect["kind"], detail: string) => {
    observer.effects.push({ kind, detail: detail.slice(0, 200), during: observer.during });
  };
  const bun = Bun as unknown as object;
  wrap(bun, "spawn", (args) => record("spawn", commandOf(args[0])));
  wrap(bun, "spawnSync", (args) => record("spawn", commandOf(args[0])));
  wrap(bun, "$", (args) => record("spawn", shellOf(args[0])));
  wrap(bun, "connect", (args) => record("network", addressOf(args[0])));
  wrap(globalThis, "fetch", (args) => record("network", addressOf(args[0])));
  wrap(globalThis, "WebSocket", (args) => record("network", addressOf(args[0])));
  wrap(net.Socket.prototype, "connect", (args) => record("network", addressOf(args[0], args[1])));
  return observer;
}

/** Replaces `target[key]` with a proxy that reports each call (or construction) first. */
function wrap(target: object, key: string, onCall: (args: unknown[]) => void): void {
  const original: unknown = Reflect.get(target, key);
  if (typeof original !== "function") return;
  const proxy = new Proxy(original, {
    apply(fn, self, args) {
      onCall(args);
      return Reflect.apply(fn, self, args);
    },
    construct(fn, args, newTarget) {
      onCall(args);
      return Reflect.construct(fn, args, newTarget);
    },
  });
  Reflect.set(target, key, proxy);
}

/** `Bun.spawn(["ls", "-l"])`, `Bun.spawn({ cmd })` or a string. */
function commandOf(arg: unknown): string {
  const cmd = isRecord(arg) && !Array.isArray(arg) ? arg.cmd : arg;
  return Array.isArray(cmd) ? cmd.map(String).join(" ") : String(cmd);
}

/** A `Bun.$` template's literal parts. */
function shellOf(strings: unknown): string {
  return Array.isArray(strings) ? `$ ${strings.join("…")}` : "$ (shell)";
}

/** A URL, a Request, `{ hostname, port }`, or `port, host`. */
function addressOf(first: unknown, second?: unknown): string {
  if (typeof first === "string") return first;
  if (first instanceof URL) return first.href;
  if (first instanceof Request) return first.url;
  if (typeof first === "number") return `${typeof second === "string" ? second : "localhost"}:${first}`;
  if (isRecord(first)) {
    const host = first.hostname ?? first.host ?? first.path ?? first.unix ?? "localhost";
    return first.port === undefined ? String(host) : `${String(host)}:${String(first.port)}`;
  }
  return String(first);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}
