/**
 * The changing-server fixture's side of a test: a stdio MCP server whose tools are what
 * `workspace/tools.json` says at each of its starts, and a `run` that shows which of them the
 * model was offered.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { startScriptedModel } from "@plugboard/testing";
import { offeredTools, plugboard } from "./helpers.ts";

/** The server's program (its folder is the workspace it is started in). */
export const CHANGING_SERVER = join(import.meta.dir, "fixtures/changing-server/server.ts");

/** What the server in `dir`'s workspace lists from its next start on. */
export function serveTools(dir: string, tools: readonly { name: string; description: string; inputSchema?: object }[]): Promise<void> {
  return writeFile(join(dir, "workspace/tools.json"), JSON.stringify(tools));
}

/** `plugboard run --config CONFIG hi` in `dir` against a model answering "ok": its exit code, stderr, and the tools of the model's first request. */
export async function runOffered(config: string, dir: string): Promise<{ code: number; stderr: string; tools: string[] }> {
  await using model = await startScriptedModel([{ content: "ok" }]);
  const result = await plugboard(["run", "--config", config, "--base-url", model.baseURL, "hi"], { cwd: dir });
  return { code: result.code, stderr: result.stderr, tools: offeredTools(model) };
}
