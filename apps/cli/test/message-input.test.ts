/**
 * The interactive session's input as a person meets it: the real CLI in a pseudo-terminal,
 * pasted into and typed at, against the scripted model; each message is read back from the
 * model's recorded requests.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type ScriptedModel, startScriptedModel } from "@plugboard/testing";
import { plugboard, spawnInTerminal, tempFolder, toolResults, writeConfig } from "./helpers.ts";

// Each test runs a CLI process: a busy machine can outlast bun's default 5 s.
setDefaultTimeout(30_000);

const PROMPT = "plugboard >> ";
const ESC = "\u001b";
const PASTE = (text: string) => `${ESC}[200~${text}${ESC}[201~`;

/** What the person sent, message by message, as the model read it in its last request. */
function userMessages(model: ScriptedModel): string[] {
  const messages = model.requests.at(-1)?.body.messages ?? [];
  return messages.filter((message) => message.role === "user").map((message) => String(message.content));
}

async function session(replies: Parameters<typeof startScriptedModel>[0], config: Record<string, unknown> = {}) {
  const folder = await tempFolder({ "workspace/README.md": "# Demo\n" });
  const path = await writeConfig(folder.dir, config);
  const model = await startScriptedModel(replies);
  const cli = spawnInTerminal(["--config", path, "--base-url", model.baseURL], { cwd: folder.dir });
  await cli.waitFor(PROMPT);
  return {
    cli,
    model,
    workspace: join(folder.dir, "workspace"),
    async [Symbol.asyncDispose]() {
      await model.close();
      await folder.remove();
    },
  };
}

describe("a paste is one message", () => {
  test("a bracketed paste of two lines, then Enter: one message holding both", async () => {
    await using s = await session([{ content: "both read" }]);
    s.cli.type(PASTE("read README.md\rlist **/*.ts"));
    await s.cli.waitFor("list **/*.ts");
    s.cli.type("\r");
    await s.cli.waitFor("both read");
    await s.cli.waitFor(PROMPT, 2);
    s.cli.type("q\r");
    expect(await s.cli.exited()).toBe(0);
    expect(userMessages(s.model)).toEqual(["read README.md\nlist **/*.ts"]);
    expect(s.cli.screen()).toContain(`${ESC}[?2004h`);
    // Turned off once the last prompt is done with (the note on the kept conversation may follow).
    const screen = s.cli.screen();
    expect(screen.lastIndexOf(`${ESC}[?2004l`)).toBeGreaterThan(Math.max(screen.lastIndexOf(`${ESC}[?2004h`), screen.lastIndexOf("plugboard >> ")));
  });

  test("the same paste without bracketed paste (two lines in one read) is one message too", async () => {
    await using s = await session([{ content: "both read" }]);
    s.cli.type("read README.md\rlist **/*.ts\r");
    await s.cli.waitFor("both read");
    await s.cli.waitFor(PROMPT, 2);
    s.cli.type("q\r");
    expect(await s.cli.exited()).toBe(0);
    expect(userMessages(s.model)).toEqual(["read README.md\nlist **/*.ts"]);
  });

  test("a paste's blank line is kept and ends nothing; a typed empty line then ends the session with 0", async () => {
    await using s = await session([{ content: "kept" }]);
    s.cli.type(PASTE("first paragraph\r\r\rsecond paragraph"));
    s.cli.type("\r");
    await s.cli.waitFor("kept");
    await s.cli.waitFor(PROMPT, 2);
    s.cli.type("\r");
    expect(await s.cli.exited()).toBe(0);
    expect(userMessages(s.model)).toEqual(["first paragraph\n\n\nsecond paragraph"]);
  });
});

describe("a newline without sending", () => {
  test("Alt+Enter, Shift+Enter (CSI u and xterm's) and a trailing \\ before Enter each start a new line", async () => {
    await using s = await session([{ content: "one message" }]);
    for (const keys of ["alt", `${ESC}\r`, "csi-u", `${ESC}[13;2u`, "xterm", `${ESC}[27;2;13~`, "backslash\\"]) s.cli.type(keys);
    // Enter as a key of its own, once the \ is shown: in the same read as other keys it would be a paste's line break.
    await s.cli.waitFor("backslash\\");
    s.cli.type("\r");
    await s.cli.waitFor("backslash\r");
    s.cli.type("last");
    await s.cli.waitFor("last");
    s.cli.type("\r");
    await s.cli.waitFor("one message");
    await s.cli.waitFor(PROMPT, 2);
    s.cli.type("q\r");
    expect(await s.cli.exited()).toBe(0);
    expect(userMessages(s.model)).toEqual(["alt\ncsi-u\nxterm\nbackslash\nlast"]);
  });
});

describe("nothing typed is dropped", () => {
  const waiting = (name: string) => `touch ${name}.started; while [ ! -e ${name}.go ]; do sleep 0.05; done; echo went`;

  /** Waits until the bash call `name` runs, types `keys` one by one, then lets the call end. */
  async function typeWhileRunning(s: { cli: { type(keys: string): void }; workspace: string }, name: string, keys: string) {
    while (!existsSync(join(s.workspace, `${name}.started`))) await Bun.sleep(20);
    for (const key of keys) s.cli.type(key);
    await writeFile(join(s.workspace, `${name}.go`), "");
  }

  test("lines typed while tools run are the next messages, each of them", async () => {
    // Unconfined, bash's first result would taint the session and its second call be asked: not what this is about.
    await using s = await session(
      [
        { toolCalls: [{ id: "b1", name: "bash", arguments: { command: waiting("b1") } }] },
        { toolCalls: [{ id: "b2", name: "bash", arguments: { command: waiting("b2") } }] },
        { content: "first done" },
        { content: "second done" },
        { content: "third done" },
      ],
      { policy: { default: "allow", rules: [], taint: "off" } },
    );
    s.cli.type("first\r");
    await typeWhileRunning(s, "b1", "typed ahead\r");
    // Typed during the second call: the session went through a model request since the first line.
    await typeWhileRunning(s, "b2", "and more\r");
    await s.cli.waitFor("third done");
    // Typed ahead too, should the prompt not be drawn yet: it quits at the next one.
    s.cli.type("q\r");
    expect(await s.cli.exited()).toBe(0);
    expect(userMessages(s.model)).toEqual(["first", "typed ahead", "and more"]);
  });

  test("what is typed ahead never answers an approval: the prompt waits for a key pressed after it", async () => {
    await using s = await session(
      [
        { toolCalls: [{ id: "b1", name: "bash", arguments: { command: waiting("b1") } }] },
        { toolCalls: [{ id: "w1", name: "write_file", arguments: { path: "a.txt", content: "a" } }] },
        { content: "first done" },
        { content: "second done" },
      ],
      { policy: { default: "allow", rules: [{ tool: "write_file", action: "ask" }] } },
    );
    s.cli.type("first\r");
    // "yes, always": y and a would each allow the write.
    await typeWhileRunning(s, "b1", "yes, always\r");
    await s.cli.waitFor("[y] yes  [a] always");
    s.cli.type("n");
    await s.cli.waitFor("reason for the model");
    s.cli.type("\r");
    await s.cli.waitFor("second done");
    await s.cli.waitFor(PROMPT, 3);
    s.cli.type("q\r");
    expect(await s.cli.exited()).toBe(0);
    expect(toolResults(s.model, 2).w1).toBe("Error: Denied by the user");
    expect(existsSync(join(s.workspace, "a.txt"))).toBe(false);
    expect(userMessages(s.model)).toEqual(["first", "yes, always"]);
  });
});

describe("keys typed while the session starts", () => {
  test("are kept and become the first message", async () => {
    await using folder = await tempFolder({ "workspace/README.md": "# Demo\n" });
    const config = await writeConfig(folder.dir);
    await using model = await startScriptedModel([{ content: "first done" }]);
    const cli = spawnInTerminal(["--config", config, "--base-url", model.baseURL], { cwd: folder.dir });
    // Typed at once: before the process reads them (the terminal's own mode), and while the app starts.
    cli.type("hello ");
    await Bun.sleep(50);
    cli.type("there\r");
    await cli.waitFor("first done");
    await cli.waitFor(PROMPT, 2);
    cli.type("q\r");
    expect(await cli.exited()).toBe(0);
    expect(userMessages(model)).toEqual(["hello there"]);
  });

  test("never answer the question the start asks (a plugin whose code changed): it waits for a key pressed after it", async () => {
    await using folder = await tempFolder({
      "notes/plugboard.plugin.json": JSON.stringify({ name: "notes", version: "0.1.0", contract: "^1.0.0", entry: "./index.js", tools: [{ name: "note", description: "A tool." }], permissions: [] }),
      "notes/index.js": noteModule("first"),
      "workspace/.keep": "",
    });
    const config = await writeConfig(folder.dir, { plugins: [{ path: "./notes", permissions: [] }] });
    expect((await plugboard(["check", "--offline", "--config", config], { cwd: folder.dir })).code).toBe(0);
    await writeFile(join(folder.dir, "notes/index.js"), noteModule("second"));
    await using model = await startScriptedModel([{ content: "first done" }]);
    const cli = spawnInTerminal(["--config", config, "--base-url", model.baseURL], { cwd: folder.dir });
    // y would load the changed code.
    cli.type("yes please\r");
    await cli.waitFor("[y] load it and pin its files");
    await Bun.sleep(300);
    expect(cli.screen()).not.toContain("yes\r\n");
    cli.type("n");
    await cli.waitFor("first done");
    await cli.waitFor(PROMPT, 2);
    cli.type("q\r");
    expect(await cli.exited()).toBe(0);
    expect(cli.screen()).toContain("no (accept it later: plugboard plugin accept notes)");
    expect(model.requests[0]?.body.tools ?? []).toEqual([]);
    expect(userMessages(model)).toEqual(["yes please"]);
  });
});

/** A plugin module offering one tool, `note`, that answers `answer`. */
function noteModule(answer: string): string {
  const core = Bun.resolveSync("@plugboard/core", import.meta.dir);
  return [
    `import { definePlugin, defineTool, textResult, Type } from ${JSON.stringify(core)};`,
    "export default definePlugin({",
    "  options: Type.Object({}),",
    `  tools: () => [defineTool({ name: "note", description: "A tool.", parameters: Type.Object({}), handler: async () => textResult(${JSON.stringify(answer)}) })],`,
    "});",
    "",
  ].join("\n");
}

describe("bracketed paste is turned off however the session ends", () => {
  type Cli = ReturnType<typeof spawnInTerminal>;
  const BUGGY = fileURLToPath(new URL("./fixtures/buggy-plugin", import.meta.url));
  const crash = [{ toolCalls: [{ id: "c1", name: "crash", arguments: {} }] }];

  /** The session of `config` against `replies` (or a closed port), ended by `end`; its exit code and screen. */
  async function ended(end: (cli: Cli) => Promise<void>, replies: Parameters<typeof startScriptedModel>[0] | "closed" = [], config: Record<string, unknown> = {}) {
    await using folder = await tempFolder({ "workspace/README.md": "# Demo\n" });
    const path = await writeConfig(folder.dir, config);
    const model = await startScriptedModel(replies === "closed" ? [] : replies);
    if (replies === "closed") await model.close();
    try {
      const cli = spawnInTerminal(["--config", path, "--base-url", model.baseURL], { cwd: folder.dir });
      await end(cli);
      return { code: await cli.exited(), screen: cli.screen() };
    } finally {
      await model.close();
    }
  }

  const atPrompt = (keys: string) => async (cli: Cli) => {
    await cli.waitFor(PROMPT);
    cli.type(keys);
  };
  const signalled = (signal: NodeJS.Signals) => async (cli: Cli) => {
    await cli.waitFor(PROMPT);
    cli.kill(signal);
  };

  test.each([
    ["q", 0, atPrompt("q\r")],
    ["/exit", 0, atPrompt("/exit\r")],
    ["an empty line", 0, atPrompt("\r")],
    ["Ctrl-C", 130, atPrompt("\u0003")],
    ["Ctrl-D", 0, atPrompt("\u0004")],
    ["SIGTERM", 143, signalled("SIGTERM")],
    ["SIGHUP", 129, signalled("SIGHUP")],
  ] as const)("%s at the prompt (exit %d)", async (_, code, end) => {
    const result = await ended(end);
    expect(result.code).toBe(code);
    expectPasteOff(result.screen);
  });

  test("SIGHUP sent by hand, the terminal still there: the session still says where its conversation is kept (exit 129)", async () => {
    const result = await ended(
      async (cli) => {
        await cli.waitFor(PROMPT);
        cli.type("hello\r");
        await cli.waitFor("hi there");
        await cli.waitFor(PROMPT, 2);
        cli.kill("SIGHUP");
      },
      [{ content: "hi there" }],
    );
    expect(result.code).toBe(129);
    expect(result.screen).toMatch(/conversation \S+ is kept: plugboard --continue picks it up/);
  });

  test("SIGTERM during a turn (exit 143)", async () => {
    const result = await ended(async (cli) => {
      await cli.waitFor(PROMPT);
      cli.type("hello\r");
      await cli.waitFor("waiting for the model");
      cli.kill("SIGTERM");
    }, [{ hang: true }]);
    expect(result.code).toBe(143);
    expectPasteOff(result.screen);
  });

  test("the endpoint failing, then Ctrl-D (exit 0)", async () => {
    const result = await ended(async (cli) => {
      await cli.waitFor(PROMPT);
      cli.type("hello\r");
      await cli.waitFor("Cannot reach the model endpoint");
      await cli.waitFor(PROMPT, 2);
      cli.type("\u0004");
    }, "closed");
    expect(result.code).toBe(0);
    expectPasteOff(result.screen);
  });

  test("a bug in a plugin, which ends the session with its message (exit 2)", async () => {
    const result = await ended(atPrompt("crash it\r"), crash, { plugins: [{ path: BUGGY, permissions: [] }] });
    expect(result.code).toBe(2);
    expect(result.screen).toContain("This is a bug in buggy-plugin");
    expectPasteOff(result.screen);
  });

  test("a config error at the start (exit 2)", async () => {
    const result = await ended(async () => {}, [], { maxSteps: 0 });
    expect(result.code).toBe(2);
    expect(result.screen).toContain("maxSteps");
    expectPasteOff(result.screen);
  });

  /** Bracketed paste was turned on, and turned off after it was last turned on. */
  function expectPasteOff(screen: string) {
    expect(screen).toContain(`${ESC}[?2004h`);
    expect(screen.lastIndexOf(`${ESC}[?2004l`)).toBeGreaterThan(screen.lastIndexOf(`${ESC}[?2004h`));
  }
});

test("with piped stdin, stdout holds only the answers (no prompt)", async () => {
  await using folder = await tempFolder({ "workspace/README.md": "# Demo\n" });
  const config = await writeConfig(folder.dir);
  await using model = await startScriptedModel([{ content: "first answer" }, { content: "second answer" }]);
  const result = await plugboard(["--config", config, "--base-url", model.baseURL], { cwd: folder.dir, stdin: "hello\nand again\n" });
  expect(result.code).toBe(0);
  expect(result.stdout).toBe("first answer\nsecond answer\n");
  expect(result.stderr).not.toContain(PROMPT);
});

test("Ctrl-C clears a message being typed, and on an empty one quits with 130, bracketed paste turned off", async () => {
  await using s = await session([{ content: "never asked" }]);
  s.cli.type("a draft");
  await s.cli.waitFor("a draft");
  s.cli.type("\u0003");
  // Redrawn empty: the prompt alone, then the cursor put back after it.
  await s.cli.waitFor(`${ESC}[J${PROMPT}\r`);
  s.cli.type("\u0003");
  expect(await s.cli.exited()).toBe(130);
  expect(s.model.requests).toHaveLength(0);
  expect(s.cli.screen()).toContain(`${ESC}[?2004h`);
  expect(s.cli.screen()).toEndWith(`${ESC}[?2004l`);
});
