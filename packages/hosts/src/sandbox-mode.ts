/**
 * Which plugins run confined, decided once per app from the config's `sandbox` key and
 * what the kernel offers: `auto` confines where it can and otherwise says once that it
 * runs unconfined; `required` refuses to start without the mechanism; `off` never confines.
 */
import type { Logger } from "@plugboard/core";
import { PlugboardError } from "@plugboard/config/errors";
import { detectMechanismAsync, type LimitsInForce, limitsInForce, type Mechanism } from "@plugboard/sandbox";
import type { AppConfig } from "@plugboard/config";

/** The sandbox in force, as `plugboard check` reports it. */
export interface SandboxState {
  readonly mode: AppConfig["sandbox"];
  /** The mechanism when plugins are confined by it; undefined when they are not. */
  readonly mechanism: Extract<Mechanism, { available: true }> | undefined;
  /** One line: the mechanism in use, or why there is none. */
  readonly summary: string;
  /** The config's limits as this machine enforces them, when plugins are confined. */
  readonly limits?: LimitsInForce;
}

/**
 * Starts detecting the mechanism `config` may use (none when its sandbox is off): a probe
 * process the app awaits later, doing its other work meanwhile.
 */
export function detectSandbox(config: AppConfig, env: Readonly<Record<string, string | undefined>> = process.env): Promise<Mechanism | undefined> {
  if (config.sandbox === "off") return Promise.resolve(undefined);
  const detecting = detectMechanismAsync(env);
  // Awaited after the plugins are resolved, whose errors come first.
  detecting.catch(() => undefined);
  return detecting;
}

/**
 * Decides the sandbox for `config` from what `detectSandbox` found; throws
 * `SANDBOX_UNAVAILABLE` for `required` on a system without the mechanism, and warns (once
 * per call) for `auto` there.
 */
export function sandboxState(config: AppConfig, logger: Logger, mechanism: Mechanism | undefined): SandboxState {
  if (config.sandbox === "off" || mechanism === undefined) return { mode: "off", mechanism: undefined, summary: `off ("sandbox": "off" in ${config.configPath})` };
  if (mechanism.available) return { mode: config.sandbox, mechanism, summary: mechanism.description, limits: limitsInForce(config.limits) };
  if (config.sandbox === "required") {
    throw new PlugboardError(
      "SANDBOX_UNAVAILABLE",
      `The config requires the sandbox ("sandbox": "required" in ${config.configPath}), but this system lacks ${mechanism.missing}.\n` +
        `Run Plugboard on a Linux kernel with Landlock, seccomp filters and unprivileged user namespaces, or set "sandbox": "auto" to run plugins unconfined there.`,
    );
  }
  logger.warn(`plugins run unconfined: this system lacks ${mechanism.missing} (set "sandbox": "required" to refuse to start without it)`);
  return { mode: "auto", mechanism: undefined, summary: `none: this system lacks ${mechanism.missing}; plugins run unconfined` };
}
