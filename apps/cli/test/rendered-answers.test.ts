/**
 * The model's answer on a terminal is rendered Markdown (DESIGN.md, "The CLI people live
 * in"): headings, tables, bold and code blocks styled, their markup gone; piped, it is the
 * model's text byte for byte. Control characters the model wrote are written out (`\x1b`)
 * wherever they stand — in text, in a code block, in a link — never obeyed.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { startScriptedModel } from "@plugboard/testing";
import { plugboard, spawnInTerminal, tempFolder, writeConfig } from "./helpers.ts";

setDefaultTimeout(60_000);

const ANSWER = [
  "# Findings",
  "",
  "The build is **broken** in one place:",
  "",
  "| file | errors |",
  "| --- | --- |",
  "| src/a.ts | 2 |",
  "",
  "```ts",
  "const answer: number = 42;",
  "```",
  "",
].join("\n");

const CLEAR = "\u001b[2J";
const TITLE = "\u001b]0;owned\u0007";
const HOSTILE = [`Text ${CLEAR} and **bold ${TITLE}**.`, "", "```sh", `echo '${CLEAR}${TITLE}'`, "```", "", `[a link](https://example.com/${TITLE})`, ""].join("\n");

async function onTerminal(answer: string, env: Record<string, string> = {}) {
  await using folder = await tempFolder({ "workspace/.keep": "" });
  const config = await writeConfig(folder.dir, { plugins: [] });
  await using model = await startScriptedModel([{ content: answer }]);
  const cli = spawnInTerminal(["run", "--config", config, "--base-url", model.baseURL, "report"], { cwd: folder.dir, env });
  const code = await cli.exited();
  return { code, screen: cli.screen() };
}

describe("the answer on a terminal", () => {
  test("is rendered Markdown: styles present, the markup gone", async () => {
    const { code, screen } = await onTerminal(ANSWER, { NO_COLOR: "" });
    expect(code).toBe(0);
    // Bold is bold, the table is drawn, the code block highlighted.
    expect(screen).toContain("\u001b[1mbroken\u001b[22m");
    expect(screen).toMatch(/│[^\n]* file [^\n]*│[^\n]* errors /);
    // The keyword coloured by the highlighter.
    expect(screen).toContain("mconst\u001b[39m");
    expect(screen).toContain("42");
    for (const markup of ["**broken**", "| file |", "| --- |", "```"]) expect(screen).not.toContain(markup);
    // While a block is held until it is complete, the spinner says the answer is being written.
    expect(screen).toContain(" writing ");
  });

  test("code is highlighted in the languages the CLI carries; one outside them, or a fence naming none, is shown plain", async () => {
    const answer = ["```python", "def main(): return 1", "```", "", "```haskell", "main = putStrLn \"hi\"", "```", "", "```", "const guessed = true;", "```", ""].join("\n");
    const { code, screen } = await onTerminal(answer, { NO_COLOR: "" });
    expect(code).toBe(0);
    // The keyword coloured by the highlighter, as in the test above.
    expect(screen).toContain("mdef\u001b[39m");
    const line = (text: string) => screen.split("\n").find((row) => row.includes(text)) ?? "";
    expect(line("putStrLn")).toContain('main = putStrLn "hi"');
    expect(line("guessed")).toContain("const guessed = true;");
    expect(screen).not.toContain("Could not find the language");
  });

  test("with NO_COLOR, the layout without the colours", async () => {
    const { code, screen } = await onTerminal(ANSWER);
    expect(code).toBe(0);
    expect(screen).toContain("The build is broken in one place:");
    expect(screen).toMatch(/│ file +│ errors │/);
    expect(screen).not.toContain("\u001b[1m");
    for (const markup of ["**broken**", "| file |", "```"]) expect(screen).not.toContain(markup);
  });

  test("writes out the model's escape sequences in text, code blocks and links", async () => {
    const { code, screen } = await onTerminal(HOSTILE, { NO_COLOR: "" });
    expect(code).toBe(0);
    for (const sequence of [CLEAR, TITLE]) expect(screen).not.toContain(sequence);
    expect(screen).toContain("Text \\x1b[2J and ");
    expect(screen).toContain("bold \\x1b]0;owned\\x07");
    expect(screen).toMatch(/echo[^\n]*'\\x1b\[2J\\x1b\]0;owned\\x07'/);
    expect(screen).toContain("https://example.com/\\x1b]0;owned\\x07");
    // No hyperlink whose target the person cannot see.
    expect(screen).not.toContain("\u001b]8;");
  });
});

test("piped, the answer is the model's text byte for byte", async () => {
  await using folder = await tempFolder({ "workspace/.keep": "" });
  const config = await writeConfig(folder.dir, { plugins: [] });
  for (const answer of [ANSWER, HOSTILE]) {
    await using model = await startScriptedModel([{ content: answer }]);
    const piped = await plugboard(["run", "--config", config, "--base-url", model.baseURL, "report"], { cwd: folder.dir });
    expect(piped.code).toBe(0);
    expect(piped.stdout).toBe(answer);
  }
});
