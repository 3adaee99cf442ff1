/**
 * The egress proxy on its own, on loopback: real HTTP and CONNECT clients against real local
 * servers. What the sandbox adds (the proxy being the only route out) is tested through the
 * CLI (apps/cli/test/network-narrowing.test.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Socket, connect } from "node:net";
import { type EgressRecord, refusalText, serveEgressProxy } from "./egress-proxy.ts";
import { NetworkRefusals } from "./network-refusals.ts";

/** Local servers, with their ports as numbers. */
let server: Bun.Server<undefined> & { port: number };
let other: Bun.Server<undefined> & { port: number };
let tls: Bun.TCPSocketListener<undefined>;
const withPort = <S extends { port: number | undefined }>(listening: S): S & { port: number } => {
  if (listening.port === undefined) throw new Error("the server has no port");
  return listening as S & { port: number };
};
/**
 * `size` bytes cycling through `period` values (byte i is `step * i % period`), filled natively:
 * mapping a 16 MiB array byte by byte costs about a second of CPU, five on a loaded machine.
 */
const cycling = (size: number, period: number, step = 1): Uint8Array =>
  Buffer.alloc(size, Uint8Array.from({ length: period }, (_, index) => (index * step) % period));

beforeAll(() => {
  server = withPort(Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (request) => new Response(`A ${new URL(request.url).pathname} ${request.headers.get("connection")} ${request.headers.get("host")}`) }));
  other = withPort(Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("B") }));
  // A stand-in for a TLS server: it answers the first bytes it gets, so a tunnel's bytes can be seen to pass unchanged.
  tls = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data: (socket, data) => void socket.write(`echo:${data.toString()}`) } });
});
afterAll(() => {
  server.stop(true);
  other.stop(true);
  tls.stop(true);
});

/** A proxy for `network`, its records, and a request through it. */
function proxy(network: string[], resolve?: (host: string) => Promise<readonly string[]>) {
  const records: EgressRecord[] = [];
  const served = serveEgressProxy({ port: 0, host: "127.0.0.1" }, { plugin: "p", network, onConnection: (record) => records.push(record), ...(resolve ? { resolve } : {}) });
  const port = () => {
    if (served.port === undefined) throw new Error("the proxy does not listen");
    return served.port;
  };
  return { records, port, close: () => served.close() };
}

/** Sends `head` (and then `after`, once the answer's first bytes came) and returns everything the proxy wrote until it closed. */
async function exchange(port: number, head: string, after?: string): Promise<string> {
  await new Promise((resolve) => setTimeout(resolve, 10));
  return await new Promise((resolve, reject) => {
    let text = "";
    const socket: Socket = connect({ host: "127.0.0.1", port }, () => socket.write(head));
    socket.on("data", (chunk) => {
      text += chunk.toString();
      if (after !== undefined && text.includes("\r\n\r\n") && !text.includes("echo:")) socket.write(after);
      if (text.includes("echo:")) socket.end();
    });
    socket.on("end", () => resolve(text));
    socket.on("error", reject);
  });
}

describe("egress proxy", () => {
  test("a listed host: plain HTTP is forwarded with Connection: close, and recorded as allowed", async () => {
    const { records, port, close } = proxy([`localhost:${server.port}`]);
    const answer = await exchange(port(), `GET http://localhost:${server.port}/path?q=1 HTTP/1.1\r\nHost: localhost:${server.port}\r\nProxy-Connection: keep-alive\r\n\r\n`);
    close();
    expect(answer).toStartWith("HTTP/1.1 200");
    expect(answer).toEndWith(`A /path close localhost:${server.port}`);
    expect(records).toEqual([
      expect.objectContaining({ event: "network", plugin: "p", host: "localhost", port: server.port, method: "GET", decision: "allow", rule: `localhost:${server.port}`, address: "127.0.0.1" }),
    ]);
  });

  test("a Host header naming another site is replaced by the admitted URL's: the list, not the header, says where a request goes", async () => {
    const { port, close } = proxy([`localhost:${server.port}`]);
    const answer = await exchange(port(), `GET http://localhost:${server.port}/x HTTP/1.1\r\nHost: exfiltrate.example\r\nhost: another.example\r\n\r\n`);
    close();
    expect(answer).toStartWith("HTTP/1.1 200");
    expect(answer).toEndWith(`A /x close localhost:${server.port}`);
  });

  test("a big answer and a big request body pass whole, the proxy reading no faster than the other side takes them", async () => {
    const big = cycling(8 * 1024 * 1024, 251);
    const echo = withPort(Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: async (request) => (request.method === "POST" ? new Response(await request.arrayBuffer()) : new Response(big)) }));
    const { port, close } = proxy([`127.0.0.1:${echo.port}`]);
    try {
      const through = { proxy: `http://127.0.0.1:${port()}`, keepalive: false };
      const down = new Uint8Array(await (await fetch(`http://127.0.0.1:${echo.port}/`, through)).arrayBuffer());
      expect(down.byteLength).toBe(big.byteLength);
      expect(Bun.hash(down)).toBe(Bun.hash(big));
      const up = new Uint8Array(await (await fetch(`http://127.0.0.1:${echo.port}/`, { ...through, method: "POST", body: big })).arrayBuffer());
      expect(Bun.hash(up)).toBe(Bun.hash(big));
    } finally {
      close();
      echo.stop(true);
    }
  });

  test("CONNECT: a byte tunnel to the listed host, never terminated", async () => {
    const { records, port, close } = proxy([`localhost:${tls.port}`]);
    const answer = await exchange(port(), `CONNECT localhost:${tls.port} HTTP/1.1\r\nHost: localhost:${tls.port}\r\n\r\n`, "\x16\x03\x01client-hello");
    close();
    expect(answer).toBe("HTTP/1.1 200 Connection established\r\n\r\necho:\x16\x03\x01client-hello");
    expect(records).toEqual([expect.objectContaining({ method: "CONNECT", decision: "allow" })]);
  });

  test("a host or port not listed: 403 with the refusal text, recorded as denied, and nothing reaches the server", async () => {
    const { records, port, close } = proxy([`localhost:${server.port}`]);
    const otherPort = await exchange(port(), `GET http://localhost:${other.port}/ HTTP/1.1\r\nHost: x\r\n\r\n`);
    const otherHost = await exchange(port(), `CONNECT 127.0.0.2:${server.port} HTTP/1.1\r\n\r\n`);
    close();
    expect(otherPort).toStartWith("HTTP/1.1 403 Forbidden");
    expect(otherPort).toEndWith(`\r\n\r\n${refusalText(`localhost:${other.port}`, "p")}\n`);
    expect(otherHost).toEndWith(`${refusalText(`127.0.0.2:${server.port}`, "p")}\n`);
    expect(refusalText("h:1", "p")).toBe('Plugboard: network to h:1 is not granted to p (add it to "network" in the config)');
    expect(records.map(({ decision, host, port }) => [decision, host, port])).toEqual([
      ["deny", "localhost", other.port],
      ["deny", "127.0.0.2", server.port],
    ]);
  });

  test("a name matched by *.domain that resolves to a loopback, private or metadata address is refused; listed literally it is admitted", async () => {
    const resolve = async (host: string) => (host === "mixed.example.test" ? ["203.0.113.7", "169.254.169.254"] : ["127.0.0.1"]);
    const wildcard = proxy(["*.example.test"], resolve);
    const loopback = await exchange(wildcard.port(), `GET http://inside.example.test:${server.port}/ HTTP/1.1\r\n\r\n`);
    const mixed = await exchange(wildcard.port(), `CONNECT mixed.example.test:443 HTTP/1.1\r\n\r\n`);
    wildcard.close();
    expect(loopback).toStartWith("HTTP/1.1 403");
    expect(mixed).toStartWith("HTTP/1.1 403");
    expect(wildcard.records.map(({ reason }) => reason)).toEqual([
      "inside.example.test resolves to 127.0.0.1, a loopback address, which only a host listed by its exact name may reach",
      "mixed.example.test resolves to 169.254.169.254, a link-local (cloud metadata) address, which only a host listed by its exact name may reach",
    ]);

    const literal = proxy([`inside.example.test:${server.port}`], resolve);
    const admitted = await exchange(literal.port(), `GET http://inside.example.test:${server.port}/x HTTP/1.1\r\nHost: inside.example.test\r\n\r\n`);
    literal.close();
    // The name resolves nowhere for the system: the proxy connected to the address it checked, not to a second lookup's.
    expect(admitted).toEndWith(`A /x close inside.example.test:${server.port}`);
    expect(literal.records).toEqual([expect.objectContaining({ decision: "allow", address: "127.0.0.1" })]);
  });

  test("a name refused for the local address it resolves to is no host to offer as a grant; one not in the list is", async () => {
    const resolve = async () => ["127.0.0.1"];
    const refusals = new NetworkRefusals();
    const served = serveEgressProxy({ port: 0, host: "127.0.0.1" }, { plugin: "p", network: ["*.example.test"], resolve, onConnection: (record) => refusals.record(record) });
    const since = Date.now() - 1000;
    const port = served.port ?? 0;
    // Granting inside.example.test by name would let it reach 127.0.0.1: it is not among the refused hosts.
    expect(await exchange(port, `GET http://inside.example.test:${server.port}/ HTTP/1.1\r\n\r\n`)).toStartWith("HTTP/1.1 403");
    expect(await exchange(port, `GET http://elsewhere.test:${server.port}/ HTTP/1.1\r\n\r\n`)).toStartWith("HTTP/1.1 403");
    served.close();
    expect(refusals.since("p", since)).toEqual([`elsewhere.test:${server.port}`]);
  });

  test("an address literal is checked like a name: 127.0.0.1 admitted only when listed as such", async () => {
    const { records, port, close } = proxy(["*.example.test", `127.0.0.1:${server.port}`]);
    const answer = await exchange(port(), `GET http://127.0.0.1:${server.port}/ok HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    const mapped = await exchange(port(), `GET http://[::ffff:127.0.0.1]:${server.port}/ HTTP/1.1\r\n\r\n`);
    close();
    expect(answer).toEndWith(`A /ok close 127.0.0.1:${server.port}`);
    expect(mapped).toStartWith("HTTP/1.1 403");
    expect(records.map(({ decision }) => decision)).toEqual(["allow", "deny"]);
  });

  test("a listed host nothing answers on: 502 naming the address, and one record, admitted, with the reason", async () => {
    const closed = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data: () => {} } });
    const port = closed.port;
    closed.stop(true);
    const { records, port: proxyPort, close } = proxy([`127.0.0.1:${port}`]);
    const answer = await exchange(proxyPort(), `CONNECT 127.0.0.1:${port} HTTP/1.1\r\n\r\n`);
    close();
    expect(answer).toStartWith("HTTP/1.1 502 Bad Gateway");
    expect(answer).toEndWith(`Plugboard: 127.0.0.1:${port} (127.0.0.1) could not be reached (ECONNREFUSED)\n`);
    expect(records).toEqual([expect.objectContaining({ decision: "allow", address: "127.0.0.1", reason: `127.0.0.1:${port} (127.0.0.1) could not be reached (ECONNREFUSED)` })]);
  });

  test("what is not a proxy request is a 400 naming what the proxy takes", async () => {
    const { port, close } = proxy(["localhost"]);
    const origin = await exchange(port(), "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n");
    close();
    expect(origin).toStartWith("HTTP/1.1 400");
    expect(origin).toContain("forwards http:// URLs (and https through CONNECT)");
  });
});

/** Opens a CONNECT tunnel to `port` through the proxy at `proxyPort`; resolves with the socket once the proxy said 200. */
async function tunnel(proxyPort: number, port: number): Promise<Socket> {
  return await new Promise((resolve, reject) => {
    const socket: Socket = connect({ host: "127.0.0.1", port: proxyPort, allowHalfOpen: true }, () => socket.write(`CONNECT 127.0.0.1:${port} HTTP/1.1\r\n\r\n`));
    socket.once("data", (chunk) => {
      if (chunk.toString() !== "HTTP/1.1 200 Connection established\r\n\r\n") reject(new Error(`the proxy answered ${chunk.toString()}`));
      else resolve(socket);
    });
    socket.once("error", reject);
  });
}

describe("egress proxy: the relay", () => {
  /** A server that, once its client has ended its side, answers how many bytes it got and their hash, then ends. */
  let counter: Bun.TCPSocketListener<{ bytes: number; hash: Bun.CryptoHasher }>;
  beforeAll(() => {
    counter = Bun.listen<{ bytes: number; hash: Bun.CryptoHasher }>({
      hostname: "127.0.0.1",
      port: 0,
      allowHalfOpen: true,
      socket: {
        open: (socket) => {
          socket.data = { bytes: 0, hash: new Bun.CryptoHasher("sha256") };
        },
        data: (socket, data) => {
          socket.data.bytes += data.byteLength;
          socket.data.hash.update(data);
        },
        end: (socket) => void socket.end(`${socket.data.bytes} ${socket.data.hash.digest("hex")}`),
      },
    });
  });
  afterAll(() => counter.stop(true));

  for (const size of [1000, 8 * 1024 * 1024]) {
    test(`the client's end passes through once its ${size} bytes are out, and the server's answer still comes back (half-close)`, async () => {
      const { port, close } = proxy([`127.0.0.1:${counter.port}`]);
      try {
        const socket = await tunnel(port(), counter.port);
        const sent = cycling(size, 256, 7);
        const answer = await new Promise<string>((resolve, reject) => {
          let text = "";
          socket.on("data", (chunk) => {
            text += chunk.toString();
          });
          socket.on("end", () => resolve(text));
          socket.on("error", reject);
          socket.end(sent);
        });
        expect(answer).toBe(`${size} ${new Bun.CryptoHasher("sha256").update(sent).digest("hex")}`);
      } finally {
        close();
      }
    });
  }

  test("a download read slowly passes whole: the proxy waits for the reader, through the hand-over to the bulk relay", async () => {
    const big = cycling(16 * 1024 * 1024, 253);
    const origin = withPort(Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(big) }));
    const { port, close } = proxy([`127.0.0.1:${origin.port}`]);
    try {
      const response = await fetch(`http://127.0.0.1:${origin.port}/`, { proxy: `http://127.0.0.1:${port()}`, keepalive: false });
      const hash = new Bun.CryptoHasher("sha256");
      let bytes = 0;
      for await (const chunk of response.body ?? []) {
        hash.update(chunk);
        bytes += chunk.byteLength;
        // A reader slower than the proxy: every few chunks it stops, and the proxy's writes to it would block.
        if (bytes % 5 === 0) await Bun.sleep(5);
      }
      expect(bytes).toBe(big.byteLength);
      expect(hash.digest("hex")).toBe(new Bun.CryptoHasher("sha256").update(big).digest("hex"));
    } finally {
      close();
      origin.stop(true);
    }
  });
});
