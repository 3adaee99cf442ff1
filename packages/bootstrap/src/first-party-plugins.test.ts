import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import { configWith, removeTempDirs } from "../test/temp-app.ts";
import { buildApp } from "./index.ts";

afterEach(removeTempDirs);

const plugins = join(import.meta.dir, "../../../plugins");

test("a config listing only read_file and glob: write_file does not exist for the model", async () => {
  const app = await buildApp(
    await configWith([
      { path: join(plugins, "read-file"), permissions: ["fs.read"] },
      { path: join(plugins, "glob"), permissions: ["fs.read"] },
    ]),
  );
  expect(app.plugins.map((plugin) => plugin.name)).toEqual(["@plugboard/plugin-read-file", "@plugboard/plugin-glob"]);
  expect(app.runtime.schemas().map((tool) => tool.function.name)).toEqual(["read_file", "glob"]);
  expect(await app.runtime.execute("write_file", '{"path":"a.txt","content":"x"}')).toEqual({
    content: "Error: Unknown tool: write_file (available: read_file, glob)",
    isError: true,
  });
  const found = await app.runtime.execute("glob", '{"pattern":"*.json"}');
  expect(found.isError).toBe(false);
  expect(found.content).toContain("plugboard.json");
});
