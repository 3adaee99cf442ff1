/** Real temp folders for tests, removed together after each test. */
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

const made: string[] = [];

/** A new empty temp folder (real path), removed by `removeTempDirs`. */
export async function tempDir(prefix = "plugboard-test-"): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), prefix)));
  made.push(dir);
  return dir;
}

/** Removes every folder `tempDir` made; call it in `afterEach` or `afterAll`. */
export async function removeTempDirs(): Promise<void> {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}
