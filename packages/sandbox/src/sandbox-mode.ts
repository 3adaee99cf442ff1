/**
 * Which plugins run confined, decided once per app from the config's `sandbox` key and
 * what the kernel offers: `auto` confines where it can and otherwise says once that it
 * runs unconfined; `required` refuses to start without the mechanism; `off` never confines.
 */
import type { Logger } from "@plugboard/core";
import type { Limits } from "./limits/limits.ts";
import { type LimitsInForce, limitsInForce } from "./limits/tree-limits.ts";
import { type DetectOptions, detectMechanismAsync, detectMechanismWhenAsked, type Mechanism, unshareAhead } from "./mechanism.ts";
import { sandboxErrors } from "./messages.ts";

/** Forgets that the namespaces work here, as a probe found (a host could not make them since): the next start probes again. */
export { forgetNamespaces } from "./kernel/namespaces-known.ts";

/** How plugins are confined (the config's `sandbox` key): `auto` where the kernel can, `required` or refuse to start, `off` never. */
export type SandboxMode = "auto" | "required" | "off";

/** What the sandbox's decision reads of the config (an `AppConfig` has these). */
export interface SandboxSettings {
  readonly sandbox: SandboxMode;
  /** Named in what is said about the decision. */
  readonly configPath: string;
  readonly limits: Limits;
}

/** The sandbox in force, as `plugboard check` reports it. */
export interface SandboxState {
  readonly mode: SandboxMode;
  /** The mechanism when plugins are confined by it; undefined when they are not. */
  readonly mechanism: Extract<Mechanism, { available: true }> | undefined;
  /** One line: the mechanism in use, or why there is none. */
  readonly summary: string;
  /** The config's limits as this machine enforces them, when plugins are confined. */
  readonly limits?: LimitsInForce;
}

/**
 * Detects the mechanism `config` may use (none when its sandbox is off), asked when its
 * answer is needed (the returned function). Without `shown`, the probe process starts now,
 * and the app does its other work meanwhile. With `shown` (a confining step started ahead,
 * `sandboxAhead`), nothing starts now: when asked, a step that comes to run in its namespaces
 * stands in for the probe (`detectMechanismWhenAsked`), which runs only if it does not. A yes
 * an earlier start kept answers at once, unless `options.fresh` (namespaces-known.ts).
 */
export function detectSandbox(
  config: Pick<SandboxSettings, "sandbox">,
  env: Readonly<Record<string, string | undefined>> = process.env,
  shown?: () => Promise<boolean>,
  options: DetectOptions = {},
): () => Promise<Mechanism | undefined> {
  if (config.sandbox === "off") return () => Promise.resolve(undefined);
  if (shown !== undefined) return detectMechanismWhenAsked(env, shown, options);
  const detecting = detectMechanismAsync(env, options);
  // Awaited after the plugins are resolved, whose errors come first.
  detecting.catch(() => undefined);
  return () => detecting;
}

/**
 * The mechanism a confining step may start with before `detectSandbox` answers (its probe
 * still running), when the config may confine and nothing else rules the mechanism out; a
 * step started so is ended unused if the answer is no.
 */
export function sandboxAhead(config: Pick<SandboxSettings, "sandbox">, env: Readonly<Record<string, string | undefined>> = process.env): Pick<Extract<Mechanism, { available: true }>, "unshare"> | undefined {
  if (config.sandbox === "off") return undefined;
  const unshare = unshareAhead(env);
  return unshare === undefined ? undefined : { unshare };
}

/**
 * Decides the sandbox for `config` from what `detectSandbox` found; throws
 * `SANDBOX_UNAVAILABLE` for `required` on a system without the mechanism, and warns (once
 * per call) for `auto` there.
 */
export function sandboxState(config: SandboxSettings, logger: Logger, mechanism: Mechanism | undefined): SandboxState {
  if (config.sandbox === "off" || mechanism === undefined) return { mode: "off", mechanism: undefined, summary: `off ("sandbox": "off" in ${config.configPath})` };
  if (mechanism.available) return { mode: config.sandbox, mechanism, summary: mechanism.description, limits: limitsInForce(config.limits) };
  if (config.sandbox === "required") {
    throw sandboxErrors.unavailable(config.configPath, mechanism.missing);
  }
  logger.warn(`plugins run unconfined: this system lacks ${mechanism.missing} (set "sandbox": "required" to refuse to start without it)`);
  return { mode: "auto", mechanism: undefined, summary: `none: this system lacks ${mechanism.missing}; plugins run unconfined` };
}
