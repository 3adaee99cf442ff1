/**
 * The calls one `plugboard mcp --http` copy is running, keyed by the client's session and
 * the request's id, so a cancellation reaches only the call of the client that sent it.
 * A cancellation for a call not running here is forwarded once to the peers (the other
 * copies behind the same balancer), which cancel it if it runs there and forward nothing.
 */

/** The header a forwarded cancellation carries, so the peer that gets it forwards it no further. */
export const FORWARDED_HEADER = "plugboard-forwarded";

/** The header naming a client's session (issued by the copy that answered its `initialize`). */
export const SESSION_HEADER = "mcp-session-id";

export interface PeerOptions {
  /** The other copies' `/mcp` URLs (this copy's own may be among them: it is asked too, harmlessly). */
  readonly peers?: readonly URL[];
  /** Sent to the peers as `Authorization: Bearer TOKEN`: the copies share one. */
  readonly token?: string;
  /** Told when a peer could not be reached. */
  readonly onPeerError?: (message: string) => void;
}

type RequestId = string | number;

export class InFlightCalls {
  readonly #calls = new Map<string, AbortController>();
  readonly #options: PeerOptions;

  constructor(options: PeerOptions = {}) {
    this.#options = options;
  }

  /** Registers the call `id` of `session`, ended through `controller`; the returned function forgets it. */
  track(session: string, id: RequestId, controller: AbortController): () => void {
    const key = keyOf(session, id);
    this.#calls.set(key, controller);
    return () => {
      if (this.#calls.get(key) === controller) this.#calls.delete(key);
    };
  }

  /**
   * Cancels the call `id` of `session` if it runs here; otherwise, unless the cancellation
   * was itself forwarded, asks every peer to. Resolves when the peers have answered.
   */
  async cancel(session: string, id: RequestId, options: { readonly forwarded: boolean; readonly reason?: string }): Promise<void> {
    const controller = this.#calls.get(keyOf(session, id));
    if (controller !== undefined) {
      controller.abort(options.reason ?? "cancelled by the client");
      return;
    }
    if (options.forwarded) return;
    await Promise.all((this.#options.peers ?? []).map((peer) => this.#forward(peer, session, id, options.reason)));
  }

  async #forward(peer: URL, session: string, id: RequestId, reason: string | undefined): Promise<void> {
    const headers: Record<string, string> = { "content-type": "application/json", [SESSION_HEADER]: session, [FORWARDED_HEADER]: "cancel" };
    if (this.#options.token !== undefined) headers.authorization = `Bearer ${this.#options.token}`;
    const body = JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, ...(reason === undefined ? {} : { reason }) } });
    try {
      const response = await fetch(peer, { method: "POST", headers, body, signal: AbortSignal.timeout(5000) });
      await response.body?.cancel();
      if (!response.ok) this.#options.onPeerError?.(`peer ${peer.href} refused a forwarded cancellation: HTTP ${response.status}`);
    } catch (error) {
      this.#options.onPeerError?.(`could not forward a cancellation to peer ${peer.href}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

function keyOf(session: string, id: RequestId): string {
  return `${session} ${JSON.stringify(id)}`;
}
