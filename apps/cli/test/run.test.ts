import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { fileURLToPath } from "node:url";
import { recordedStream, startScriptedModel } from "@plugboard/testing";
import { type Finished, STACK_FRAME, finished, plugboard, spawnPlugboard, tempFolder, writeConfig } from "./helpers.ts";

const README = "# Demo project\nsecond line\nthird line\n";
let dir = "";
let remove = async () => {};
let config = "";

beforeAll(async () => {
  ({ dir, remove } = await tempFolder({ "workspace/README.md": README, "workspace/src/a.ts": "export {};\n" }));
  config = await writeConfig(dir);
});
afterAll(() => remove());

function run(args: string[], baseURL: string, env: Record<string, string> = {}, stdin?: string): Promise<Finished> {
  return plugboard(["run", "--config", config, "--base-url", baseURL, ...args], {
    cwd: dir,
    env,
    ...(stdin === undefined ? {} : { stdin }),
  });
}

/** The one line on stderr after the model line that every run against an endpoint starts with. */
function oneLine(stderr: string, baseURL?: string): string {
  const all = stderr.trim().split("\n");
  if (baseURL !== undefined) expect(all[0]).toBe(`plugboard: model gpt-4.1-mini at ${baseURL} (dialect openai)`);
  const lines = baseURL === undefined ? all : all.slice(1);
  expect(lines).toHaveLength(1);
  expect(stderr).not.toContain(STACK_FRAME);
  return lines[0] ?? "";
}

const EMPTY =
  "the model answered with neither text nor a tool call; check that the model and endpoint support tool calls (MODEL or --model, BASE_URL or --base-url)";

describe("plugboard run", () => {
  test("reads a file through the model's tool call, traces it and prints the answer", async () => {
    await using model = await startScriptedModel([
      { toolCalls: [{ id: "call_readme", name: "read_file", arguments: { path: "README.md", limit: 1 } }] },
      { content: "The project is called Demo." },
    ]);
    const result = await run(["What is this project?"], model.baseURL);
    expect(result).toMatchObject({ code: 0, stdout: "The project is called Demo.\n" });
    expect(result.stderr).toContain('[tool] read_file {"path":"README.md","limit":1} → # Demo project');

    const [first, second] = model.requests;
    expect(first?.body.stream).toBe(true);
    expect(first?.body.messages?.map((message) => message.role)).toEqual(["system", "user"]);
    expect(first?.body.messages?.[1]?.content).toBe("What is this project?");
    const toolMessage = second?.body.messages?.find((message) => message.role === "tool");
    expect(toolMessage?.tool_call_id).toBe("call_readme");
    expect(String(toolMessage?.content)).toStartWith("# Demo project");

    const tools = await plugboard(["tools", "--json", "--config", config], { cwd: dir });
    expect(tools.code).toBe(0);
    expect(JSON.parse(tools.stdout)).toEqual(first?.body.tools ?? []);
    expect((first?.body.tools ?? []).length).toBe(5);
  });

  test("--json prints one event per line and no trace", async () => {
    await using model = await startScriptedModel([
      {
        toolCalls: [
          { id: "c1", name: "glob", arguments: { pattern: "**/*.ts" } },
          { id: "c2", name: "read_file", arguments: { path: "missing.txt" } },
        ],
      },
      { content: "done" },
    ]);
    const result = await run(["--json", "look around"], model.baseURL);
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain("[tool]");
    const events = result.stdout.trim().split("\n").map((line) => JSON.parse(line));
    // Two read-only calls run together: both start, then their results come in call order.
    expect(events.slice(0, 4)).toEqual([
      { type: "tool_call", id: "c1", name: "glob", arguments: '{"pattern":"**/*.ts"}' },
      { type: "tool_call", id: "c2", name: "read_file", arguments: '{"path":"missing.txt"}' },
      { type: "tool_result", id: "c1", is_error: false, content: "src/a.ts" },
      { type: "tool_result", id: "c2", is_error: true, content: expect.stringMatching(/^Error: /) },
    ]);
    expect(events[4]).toEqual({ type: "final", status: "answered", text: "done", steps: 2, duration_ms: expect.any(Number), usage: { prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number) } });
    expect(events).toHaveLength(5);
  });

  test("Mistral's tool calls (no index, no type) are executed, end to end", async () => {
    await using model = await startScriptedModel([await recordedStream("mistral-tool-calls"), { content: "Two calls made." }]);
    const result = await run(["What does notes.txt say?"], model.baseURL);
    expect(result).toMatchObject({ code: 0, stdout: "Two calls made.\n" });
    expect(result.stderr).toContain('[tool] read_file {"path": "notes.txt"} → Error: File not found: notes.txt');
    expect(result.stderr).toContain('[tool] glob {"pattern": "*.txt"} → (no matches)');
    const toolMessages = model.requests[1]?.body.messages?.filter((message) => message.role === "tool");
    expect(toolMessages?.map((message) => message.tool_call_id)).toEqual(["k3Xq9TzR2", "Bv7LmW0pQ"]);
  });

  test("Mistral's reasoning models (content as thinking and text chunks) answer, end to end", async () => {
    const chunk = (content: unknown) => ({ id: "c", object: "chat.completion.chunk", model: "magistral", choices: [{ index: 0, delta: { content } }] });
    await using model = await startScriptedModel([
      { replay: [chunk([{ type: "thinking", thinking: [{ type: "text", text: "A greeting; " }] }]), chunk([{ type: "thinking", thinking: [{ type: "text", text: "answer it." }] }]), chunk([{ type: "text", text: "Hello!" }])] },
    ]);
    const result = await run(["--json", "hi"], model.baseURL);
    expect(result.code).toBe(0);
    const events = result.stdout.trim().split("\n").map((line) => JSON.parse(line));
    expect(events[0]).toEqual({ type: "reasoning", step: 1, text: "A greeting; answer it." });
    expect(events[1]).toMatchObject({ type: "final", status: "answered", text: "Hello!" });
  });

  test("--json shows the model's reasoning as reasoning events, and sends it back", async () => {
    await using model = await startScriptedModel(
      [await recordedStream("deepseek-reasoning-tool-call"), { content: "No such file.", reasoning: "It is missing." }],
      { requireReasoning: true },
    );
    const result = await run(["--json", "What does notes.txt say?"], model.baseURL);
    expect(result.code).toBe(0);
    const events = result.stdout.trim().split("\n").map((line) => JSON.parse(line));
    expect(events.map((event) => event.type)).toEqual(["reasoning", "tool_call", "tool_result", "reasoning", "final"]);
    expect(events[0]).toEqual({
      type: "reasoning",
      step: 1,
      text: "The user wants to know what notes.txt says. I should read the file first.",
    });
    expect(events[3]).toEqual({ type: "reasoning", step: 2, text: "It is missing." });
  });

  test("the reasoning shows on stderr, apart from the answer on stdout", async () => {
    await using model = await startScriptedModel([{ content: "Hello.", reasoning: "Greet back." }]);
    const result = await run(["hi"], model.baseURL);
    expect(result).toMatchObject({ code: 0, stdout: "Hello.\n" });
    expect(result.stderr).toContain("Greet back.");
  });

  test("an answer with neither text nor a tool call is reported and exits 3", async () => {
    await using model = await startScriptedModel([{ content: "" }, { content: "" }]);
    const result = await run(["hi"], model.baseURL);
    expect(result.code).toBe(3);
    expect(result.stdout).toBe("");
    expect(oneLine(result.stderr, model.baseURL)).toBe(`plugboard: ${EMPTY}`);
    const json = await run(["--json", "hi"], model.baseURL);
    expect(json.code).toBe(3);
    const [final, error] = json.stdout.trimEnd().split("\n").map((line) => JSON.parse(line));
    expect(final).toMatchObject({ type: "final", status: "empty", text: "" });
    expect(error).toEqual({ type: "error", message: EMPTY, exit_code: 3 });
  });

  test("an answer cut off at the model's output limit is printed, and said to be cut (exit 0)", async () => {
    await using model = await startScriptedModel([
      { content: "The project is called Dem", finishReason: "length" },
      { content: "The project is called Dem", finishReason: "length" },
    ]);
    const result = await run(["What is this project?"], model.baseURL);
    expect(result).toMatchObject({ code: 0, stdout: "The project is called Dem\n" });
    expect(oneLine(result.stderr, model.baseURL)).toBe(
      'plugboard: the answer was cut off at the model\'s output limit (finish_reason "length"); ask for a shorter answer, or raise the limit where the endpoint allows it',
    );
    const json = await run(["--json", "What is this project?"], model.baseURL);
    expect(JSON.parse(json.stdout)).toMatchObject({ type: "final", status: "answered", cut_off: true });
  });

  test("a tool call cut off at the output limit does not run: the model is told to make it shorter", async () => {
    await using folder = await tempFolder({ "workspace/keep.txt": "kept\n" });
    await using model = await startScriptedModel([
      {
        toolCalls: [
          { id: "w1", name: "read_file", arguments: { path: "keep.txt" } },
          { id: "w2", name: "write_file", arguments: '{"path":"keep.txt","content":"half of a long fi' },
        ],
        finishReason: "length",
      },
      { content: "I will write it in parts." },
    ]);
    const folderConfig = await writeConfig(folder.dir);
    const result = await plugboard(["run", "--json", "--config", folderConfig, "--base-url", model.baseURL, "write"], { cwd: folder.dir });
    expect(result.code).toBe(0);
    const results = result.stdout.trim().split("\n").map((line) => JSON.parse(line)).filter((event) => event.type === "tool_result");
    expect(results).toEqual([
      { type: "tool_result", id: "w1", is_error: false, content: "kept" },
      {
        type: "tool_result",
        id: "w2",
        is_error: true,
        content:
          'Error: Invalid arguments: the call was cut off at your output limit (finish_reason "length"); make it again, shorter (for example, write a long file in several parts)',
      },
    ]);
    expect(await Bun.file(`${folder.dir}/workspace/keep.txt`).text()).toBe("kept\n");
  });

  test("three edits of one file in one response apply in call order", async () => {
    await using folder = await tempFolder({ "workspace/draft.txt": "one\n" });
    const edit = (id: string, from: string, to: string) => ({
      id,
      name: "edit_file",
      arguments: { path: "draft.txt", old_text: from, new_text: to },
    });
    await using model = await startScriptedModel([
      { toolCalls: [edit("e1", "one", "two"), edit("e2", "two", "three"), edit("e3", "three", "four")] },
      { content: "Edited." },
    ]);
    const folderConfig = await writeConfig(folder.dir);
    const result = await plugboard(["run", "--json", "--config", folderConfig, "--base-url", model.baseURL, "edit"], { cwd: folder.dir });
    expect(result.code).toBe(0);
    const results = result.stdout.trim().split("\n").map((line) => JSON.parse(line)).filter((event) => event.type === "tool_result");
    expect(results.map((event) => [event.id, event.is_error])).toEqual([["e1", false], ["e2", false], ["e3", false]]);
    expect(await Bun.file(`${folder.dir}/workspace/draft.txt`).text()).toBe("four\n");
  });

  test("reads the prompt from stdin when there is no PROMPT", async () => {
    await using model = await startScriptedModel([{ content: "hi" }]);
    const result = await run([], model.baseURL, {}, "  a question from a pipe\n");
    expect(result).toMatchObject({ code: 0, stdout: "hi\n" });
    expect(model.requests[0]?.body.messages?.at(-1)?.content).toBe("a question from a pipe");
  });

  test("a blank PROMPT, like an empty stdin, is a usage error (exit 2) and asks the model nothing", async () => {
    await using model = await startScriptedModel([{ content: "never sent" }]);
    for (const [args, stdin] of [[[""], undefined], [[" ", ""], undefined], [[], " \n"]] as const) {
      const result = await run([...args], model.baseURL, {}, stdin);
      expect(result.code).toBe(2);
      expect(oneLine(result.stderr)).toStartWith("plugboard: run needs a PROMPT, but ");
    }
    expect(model.requests).toHaveLength(0);
  });

  test("exits 1 when the step limit stops the turn", async () => {
    const call = { toolCalls: [{ name: "glob", arguments: { pattern: "*" } }] };
    await using model = await startScriptedModel([call, call, call]);
    const result = await run(["--max-steps", "2", "loop"], model.baseURL);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("step limit");
    expect(model.requests).toHaveLength(2);
  });

  test("a 500 is retried by the SDK and the turn succeeds", async () => {
    await using model = await startScriptedModel([
      { status: 500, headers: { "retry-after-ms": "10" } },
      { content: "recovered" },
    ]);
    const result = await run(["hello"], model.baseURL);
    expect(result).toMatchObject({ code: 0, stdout: "recovered\n" });
    expect(model.requests).toHaveLength(2);
  });

  test("a refused API key exits 3 with one line and no stack", async () => {
    await using model = await startScriptedModel([], { apiKey: "right-key" });
    const result = await run(["hello"], model.baseURL, { MODEL_API_KEY: "wrong-key" });
    expect(result.code).toBe(3);
    const line = oneLine(result.stderr, model.baseURL);
    expect(line).toContain("401");
    expect(line).toContain(model.baseURL);
    expect(line).toContain("MODEL_API_KEY");
  });

  test.each([
    ["a body that is no event stream", { raw: "this is not an event stream" }],
    ["an event that is not JSON", { raw: "data: {not json\n\n" }],
    ["a completion without choices", { raw: [{ id: "x", object: "chat.completion.chunk" }] }],
  ])("%s exits 3 with one line and no stack", async (_name, reply) => {
    await using model = await startScriptedModel([reply]);
    const result = await run(["hello"], model.baseURL);
    expect(result.code).toBe(3);
    expect(oneLine(result.stderr, model.baseURL)).toContain("Malformed model response");
  });

  test("an unreachable endpoint exits 3 after the SDK's retries", async () => {
    const model = await startScriptedModel();
    const { baseURL } = model;
    await model.close();
    const result = await run(["hello"], baseURL);
    expect(result.code).toBe(3);
    expect(oneLine(result.stderr, baseURL)).toContain(`Cannot reach the model endpoint ${baseURL}`);
  });

  test("Ctrl-C while the model is thinking exits 130", async () => {
    await using model = await startScriptedModel([{ hang: true }]);
    const child = spawnPlugboard(["run", "--config", config, "--base-url", model.baseURL, "hello"], { cwd: dir });
    await model.waitForRequests(1);
    child.kill("SIGINT");
    const result = await finished(child);
    expect(result.code).toBe(130);
    expect(result.stderr).toContain("interrupted");
  });

  test("a broken config exits 2 with the problem", async () => {
    await using folder = await tempFolder({ "plugboard.config.json": '{ "plugins": [], "maxSteps": 0 }' });
    const result = await plugboard(["run", "hello"], { cwd: folder.dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("maxSteps");
    expect(result.stderr).not.toContain(STACK_FRAME);
  });
});

/**
 * The events of a `run --json` that failed: every line of stdout is one JSON event, and the
 * last is the `error` event, whose message is what stderr said last and whose exit code is
 * the process's.
 */
function failedEvents(result: Finished): { readonly events: Record<string, unknown>[]; readonly message: string } {
  expect(result.code).not.toBe(0);
  const events = result.stdout.trimEnd().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
  const last = events.at(-1);
  expect(last).toEqual({ type: "error", message: expect.any(String), exit_code: result.code });
  const message = String(last?.message);
  expect(result.stderr).toEndWith(`plugboard: ${message}\n`);
  expect(result.stderr).not.toContain(STACK_FRAME);
  return { events, message };
}

describe("run --json ends with an error event on any failure", () => {
  test("an unreachable endpoint (a closed port): the error event, exit 3", async () => {
    const model = await startScriptedModel();
    const { baseURL } = model;
    await model.close();
    const result = await run(["--json", "hello"], baseURL);
    expect(result.code).toBe(3);
    const { events, message } = failedEvents(result);
    expect(events).toHaveLength(1);
    expect(message).toStartWith(`Cannot reach the model endpoint ${baseURL}`);
  });

  test("a 401 from the endpoint: the error event naming the key, exit 3", async () => {
    await using model = await startScriptedModel([{ status: 401 }]);
    const result = await run(["--json", "hello"], model.baseURL);
    expect(result.code).toBe(3);
    const { events, message } = failedEvents(result);
    expect(events).toHaveLength(1);
    expect(message).toContain("401");
    expect(message).toContain("MODEL_API_KEY");
  });

  test("a failure after tool calls: their events, then the error event", async () => {
    await using model = await startScriptedModel([{ toolCalls: [{ id: "call_1", name: "glob", arguments: { pattern: "*" } }] }, { status: 401 }]);
    const result = await run(["--json", "look around"], model.baseURL);
    const { events } = failedEvents(result);
    expect(events.map((event) => event.type)).toEqual(["tool_call", "tool_result", "error"]);
  });

  test("the step limit: the final event, then the error event, exit 1", async () => {
    const call = { toolCalls: [{ name: "glob", arguments: { pattern: "*" } }] };
    await using model = await startScriptedModel([call, call]);
    const result = await run(["--json", "--max-steps", "1", "loop"], model.baseURL);
    expect(result.code).toBe(1);
    const { events, message } = failedEvents(result);
    expect(events.at(-2)).toMatchObject({ type: "final", status: "step_limit" });
    expect(message).toContain("--max-steps N");
  });

  test("a broken config: the error event, exit 2", async () => {
    await using folder = await tempFolder({ "plugboard.config.json": '{ "plugins": [], "maxSteps": 0 }' });
    const result = await plugboard(["run", "--json", "hello"], { cwd: folder.dir });
    expect(result.code).toBe(2);
    const { events, message } = failedEvents(result);
    expect(events).toHaveLength(1);
    expect(message).toContain("maxSteps");
  });

  test.each([
    [["run", "--json", "--nosuch", "x"], "unknown option '--nosuch' (see plugboard run --help)"],
    [["run", "--json", "--port", "1", "x"], "--port does not apply to 'plugboard run' (see plugboard run --help)"],
  ])("%p, a command line that does not parse: the error event, exit 2", async (args, expected) => {
    const result = await plugboard(args, { cwd: dir });
    expect(result.code).toBe(2);
    const { events, message } = failedEvents(result);
    expect(events).toHaveLength(1);
    expect(message).toBe(expected);
  });

  test("a command line that does not parse without --json, or not naming run, writes nothing on stdout", async () => {
    for (const args of [["run", "--nosuch", "x"], ["tools", "--json", "--nosuch"], ["run", "--nosuch", "--", "--json"]]) {
      const result = await plugboard(args, { cwd: dir });
      expect(result.code).toBe(2);
      expect(result.stdout).toBe("");
    }
  });

  test("a blank prompt: the error event with the --help hint, exit 2", async () => {
    const result = await run(["--json", " "], "http://127.0.0.1:9/v1");
    expect(result.code).toBe(2);
    expect(failedEvents(result).message).toBe("run needs a PROMPT, but the one given is blank (see plugboard run --help)");
  });

  test("a bug in a plugin: the tool call, then the error event naming the plugin, exit 2", async () => {
    const buggy = fileURLToPath(new URL("./fixtures/buggy-plugin", import.meta.url));
    await using folder = await tempFolder({ "workspace/.keep": "" });
    const buggyConfig = await writeConfig(folder.dir, { plugins: [{ path: buggy, permissions: [] }] });
    await using model = await startScriptedModel([{ toolCalls: [{ name: "crash", arguments: {} }] }]);
    const result = await plugboard(["run", "--json", "--config", buggyConfig, "--base-url", model.baseURL, "go"], { cwd: folder.dir });
    expect(result.code).toBe(2);
    const { events, message } = failedEvents(result);
    expect(events.map((event) => event.type)).toEqual(["tool_call", "error"]);
    expect(message).toContain("This is a bug in buggy-plugin");
  });

  test("Ctrl-C: the error event, exit 130", async () => {
    await using model = await startScriptedModel([{ hang: true }]);
    const child = spawnPlugboard(["run", "--json", "--config", config, "--base-url", model.baseURL, "hello"], { cwd: dir });
    await model.waitForRequests(1);
    child.kill("SIGINT");
    const result = await finished(child);
    expect(result.code).toBe(130);
    expect(failedEvents(result).message).toBe("interrupted");
  });
});

describe("programming errors", () => {
  const buggy = fileURLToPath(new URL("./fixtures/buggy-plugin", import.meta.url));
  const stray = fileURLToPath(new URL("./fixtures/stray-error-plugin", import.meta.url));

  for (const sandbox of ["off", "auto"]) {
    test(`a bug in a tool (sandbox ${sandbox}) is one message naming the plugin, tool and phase, and exit 2`, async () => {
      await using folder = await tempFolder({ "workspace/.keep": "" });
      const buggyConfig = await writeConfig(folder.dir, { sandbox, plugins: [{ path: buggy, permissions: [] }] });
      await using model = await startScriptedModel([{ toolCalls: [{ name: "crash", arguments: {} }] }]);
      const result = await plugboard(["run", "--config", buggyConfig, "--base-url", model.baseURL, "go"], { cwd: folder.dir });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("plugboard: Tool crash (plugin buggy-plugin) failed in its handler: TypeError: a bug in the crash tool");
      expect(result.stderr).toContain("This is a bug in buggy-plugin, not in the call: report it to its author, or remove buggy-plugin from the config.");
      expect(result.stderr).not.toContain(STACK_FRAME);
    });

    test(`a tool that returns a bare string, not a result (sandbox ${sandbox}), is a bug named as such, and exit 2`, async () => {
      await using folder = await tempFolder({ "workspace/.keep": "" });
      const strayConfig = await writeConfig(folder.dir, { sandbox, plugins: [{ path: stray, permissions: [] }] });
      await using model = await startScriptedModel([{ toolCalls: [{ name: "plain", arguments: {} }] }]);
      const result = await plugboard(["run", "--config", strayConfig, "--base-url", model.baseURL, "go"], { cwd: folder.dir });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        "plugboard: Tool plain (plugin stray-error-plugin) failed in its handler: TypeError: it returned a string, not a result { content: string, isError: boolean }: return textResult(TEXT) or errorResult(MESSAGE)\nThis is a bug in stray-error-plugin",
      );
      expect(result.stderr).not.toContain(STACK_FRAME);
    });
  }

  test("what a plugin in the app's process throws outside any call (from a timer it left) is one message naming it, exit 2, and run --json's error event", async () => {
    await using folder = await tempFolder({ "workspace/.keep": "" });
    const strayConfig = await writeConfig(folder.dir, { sandbox: "off", plugins: [{ path: stray, permissions: [] }] });
    // The timer throws while the model is asked again, after the call has answered.
    await using model = await startScriptedModel([{ toolCalls: [{ name: "later", arguments: {} }] }, { hang: true }]);
    const result = await plugboard(["run", "--json", "--config", strayConfig, "--base-url", model.baseURL, "go"], { cwd: folder.dir });
    const message =
      "plugin stray-error-plugin threw outside any call: TypeError: a bug in a timer of the later tool\nThis is a bug in stray-error-plugin: report it to its author, or remove stray-error-plugin from the config.";
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`plugboard: ${message}`);
    expect(result.stderr).not.toContain(STACK_FRAME);
    expect(failedEvents(result).message).toBe(message);
  });
});
