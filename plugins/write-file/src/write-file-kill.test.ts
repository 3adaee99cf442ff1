import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtemp, readdir, readFile, realpath, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

const NEW_SIZE = 8 * 1024 * 1024;
const WRITTEN_BEFORE_KILL = NEW_SIZE / 2;
const OLD = "the old content\n";

let root: string;

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "plugboard-write-kill-")));
});

afterAll(() => rm(root, { recursive: true, force: true }));

/**
 * The child writes big.txt through the real plugin and runtime. Its file handles write the
 * first half of what they are given, flush it, and then the process kills itself with
 * SIGKILL: a crash that lands exactly mid-write, with part of the new content on disk.
 */
const child = `
  import { open } from "node:fs/promises";
  import { pluginRuntime } from "@plugboard/testing";
  import plugin from ${JSON.stringify(join(import.meta.dir, "index.ts"))};
  const probe = await open("/dev/null");
  const FileHandle = Object.getPrototypeOf(probe);
  await probe.close();
  FileHandle.writeFile = async function (data) {
    await this.write(data.subarray(0, ${WRITTEN_BEFORE_KILL}));
    await this.sync();
    process.kill(process.pid, "SIGKILL");
  };
  const { call } = await pluginRuntime(plugin, { root: process.env.KILL_ROOT, options: { maxBytes: ${NEW_SIZE} } });
  console.log((await call("write_file", { path: "big.txt", content: "x".repeat(${NEW_SIZE}) })).content);
`;

test("a write killed midway leaves the old content, with the new one half-written only in a temp file", async () => {
  const target = join(root, "big.txt");
  await writeFile(target, OLD);

  const proc = Bun.spawn(["bun", "-e", child], {
    cwd: join(import.meta.dir, ".."),
    env: { ...process.env, KILL_ROOT: root },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);

  // The kill landed while writing: the child died by SIGKILL before printing a result...
  expect({ signal: proc.signalCode, stdout, stderr }).toEqual({ signal: "SIGKILL", stdout: "", stderr: "" });
  // ...after half of the new content reached the temp file beside the target...
  const temps = (await readdir(root)).filter((name) => name.startsWith(".big.txt.") && name.endsWith(".tmp"));
  expect(temps).toHaveLength(1);
  expect((await stat(join(root, temps[0] ?? ""))).size).toBe(WRITTEN_BEFORE_KILL);
  // ...and the target is exactly the old file, not a mix.
  expect(await readFile(target, "utf8")).toBe(OLD);
}, 30_000);
