import { afterAll, beforeAll, expect, test } from "bun:test";
import { watch } from "node:fs";
import { mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

const NEW_SIZE = 100 * 1024 * 1024;
const OLD = "the old content\n";

let root: string;

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "plugboard-write-kill-")));
});

afterAll(() => rm(root, { recursive: true, force: true }));

// The child writes 100 MB over big.txt through the real plugin and runtime.
const child = `
  import { ToolRegistry, ToolRuntime, Workspace, silentLogger } from "@plugboard/core";
  import plugin from ${JSON.stringify(join(import.meta.dir, "index.ts"))};
  const workspace = await Workspace.open(process.env.KILL_ROOT);
  const tools = plugin.tools({ maxBytes: ${NEW_SIZE} }, { workspace, logger: silentLogger });
  const runtime = new ToolRuntime(new ToolRegistry(tools), { workspace });
  const content = "x".repeat(${NEW_SIZE});
  console.log((await runtime.execute("write_file", JSON.stringify({ path: "big.txt", content }))).content);
`;

test("a write killed midway leaves exactly the old or exactly the new content", async () => {
  const target = join(root, "big.txt");
  await writeFile(target, OLD);

  const proc = Bun.spawn(["bun", "-e", child], {
    cwd: join(import.meta.dir, ".."),
    env: { ...process.env, KILL_ROOT: root },
    stdout: "pipe",
    stderr: "pipe",
  });
  // Kill the child the moment its temp file appears, while the 100 MB are being written.
  let sawTemp = false;
  const watcher = watch(root, (_, name) => {
    if (typeof name !== "string" || !name.startsWith(".big.txt.")) return;
    sawTemp = true;
    proc.kill("SIGKILL");
  });
  await proc.exited;
  watcher.close();

  // The child did reach the write (so the test is not passing on a child that failed early).
  expect(sawTemp).toBe(true);
  expect(proc.signalCode === "SIGKILL" || proc.exitCode === 0).toBe(true);

  const after = await readFile(target);
  const isOld = after.equals(Buffer.from(OLD));
  const isNew = after.length === NEW_SIZE && after.equals(Buffer.alloc(NEW_SIZE, "x"));
  expect(isOld || isNew).toBe(true);
}, 30_000);
