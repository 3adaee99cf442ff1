/**
 * The connections the egress proxies refused lately, by plugin, so that a call's result can
 * end with the hint naming each host the call was refused (refusal-hint.ts): a refusal the
 * command's own output may not show (an HTTPS tunnel's 403, which curl reports only as
 * `CONNECT tunnel failed, response 403`).
 */
import type { EgressRecord } from "./egress-proxy.ts";
import { hostAndPort, NOT_LISTED } from "./egress-rules.ts";

/** How many refusals are kept, all plugins together. */
const KEPT = 200;

export class NetworkRefusals {
  readonly #refused: { plugin: string; host: string; at: number }[] = [];

  /**
   * Takes note of `record` when it is a refusal of a host not in the list: one refused for the
   * address it resolved to (a loopback, private or link-local one) is no host to grant, since a
   * host the list names is let reach such addresses.
   */
  record(record: EgressRecord): void {
    if (record.decision !== "deny" || record.reason !== NOT_LISTED) return;
    this.#refused.push({ plugin: record.plugin, host: hostAndPort(record.host, record.port), at: Date.parse(record.ts) });
    if (this.#refused.length > KEPT) this.#refused.shift();
  }

  /** The hosts refused to `plugin` since `since` (a `Date.now()` time), each once, in order. */
  since(plugin: string, since: number): string[] {
    return [...new Set(this.#refused.filter((entry) => entry.plugin === plugin && entry.at >= since).map(({ host }) => host))];
  }
}
