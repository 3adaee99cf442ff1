import { expect, test } from "bun:test";
import { entryFailure, PlugboardError } from "./index.ts";

test("an entry's failure reads: the problem, its details, the entry in the config, the fix", () => {
  const cause = new Error("boom");
  const error = entryFailure("PLUGIN_IMPORT", { index: 2, configPath: "/app/plugboard.json" }, { problem: "Plugin x failed to load.", details: ["entry: /x/src/index.ts"], fix: "Fix it.", cause });
  expect(error).toBeInstanceOf(PlugboardError);
  expect(error.name).toBe("PlugboardError");
  expect(error.code).toBe("PLUGIN_IMPORT");
  expect(error.message).toBe("Plugin x failed to load.\n  entry: /x/src/index.ts\n  config: plugins[2] in /app/plugboard.json\nFix it.");
  expect(error.cause).toBe(cause);
});

test("without a cause, the error has none", () => {
  const error = entryFailure("MCP_SERVER", { index: 0, configPath: "/c.json" }, { problem: "P", fix: "F" });
  expect(error.message).toBe("P\n  config: plugins[0] in /c.json\nF");
  expect("cause" in error).toBe(false);
});
