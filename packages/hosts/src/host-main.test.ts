/**
 * The host program's first line, for real: `bun host-program.ts SPEC` with a pipe for its
 * stdin, as the app starts it (unconfined here: what is tested is how it reads its token).
 * The token is read at once, byte by byte, and the protocol's later lines are the stream's.
 */
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HOST_SOURCE } from "./program.ts";
import { type HostSpec, protocolLine } from "./protocol.ts";

// A host from its sources: a second or so alone, far more when the suite shares two cores.
setDefaultTimeout(30_000);

const workspace = mkdtempSync(join(tmpdir(), "plugboard-host-main-"));
afterAll(() => rmSync(workspace, { recursive: true, force: true }));

const TOKEN = `${crypto.randomUUID()} `;

/** A program that makes the host's stdin non-blocking before it runs (preloaded). */
const NON_BLOCKING = join(import.meta.dir, "../test/stdin-nonblocking.ts");

/** A host of no plugins (lazy: it answers `ready` at once), its stdin a pipe the test writes; `nonBlocking`: that pipe O_NONBLOCK. */
function startHost(nonBlocking = false) {
  const spec: HostSpec = { plugins: [], workspace, lazy: true };
  const preload = nonBlocking ? ["--preload", NON_BLOCKING] : [];
  return Bun.spawn([process.execPath, ...preload, HOST_SOURCE, JSON.stringify(spec)], { stdin: "pipe", stdout: "pipe", stderr: "pipe" });
}

/** Everything the host wrote on its stdout, once it has exited, as lines. */
async function linesOf(host: ReturnType<typeof startHost>): Promise<string[]> {
  const [stdout, code] = await Promise.all([new Response(host.stdout).text(), host.exited]);
  expect(code).toBe(0);
  return stdout.split("\n").filter((line) => line !== "");
}

test("the token and the first request in one write: the host answers both, under the token", async () => {
  const host = startHost();
  host.stdin.write(`${TOKEN}\n${protocolLine("", { type: "writes", id: 1, tool: "nothing", args: {} })}`);
  await host.stdin.flush();
  // Its answer to the request is the sign that the line after the token was not taken with it; then the app hangs up.
  let seen = "";
  for await (const chunk of host.stdout) {
    seen += new TextDecoder().decode(chunk);
    if (seen.includes('"id":1')) host.stdin.end();
  }
  expect(await host.exited).toBe(0);
  const lines = seen.split("\n").filter((line) => line !== "");
  expect(lines).toEqual([
    `${TOKEN}${JSON.stringify({ type: "ready", listing: { plugins: [] } })}`,
    `${TOKEN}${JSON.stringify({ type: "thrown", id: 1, error: { name: "Error", message: "this host has no tool nothing" } })}`,
  ]);
});

test.each([
  ["blocking, as the app makes it", false],
  ["non-blocking, as an earlier reader can leave it", true],
])("a token written in two parts, the second later, is read whole: stdin %s", async (_, nonBlocking) => {
  const host = startHost(nonBlocking);
  host.stdin.write(TOKEN.slice(0, 10));
  await host.stdin.flush();
  await Bun.sleep(300);
  host.stdin.write(`${TOKEN.slice(10)}\n`);
  await host.stdin.flush();
  await Bun.sleep(300);
  host.stdin.end();
  expect(await linesOf(host)).toEqual([`${TOKEN}${JSON.stringify({ type: "ready", listing: { plugins: [] } })}`]);
});

test("an app that hangs up before the token gets no answer: the host exits 0", async () => {
  const host = startHost();
  host.stdin.end();
  expect(await linesOf(host)).toEqual([]);
});
