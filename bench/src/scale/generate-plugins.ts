/**
 * Generates a config with `count` local plugins of one tool each, the way a plugin author
 * writes them: a folder with package.json, manifest and a TypeScript entry that imports
 * `@plugboard/core`. The folder gets a `node_modules` linking core and TypeBox, so the
 * entries resolve them as an installed app's plugins would.
 */
import { mkdir, realpath, symlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { BENCH_DIR } from "../harness/paths.ts";

/** Writes the plugins and the config under `folder`; returns the config's path. */
export async function generatePlugins(folder: string, count: number): Promise<string> {
  await linkPackage(folder, "@plugboard/core");
  await linkPackage(folder, "@sinclair/typebox");
  const entries: { path: string; permissions: string[] }[] = [];
  for (let index = 1; index <= count; index++) {
    const id = String(index).padStart(4, "0");
    const directory = join(folder, "plugins", `p${id}`);
    await writePlugin(directory, id);
    entries.push({ path: `./plugins/p${id}`, permissions: [] });
  }
  const configPath = join(folder, "plugboard.config.json");
  // The bootstrap's own cost per plugin, in process: what confined hosts cost is the sandbox suite's.
  await writeFile(configPath, JSON.stringify({ workspace: ".", sandbox: "off", plugins: entries }, null, 2));
  return configPath;
}

async function writePlugin(directory: string, id: string): Promise<void> {
  const name = `bench-plugin-${id}`;
  const tool = `tool_${id}`;
  await mkdir(join(directory, "src"), { recursive: true });
  await writeFile(join(directory, "package.json"), JSON.stringify({ name, version: "1.0.0", type: "module" }));
  await writeFile(
    join(directory, "plugboard.plugin.json"),
    JSON.stringify({
      name,
      version: "1.0.0",
      contract: "^1.0.0",
      entry: "./src/index.ts",
      tools: [{ name: tool, description: `Echo tool number ${id}.` }],
      permissions: [],
    }),
  );
  await writeFile(
    join(directory, "src", "index.ts"),
    `import { definePlugin, defineTool, textResult } from "@plugboard/core";
import { Type } from "@sinclair/typebox";

export default definePlugin({
  options: Type.Object({}),
  tools: () => [
    defineTool({
      name: "${tool}",
      description: "Echo tool number ${id}: repeats the text.",
      parameters: Type.Object({ text: Type.String(), times: Type.Optional(Type.Integer({ minimum: 1 })) }),
      handler: async ({ text }) => textResult(text),
    }),
  ],
});
`,
  );
}

/** Links `folder/node_modules/NAME` to the copy the bench package uses. */
async function linkPackage(folder: string, name: string): Promise<void> {
  const target = await realpath(join(BENCH_DIR, "node_modules", name));
  const link = join(folder, "node_modules", name);
  await mkdir(dirname(link), { recursive: true });
  await symlink(target, link, "dir");
}
