import { afterEach, describe, expect, test } from "bun:test";
import { waitFor } from "@plugboard/test-helpers";
import { startScriptedModel } from "@plugboard/testing";
import { bodyOf, chat, makeWorkspace, postChat } from "../test/helpers.ts";
import { startWebApp } from "./web-app.ts";

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function workspace(): Promise<string> {
  const ws = await makeWorkspace({ "notes.txt": "alpha\n", "src/app.ts": "export {};\n" });
  cleanups.push(ws.remove);
  return ws.dir;
}

const quiet = { debug() {}, info() {}, warn() {} };

describe("startWebApp", () => {
  test("builds the runtime and the client once; every request uses them", async () => {
    const model = await startScriptedModel([{ content: "one" }, { content: "two" }, { content: "three" }]);
    cleanups.push(() => model.close());
    const web = await startWebApp({ workspace: await workspace(), env: { BASE_URL: model.baseURL }, port: 0, logger: quiet });
    cleanups.push(() => web.close());
    expect(web.demo).toBe(false);
    const replies = [];
    for (const question of ["a", "b", "c"]) replies.push((await bodyOf(await postChat(web.server.url, chat(question)))).reply);
    expect(replies).toEqual(["one", "two", "three"]);
    expect(web.server.stats.turns).toBe(3);
    expect([...web.server.stats.runtimes]).toEqual([web.app.runtime]);
    expect([...web.server.stats.clients]).toEqual([web.client]);
    expect(web.app.registry.names()).toEqual(["read_file", "glob"]);
  });

  test("with no API key and no base URL the offline demo model answers", async () => {
    const web = await startWebApp({ workspace: await workspace(), env: {}, port: 0, logger: quiet });
    cleanups.push(() => web.close());
    expect(web.demo).toBe(true);
    const body = await bodyOf(await postChat(web.server.url, chat("list *")));
    expect(body.status).toBe("answered");
    expect(body.toolCalls?.map((call) => call.name)).toContain("glob");
    expect(body.reply).toContain("notes.txt");
  });

  test("the page's example prompts are requests the demo model answers with a tool call, and it is said to be the demo", async () => {
    const web = await startWebApp({ workspace: await workspace(), env: {}, port: 0, logger: quiet });
    cleanups.push(() => web.close());
    const info = (await (await fetch(`${web.server.url}/api/info`)).json()) as { demo: boolean; examples: string[] };
    expect(info.demo).toBe(true);
    expect(info.examples).toEqual(["read README.md", "read the first 5 lines of README.md", "list **/*.ts"]);
    for (const example of info.examples) {
      const body = await bodyOf(await postChat(web.server.url, chat(example)));
      expect({ example, calls: body.toolCalls?.length }).toEqual({ example, calls: 1 });
    }
  });

  test("close() aborts the model request in flight, answers 503 and stops listening", async () => {
    // A model endpoint that never answers and records when the client hangs up on it.
    let hungUp = 0;
    const endpoint = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      idleTimeout: 0,
      fetch: (request) =>
        new Promise<Response>((resolve) => {
          request.signal.addEventListener("abort", () => {
            hungUp++;
            resolve(new Response(null, { status: 499 }));
          });
        }),
    });
    cleanups.push(() => endpoint.stop(true));
    const web = await startWebApp({
      workspace: await workspace(),
      env: { BASE_URL: `http://127.0.0.1:${endpoint.port}/v1` },
      port: 0,
      logger: quiet,
    });
    const pending = postChat(web.server.url, chat("Take your time"));
    await waitFor("the model endpoint received the chat's request", () => endpoint.pendingRequests >= 1);
    expect(web.server.stats.inFlight).toBe(1);

    await web.close();
    const response = await pending;
    expect(response.status).toBe(503);
    expect((await bodyOf(response)).error).toContain("shutting down");
    await waitFor("the server hung up on the model endpoint's held request", () => hungUp >= 1);
    expect(web.server.stats).toMatchObject({ inFlight: 0, aborted: 1 });
    await expect(postChat(web.server.url, chat("again"))).rejects.toThrow();
  });

  test("close() ends the plugin hosts the app started, and so does a start that fails", async () => {
    const dir = await workspace();
    // Each confined plugin's host (and the `unshare` before it) names the workspace on its command line.
    const hostsRun = () => Bun.spawnSync(["pgrep", "-f", `"workspace":"${dir}"`]).stdout.toString().trim() !== "";
    const web = await startWebApp({ workspace: dir, env: {}, port: 0, logger: quiet });
    cleanups.push(() => web.close());
    expect(web.app.sandbox.confined).toEqual(["@plugboard/plugin-read-file", "@plugboard/plugin-glob"]);
    await waitFor("the app's plugin hosts run", hostsRun);
    await web.close();
    await waitFor("the plugin hosts ended with the web app", () => !hostsRun());

    await expect(startWebApp({ workspace: dir, env: {}, host: "0.0.0.0", port: 0, logger: quiet })).rejects.toMatchObject({
      code: "USAGE",
    });
    await waitFor("the plugin hosts of the refused start ended", () => !hostsRun());
  }, 20_000);

  test("config and plugin problems are PlugboardErrors, before anything listens", async () => {
    await expect(startWebApp({ configPath: "/nonexistent/plugboard.json", port: 0, logger: quiet })).rejects.toMatchObject({
      code: "CONFIG_NOT_FOUND",
    });
    await expect(startWebApp({ host: "0.0.0.0", port: 0, logger: quiet })).rejects.toMatchObject({ code: "USAGE" });
  });
});
