import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { awaitEscapeesCommand, ESCAPEE_COUNT, escapeesCommand, runningNamed, survivorsNamed, uniqueMarker, waitFor } from "@plugboard/test-helpers";
import { startScriptedModel } from "@plugboard/testing";
import { plugboard, spawnPlugboard, tempFolder, watch, writeConfig } from "./helpers.ts";

let dir = "";
let remove = async () => {};
let config = "";

beforeAll(async () => {
  ({ dir, remove } = await tempFolder({ "workspace/README.md": "# Demo\n" }));
  config = await writeConfig(dir);
});
afterAll(() => remove());

describe("plugboard (interactive)", () => {
  test("keeps the conversation across turns and quits on exit", async () => {
    await using model = await startScriptedModel([{ content: "first answer" }, { content: "second answer" }]);
    const result = await plugboard(["--config", config, "--base-url", model.baseURL], {
      cwd: dir,
      stdin: "hello\nand again\nexit\nnever sent\n",
    });
    expect(result.code).toBe(0);
    // No prompt from a pipe: stdout holds only the answers.
    expect(result.stdout).toBe("first answer\nsecond answer\n");
    expect(model.requests).toHaveLength(2);
    const messages = model.requests[1]?.body.messages?.map(({ role, content }) => ({ role, content }));
    expect(messages?.slice(1)).toEqual([
      { role: "user", content: "hello" },
      { role: "assistant", content: "first answer" },
      { role: "user", content: "and again" },
    ]);
    expect(messages?.[0]?.role).toBe("system");
  });

  test.each([["q\n"], ["\n"], [""]])("quits with 0 on %p", async (stdin) => {
    await using model = await startScriptedModel();
    const result = await plugboard(["--config", config, "--base-url", model.baseURL], { cwd: dir, stdin });
    expect(result.code).toBe(0);
    expect(model.requests).toHaveLength(0);
  });

  test("Ctrl-C cancels the turn in flight and the session goes on", async () => {
    await using model = await startScriptedModel([{ hang: true }, { content: "after the cancel" }]);
    const child = spawnPlugboard(["--config", config, "--base-url", model.baseURL], { cwd: dir });
    const output = watch(child);
    child.stdin.write("first\n");
    await child.stdin.flush();
    await model.waitForRequests(1);
    child.kill("SIGINT");
    await output.waitFor("stderr", "cancelled");
    child.stdin.write("second\nexit\n");
    await child.stdin.end();
    const result = await output.finished();
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("after the cancel");
    const roles = model.requests[1]?.body.messages?.map(({ role, content }) => `${role}:${String(content)}`);
    expect(roles?.slice(1)).toEqual(["user:first", "user:second"]);
  });

  test("Ctrl-C kills every process of the running bash command and the session goes on", async () => {
    const marker = uniqueMarker();
    const command = `${escapeesCommand(marker)}${awaitEscapeesCommand(marker)}touch ${marker}.started; sleep 300`;
    await using model = await startScriptedModel([
      { toolCalls: [{ name: "bash", arguments: { command } }] },
      { content: "after the cancel" },
    ]);
    const child = spawnPlugboard(["--config", config, "--base-url", model.baseURL], { cwd: dir });
    const output = watch(child);
    child.stdin.write("start a long command\n");
    await child.stdin.flush();
    const started = join(dir, `workspace/${marker}.started`);
    await waitFor("the command started its escapees", () => existsSync(started), { timeoutMs: 30_000 });
    // Each escapee creates its marker file just before it takes the marker's name: wait for the names too.
    await waitFor(`${ESCAPEE_COUNT} escapees run under their marker`, () => runningNamed(marker).length === ESCAPEE_COUNT);
    child.kill("SIGINT");
    await output.waitFor("stderr", "cancelled");
    child.stdin.write("second\nexit\n");
    await child.stdin.end();
    const result = await output.finished();
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("after the cancel");
    expect(await survivorsNamed(marker)).toEqual([]);
    // The cancelled call still got its tool message, so the history stays valid for the next turn.
    const second = model.requests[1]?.body.messages ?? [];
    expect(second.map(({ role }) => role)).toEqual(["system", "user", "assistant", "tool", "user"]);
    expect(String(second[3]?.content)).toMatch(/^Error: (Command cancelled|Cancelled before the tool finished)/);
  });

  test("Ctrl-C at the prompt quits with 130", async () => {
    await using model = await startScriptedModel([{ content: "answered" }]);
    const child = spawnPlugboard(["--config", config, "--base-url", model.baseURL], { cwd: dir });
    const output = watch(child);
    // Once a turn has been answered, the session waits for the next message.
    child.stdin.write("hello\n");
    await child.stdin.flush();
    await output.waitFor("stdout", "answered\n");
    child.kill("SIGINT");
    expect((await output.finished()).code).toBe(130);
  });

  test("an endpoint failure ends only that turn, which is left out of the history", async () => {
    await using model = await startScriptedModel([{ status: 400 }, { content: "fine now" }]);
    const result = await plugboard(["--config", config, "--base-url", model.baseURL], {
      cwd: dir,
      stdin: "one\ntwo\nexit\n",
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`Model endpoint ${model.baseURL} answered 400`);
    expect(result.stdout).toContain("fine now");
    const contents = model.requests[1]?.body.messages?.slice(1).map(({ content }) => content);
    expect(contents).toEqual(["two"]);
  });
});
