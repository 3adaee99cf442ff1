/**
 * What the app reads from a confined plugin's host is the plugin's to write: a forged or
 * broken protocol line ends the host (the call gets an Error: result, no crash), and what it
 * logs reaches the person's terminal with its control characters shown, not obeyed.
 */
import { expect, test } from "bun:test";
import { fileURLToPath } from "node:url";
import { plugboard, STACK_FRAME, tempFolder, writeConfig } from "./helpers.ts";

const HOSTILE = fileURLToPath(new URL("./fixtures/hostile-host", import.meta.url));

async function callConfined(tool: string) {
  await using folder = await tempFolder({ "workspace/.keep": "" });
  const config = await writeConfig(folder.dir, { sandbox: "required", plugins: [{ path: HOSTILE, permissions: [] }] });
  return await plugboard(["call", "--config", config, tool, "{}"], { cwd: folder.dir });
}

test("a forged answer written to the host's pipes (its protocol's descriptor among them) ends the host: the call is an Error: result, and the app does not crash", async () => {
  const result = await callConfined("forge");
  expect(result.code).toBe(1);
  expect(result.stdout).toBe("Error: @fixture/hostile-host stopped while running forge (ended: its host broke the host protocol); it starts again on the next call\n");
  expect(result.stderr).toContain("plugboard: warning: @fixture/hostile-host: its host wrote a protocol line the app cannot read; the host is ended");
  expect(result.stderr).not.toContain(STACK_FRAME);
});

test("a plugin's warning reaches the terminal with its control characters written out", async () => {
  const result = await callConfined("escape");
  expect(result.code).toBe(0);
  expect(result.stdout).toBe("warned\n");
  expect(result.stderr).toContain("plugboard: warning: title\\x1b]0;owned\\x07 clipboard\\x1b]52;c;b3duZWQ=\\x07 done");
  expect(result.stderr).not.toContain("\u001b");
  expect(result.stderr).not.toContain("\u0007");
});
