/**
 * The origin server of the egress proxy's benchmark (egress.ts), in a process of its own so
 * that it does not share the proxy's event loop: `/big` answers 64 MiB (made once), `/small`
 * two bytes. Prints its port, then serves until killed.
 */
/** The big answer's size: enough that a connection's set-up is lost in the transfer. */
export const BIG_BYTES = 64 * 1024 * 1024;

if (import.meta.main) {
  const big = new Uint8Array(BIG_BYTES).fill(0x61);
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (request) => new Response(new URL(request.url).pathname === "/big" ? big : "ok"),
  });
  process.stdout.write(`${server.port}\n`);
}
