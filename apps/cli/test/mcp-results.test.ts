/**
 * What the model reads of a mounted MCP tool's result: the text the server wrote for it,
 * the structured content as JSON only when there is no text, and an `Error:` when the
 * structured content breaks the tool's output schema — through `plugboard run` (recorded by
 * the scripted model) and `plugboard call`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { startScriptedModel } from "@plugboard/testing";
import { plugboard, tempFolder, writeConfig } from "./helpers.ts";

const SERVER = join(import.meta.dir, "fixtures/structured-server/server.ts");
const TIMEOUT = 60_000;
const FORECAST = "Forecast ready. Chicago: 36°F, light rain; take an umbrella.";
const DATA = '{"temperature":36,"conditions":"light rain"}';
const WRONG = "Error: MCP server weather answered forecast_wrong with structured content that does not match its output schema: conditions: must be present; temperature: must be number";
const NOTES = 'hello\n"quoted" line\n';

let dir = "";
let remove = async () => {};
let config = "";
let notes = "";

beforeAll(async () => {
  ({ dir, remove } = await tempFolder({ "workspace/notes.txt": NOTES }));
  notes = join(dir, "workspace/notes.txt");
  config = await writeConfig(dir, { plugins: [{ mcp: { command: process.execPath, args: [SERVER] }, name: "weather", permissions: [] }] });
});
afterAll(() => remove());

describe("a mounted tool's structured result", () => {
  test("the model reads the text the server wrote; the JSON only when there is no text; a mismatch as Error:", async () => {
    await using model = await startScriptedModel([
      {
        toolCalls: [
          { id: "call_text", name: "forecast", arguments: {} },
          { id: "call_data", name: "forecast_data", arguments: {} },
          { id: "call_wrong", name: "forecast_wrong", arguments: {} },
          { id: "call_file", name: "read_text_file", arguments: { path: notes } },
        ],
      },
      { content: "Take an umbrella." },
    ]);
    const result = await plugboard(["run", "--config", config, "--base-url", model.baseURL, "weather in Chicago?"], { cwd: dir });
    expect(result).toMatchObject({ code: 0, stdout: "Take an umbrella.\n" });
    const received = new Map(
      (model.requests[1]?.body.messages ?? []).filter((message) => message.role === "tool").map((message) => [message.tool_call_id, message.content]),
    );
    expect(Object.fromEntries(received)).toEqual({ call_text: FORECAST, call_data: DATA, call_wrong: WRONG, call_file: NOTES });
  }, TIMEOUT);

  test("plugboard call prints the same", async () => {
    const call = (tool: string, json = "{}") => plugboard(["call", "--config", config, tool, json], { cwd: dir });
    expect(await call("forecast")).toMatchObject({ code: 0, stdout: `${FORECAST}\n` });
    // server-filesystem's shape: the file itself, not `{"content":"hello\n…"}`.
    expect(await call("read_text_file", JSON.stringify({ path: notes }))).toMatchObject({ code: 0, stdout: NOTES });
    expect(await call("forecast_data")).toMatchObject({ code: 0, stdout: `${DATA}\n` });
    expect(await call("forecast_wrong")).toMatchObject({ code: 1, stdout: `${WRONG}\n` });
  }, TIMEOUT);
});
