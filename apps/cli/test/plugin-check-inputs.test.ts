/**
 * `plugboard plugin check` and the plugin's own `bun test` (the conformance suite) check the
 * same inputs: both read the plugin's plugboard.check.json, so an input there that fails the
 * suite fails the command too, with the same reason.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { symlink } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { plugboard, STACK_FRAME, tempFolder } from "./helpers.ts";

// Each check starts real processes: the harness, bun pm pack, the sandbox.
setDefaultTimeout(120_000);

const CLI_MODULES = fileURLToPath(new URL("../node_modules", import.meta.url));

/** A tool that answers every input with a result, except one key, on which it has a bug. */
const CODE = `import { definePlugin, defineTool, textResult, Type } from "@plugboard/core";

export default definePlugin({
  options: Type.Object({}, { additionalProperties: false }),
  tools: () => [
    defineTool({
      name: "lookup",
      description: "Look a key up.",
      parameters: Type.Object({ key: Type.String() }, { additionalProperties: false }),
      handler: async ({ key }) => {
        if (key === "boom") throw new TypeError("a bug on boom");
        return textResult(\`no entry for \${key}\`);
      },
    }),
  ],
});
`;

const FILES: Record<string, string> = {
  "package.json": JSON.stringify({
    name: "plugboard-plugin-lookup",
    version: "0.1.0",
    type: "module",
    exports: { ".": "./src/index.ts", "./plugboard.plugin.json": "./plugboard.plugin.json", "./package.json": "./package.json" },
    files: ["src", "plugboard.plugin.json"],
    peerDependencies: { "@plugboard/core": "^0.1.0" },
    devDependencies: { "@plugboard/testing": "^0.1.0" },
  }),
  "plugboard.plugin.json": JSON.stringify({
    name: "plugboard-plugin-lookup",
    version: "0.1.0",
    contract: "^1.0.0",
    entry: "./src/index.ts",
    tools: [{ name: "lookup", description: "Look a key up." }],
    permissions: [],
  }),
  "src/index.ts": CODE,
  "src/index.test.ts": `import { join } from "node:path";\nimport { conformanceSuite } from "@plugboard/testing/suite";\n\nconformanceSuite(join(import.meta.dir, ".."));\n`,
};

const REASON = 'lookup {"key":"boom"}: threw TypeError: a bug on boom';

let dir = "";
let remove = async () => {};
beforeAll(async () => {
  ({ dir, remove } = await tempFolder());
});
afterAll(() => remove());

async function pluginFolder(name: string, checkInputs: string | undefined): Promise<string> {
  const folder = join(dir, name);
  for (const [path, content] of Object.entries(FILES)) await Bun.write(join(folder, path), content);
  if (checkInputs !== undefined) await Bun.write(join(folder, "plugboard.check.json"), checkInputs);
  await symlink(CLI_MODULES, join(folder, "node_modules"));
  return folder;
}

function bunTest(folder: string): { code: number; output: string } {
  const run = Bun.spawnSync(["bun", "test"], { cwd: folder, env: { ...process.env, NO_COLOR: "1" }, stdout: "pipe", stderr: "pipe" });
  return { code: run.exitCode, output: `${run.stdout}${run.stderr}` };
}

describe("plugboard plugin check reads the suite's inputs from plugboard.check.json", () => {
  test("an input there that fails the plugin's bun test fails plugin check too, with the same reason", async () => {
    const folder = await pluginFolder("failing-input", `${JSON.stringify({ unfitInputs: { lookup: [{ key: "boom" }] } }, null, 2)}\n`);
    const tested = bunTest(folder);
    expect(tested.output).toContain(REASON);
    expect(tested.code).not.toBe(0);

    const checked = await plugboard(["plugin", "check", folder], { cwd: dir });
    expect(checked.stdout).toContain(`✗ bad input gives Error: results, not exceptions\n    ${REASON}\n`);
    expect(checked.code).toBe(1);
  });

  test("without that input both pass", async () => {
    const folder = await pluginFolder("no-inputs", undefined);
    expect(bunTest(folder).code).toBe(0);
    const checked = await plugboard(["plugin", "check", folder], { cwd: dir });
    expect(checked.stdout).toContain("✓ bad input gives Error: results, not exceptions\n");
    expect(checked.code).toBe(0);
  });

  test("a plugboard.check.json that is not of the shape: one message naming the file and the key, exit 2", async () => {
    const folder = await pluginFolder("bad-inputs", JSON.stringify({ slowInput: {} }));
    const checked = await plugboard(["plugin", "check", folder], { cwd: dir });
    expect(checked.code).toBe(2);
    expect(checked.stderr).toContain(`${join(folder, "plugboard.check.json")} is not valid:\n  /slowInput: Unexpected property`);
    expect(checked.stderr).not.toContain(STACK_FRAME);
  });
});
