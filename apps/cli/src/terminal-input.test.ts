/**
 * `readKey` on a real terminal: a key pressed the moment the question appears answers it.
 * The question is shown only once the keyboard is raw and what was typed before it has been
 * read; written earlier, such a key was kept as typed ahead and dropped, and the question waited.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";
import { waitFor } from "@plugboard/test-helpers";

const FIXTURES = join(import.meta.dir, "../test/fixtures");

/** Runs the fixture `name` on a terminal of its own; `drive` types into it and reads what it shows (`screen()`). */
async function onTerminal(name: string, args: readonly string[], drive: (terminal: Bun.Terminal, screen: () => string) => Promise<void>): Promise<number> {
  let screen = "";
  const decoder = new TextDecoder();
  const child = Bun.spawn(["bun", join(FIXTURES, name), ...args], {
    env: { ...process.env, TERM: "xterm", NO_COLOR: "1" },
    terminal: { cols: 120, rows: 20, data: (_terminal, data) => (screen += decoder.decode(data, { stream: true })) },
  });
  const terminal = child.terminal;
  if (!terminal) throw new Error("Bun.spawn gave no terminal");
  try {
    await drive(terminal, () => screen);
    return await child.exited;
  } finally {
    child.kill("SIGKILL");
    await child.exited;
    terminal.close();
  }
}

test.each([
  ["the keyboard held for the question alone (a one-shot run's approval)", []],
  ["the keyboard already held (a session, an MCP server's request for input)", ["held"]],
])("a key pressed the moment a question appears answers it, not taken for one typed before it: %s", async (_name, args) => {
  const code = await onTerminal("read-key.ts", args, async (terminal, screen) => {
    await waitFor("the question is on the screen", () => screen().includes("no › "), { timeoutMs: 10_000, everyMs: 5 });
    expect(screen()).toContain("proceed? [y] yes  [n] no › ");
    // Typed while the question is still being shown: the process is busy for 300 ms after writing it.
    terminal.write("n");
    await waitFor("the answer is on the screen", () => screen().includes("answer: n"));
    expect(screen()).toContain("answer: n");
  });
  expect(code).toBe(0);
}, 20_000);

test("keys typed before the keyboard is held are kept as typed ahead at once, read from the terminal itself, before its stream reads: no question shown after can take them", async () => {
  const code = await onTerminal("typed-before.ts", [], async (terminal, screen) => {
    await waitFor("the fixture waits for keys", () => screen().includes("type now"), { timeoutMs: 10_000, everyMs: 5 });
    // Typed while the terminal is still in its line mode, which makes Enter a line feed: kept as the Enter it was.
    terminal.write("yes please\r");
    await waitFor("the fixture says what it kept", () => screen().includes("kept: "), { timeoutMs: 10_000 });
    expect(screen()).toContain('kept: "yes please\\r"');
  });
  expect(code).toBe(0);
}, 20_000);
