/**
 * What pinning the code costs at each start (DESIGN.md, fourth edition: "Code that runs"):
 * the shipped config's five plugins, resolved from the CLI's folder as the CLI resolves
 * them, checked against plugboard.lock.json (the release pins them: nothing to hash), and the
 * paths kept read-only because they are code when the workspace is the checkout itself (the
 * README's layout; the closure read from its kept walk, as the second start finds it). Then,
 * for scale, the same five plugins as copies outside the app, each one's files hashed and
 * compared with its pin at every start.
 */
import { cp, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { FigureLog } from "../harness/figures.ts";
import { summarize, timeRuns, timingFigure } from "../harness/measure.ts";
import type { RunMode } from "../harness/mode.ts";
import { REPO_ROOT } from "../harness/paths.ts";
// The sources the bootstrap loads; the bench package declares neither subpath.
import { pinCode, pinnedCode } from "../../../packages/bootstrap/src/code-pins.ts";
import { SANDBOX_GROUP } from "./groups.ts";

/** The goal for verifying the shipped config's pins at a (warm) start, in ms. */
const GOAL_MS = 5;
const CLI_FOLDER = join(REPO_ROOT, "apps/cli");
const NAMES = ["bash", "read-file", "write-file", "edit-file", "glob"];
const PIN_CHILD = join(import.meta.dir, "pins-child.ts");

/** Measures the pins' check at start in `dir` (a temp folder of the suite). */
export async function pins(mode: RunMode, log: FigureLog, dir: string, cacheFolder: string): Promise<void> {
  mode.progress("sandbox: the code pins and the protected code at start");
  const runs = { samples: mode.quick ? 30 : 200, warmup: 5 };
  const ms = (name: string, timing: Parameters<typeof timingFigure>[2], note?: string) => log.add(timingFigure(SANDBOX_GROUP, name, timing, "ms", 1e6, note));
  const lockPath = join(dir, "pins.lock.json");
  const shipped = NAMES.map((name, index) => ({ origin: "app" as const, directory: join(REPO_ROOT, "plugins", name), manifest: { name: `@plugboard/plugin-${name}` }, where: { index } }));
  const closureCache = join(cacheFolder, "closures.json");
  // A new process each sample, as a start is: the walk's closure comes from its kept file, what it read is stat'ed again.
  const fresh = async () => {
    const child = Bun.spawn([process.execPath, PIN_CHILD, lockPath, CLI_FOLDER, REPO_ROOT, closureCache, JSON.stringify(shipped)], { stdout: "pipe", stderr: "inherit" });
    const [text, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
    if (code !== 0) throw new Error(`the pins' child exited ${code}`);
    const [pinned = Number.NaN, protectedCode = Number.NaN] = text.trim().split(" ").map(Number);
    return { pinned, protectedCode };
  };
  await fresh();
  const samples: { pinned: number; protectedCode: number }[] = [];
  for (let index = 0; index < (mode.quick ? 5 : 21); index += 1) samples.push(await fresh());
  const shippedCheck = ms(
    "the shipped config's code pins checked at start (warm)",
    summarize(samples.map(({ pinned }) => pinned * 1e6)),
    "in a new process each time, its modules loaded: the release pins the shipped plugins (nothing is hashed), the lock is not read",
  );
  ms(
    "the paths kept read-only as code, the workspace being the checkout (warm)",
    summarize(samples.map(({ protectedCode }) => protectedCode * 1e6)),
    "the closure of apps/cli and the five plugins, from its kept walk (each path it read stat'ed again); part of the first host's start",
  );
  log.ratio(SANDBOX_GROUP, `verifying the shipped config's pins at start / ${GOAL_MS} ms`, shippedCheck, GOAL_MS, { op: "<=", limit: 1 });

  // The same five as copies beside a config: each one's files hashed and compared with its pin.
  const copies = await Promise.all(
    NAMES.map(async (name, index) => {
      const directory = join(dir, "copies", name);
      await cp(join(REPO_ROOT, "plugins", name), directory, { recursive: true, filter: (source) => !source.includes("node_modules") });
      const manifest = JSON.parse(await readFile(join(directory, "plugboard.plugin.json"), "utf8")) as { name: string };
      return { origin: "path" as const, directory, manifest: { name: `copy-of-${manifest.name}` }, where: { index } };
    }),
  );
  const copiesLock = join(dir, "copies.lock.json");
  await pinCode(copiesLock, await pinnedCode(copies, CLI_FOLDER, dir));
  ms(
    "five plugins' code hashed and compared with their pins (path entries outside the app)",
    await timeRuns(async () => pinCode(copiesLock, await pinnedCode(copies, CLI_FOLDER, dir)), runs),
    "each file of each package (but node_modules) read and hashed with SHA-256 at every start",
  );
}
