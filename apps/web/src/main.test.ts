import { afterEach, describe, expect, test } from "bun:test";
import { startScriptedModel } from "@plugboard/testing";
import { bodyOf, chat, makeWorkspace, postChat } from "../test/helpers.ts";
import { spawnWeb, type WebProcess } from "../test/process.ts";

const cleanups: (() => Promise<unknown> | undefined)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function workspace(): Promise<string> {
  const ws = await makeWorkspace({ "notes.txt": "alpha\n" });
  cleanups.push(ws.remove);
  return ws.dir;
}

/** Each test starts real processes (bun transpiling the app at start): seconds when both cores are busy. */
const TIMEOUT = 30_000;

function track(web: WebProcess): WebProcess {
  cleanups.push(async () => {
    if (web.proc.exitCode === null) web.proc.kill("SIGKILL");
  });
  return web;
}

describe("bun run web (the real process)", () => {
  test("--help prints the flags and exits 0", async () => {
    const web = track(spawnWeb(["--help"]));
    expect(await web.exited).toBe(0);
    const help = await new Response(web.proc.stdout).text();
    for (const flag of ["--port", "--host", "--config", "--workspace", "--token", "PLUGBOARD_WEB_TOKEN"]) expect(help).toContain(flag);
  }, TIMEOUT);

  test("bad usage and a missing config exit 2 with a message", async () => {
    const unknown = track(spawnWeb(["--colour"]));
    expect(await unknown.exited).toBe(2);
    expect(unknown.stderr()).toContain("--colour");
    const port = track(spawnWeb(["--port", "http"]));
    expect(await port.exited).toBe(2);
    expect(port.stderr()).toContain('--port must be a whole number from 0 to 65535, got "http"\nRun "bun run web --help" for the options.\n');
    const config = track(spawnWeb(["--config", "missing.json", "--port", "0"], {}, await workspace()));
    expect(await config.exited).toBe(2);
    expect(config.stderr()).toContain("missing.json");
  }, TIMEOUT);

  test("without a key it says on stderr that the demo model answers, and serves from the current folder", async () => {
    const dir = await workspace();
    const web = track(spawnWeb(["--port", "0"], {}, dir));
    const url = await web.listening;
    expect(web.stderr()).toContain("offline demo model");
    expect(web.stderr()).toContain(`Workspace: ${dir}`);
    const body = await bodyOf(await postChat(url, chat("read notes.txt")));
    expect(body.toolCalls).toEqual([{ name: "read_file", arguments: '{"path":"notes.txt"}', isError: false }]);
    expect(body.reply).toContain("alpha");
    web.proc.kill("SIGINT");
    expect(await web.exited).toBe(0);
  }, TIMEOUT);

  test("a config in any folder naming a first-party plugin by package uses the app's own copy; the model in use is said", async () => {
    const ws = await makeWorkspace({
      "notes.txt": "alpha\n",
      "plugboard.config.json": JSON.stringify({ plugins: [{ package: "@plugboard/plugin-read-file", permissions: ["fs.read"] }] }),
    });
    cleanups.push(ws.remove);
    const model = await startScriptedModel([{ toolCalls: [{ name: "read_file", arguments: { path: "notes.txt" } }] }, { content: "It says alpha." }]);
    cleanups.push(() => model.close());
    const web = track(spawnWeb(["--port", "0", "--config", "plugboard.config.json"], { BASE_URL: model.baseURL, MODEL: "tiny-model" }, ws.dir));
    const url = await web.listening;
    expect(web.stderr()).toContain(`Model: tiny-model at ${model.baseURL}`);
    expect(web.stderr()).toContain("Tools: read_file");
    const body = await bodyOf(await postChat(url, chat("what is in notes.txt?")));
    expect(body).toMatchObject({ reply: "It says alpha.", toolCalls: [{ name: "read_file", isError: false }] });
    web.proc.kill("SIGTERM");
    expect(await web.exited).toBe(0);
  }, TIMEOUT);

  test("SIGTERM aborts the request in flight, and the process exits 0", async () => {
    const model = await startScriptedModel([{ hang: true }]);
    cleanups.push(() => model.close());
    const web = track(spawnWeb(["--port", "0", "--workspace", await workspace()], { BASE_URL: model.baseURL }));
    const url = await web.listening;
    expect(web.stderr()).not.toContain("demo model");
    const pending = postChat(url, chat("Take your time"));
    await model.waitForRequests(1);

    web.proc.kill("SIGTERM");
    const response = await pending;
    expect(response.status).toBe(503);
    expect((await bodyOf(response)).error).toContain("shutting down");
    expect(await web.exited).toBe(0);
    expect(web.stderr()).toContain("SIGTERM: stopping (aborting 1 turn in flight)");
  }, TIMEOUT);

  test("with a token from the environment it may listen beyond loopback, and the API requires the token", async () => {
    const model = await startScriptedModel([{ content: "Hello." }]);
    cleanups.push(() => model.close());
    const env = { BASE_URL: model.baseURL, PLUGBOARD_WEB_TOKEN: "tok-123" };
    const web = track(spawnWeb(["--port", "0", "--host", "0.0.0.0", "--workspace", await workspace()], env));
    const listening = await web.listening;
    const url = listening.replace("0.0.0.0", "127.0.0.1");
    expect((await postChat(url, chat("hi"))).status).toBe(401);
    const response = await postChat(url, chat("hi"), { authorization: "Bearer tok-123" });
    expect(await bodyOf(response)).toMatchObject({ reply: "Hello.", status: "answered" });
    web.proc.kill("SIGTERM");
    expect(await web.exited).toBe(0);
  }, TIMEOUT);

  test("an endpoint's error message on stderr has its control characters written out", async () => {
    const hostile = "bad request\u001b]52;c;cm0gLXJmIH4K\u0007\u001b]0;owned\u0007\u001b[2J";
    const model = await startScriptedModel([{ status: 400, body: { error: { message: hostile, type: "invalid_request_error", param: null, code: null } } }]);
    cleanups.push(() => model.close());
    const web = track(spawnWeb(["--port", "0", "--workspace", await workspace()], { BASE_URL: model.baseURL }));
    const url = await web.listening;
    const response = await postChat(url, chat("hi"));
    expect(response.status).toBe(502);
    // The page's JSON carries the message exactly; the terminal gets it written out.
    expect((await bodyOf(response)).error).toContain(hostile);
    // Read once the process has ended: the line is written as the answer goes, and may come after it.
    web.proc.kill("SIGTERM");
    expect(await web.exited).toBe(0);
    expect(web.stderr()).toContain("bad request\\x1b]52;c;cm0gLXJmIH4K\\x07\\x1b]0;owned\\x07\\x1b[2J");
    expect(web.stderr()).not.toContain("\u001b");
  }, TIMEOUT);
});
