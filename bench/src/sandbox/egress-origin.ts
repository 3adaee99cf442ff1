/**
 * The origin server of the egress proxy's benchmark (egress.ts), in a process of its own so
 * that it does not share the proxy's event loop: `/big` answers 1 MiB, `/small` two bytes.
 * Prints its port, then serves until killed.
 */
const BIG = new Uint8Array(1024 * 1024).fill(0x61);
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: (request) => new Response(new URL(request.url).pathname === "/big" ? BIG : "ok"),
});
process.stdout.write(`${server.port}\n`);
export {};
