/**
 * What the app tells a plugin host to load (one JSON argument), and how a host reports a
 * plugin that fails to load: one marked line on stderr carrying the bootstrap's error, so
 * the app shows the same message it would for an unconfined plugin.
 */
import { PlugboardError, type PlugboardErrorCode } from "../errors.ts";
import type { ResolvedPlugin } from "../resolve-plugin.ts";

/** The plugin a host loads, already located, its manifest read and checked by the app. */
export interface HostSpec {
  readonly resolved: ResolvedPlugin;
  readonly workspace: string;
}

const ERROR_MARKER = "plugboard-host-error ";

/** The stderr line a host writes for a person-facing failure. */
export function hostErrorLine(error: PlugboardError): string {
  return `${ERROR_MARKER}${JSON.stringify({ code: error.code, message: error.message })}\n`;
}

/** The failure a host reported among its last stderr lines, if any. */
export function hostErrorIn(lines: readonly string[]): PlugboardError | undefined {
  for (const line of [...lines].reverse()) {
    if (!line.startsWith(ERROR_MARKER)) continue;
    const { code, message } = JSON.parse(line.slice(ERROR_MARKER.length)) as { code: PlugboardErrorCode; message: string };
    return new PlugboardError(code, message);
  }
  return undefined;
}
