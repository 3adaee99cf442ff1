/** Inputs are generated under a temp dir that is removed afterwards, even on failure. */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Writes dirty pages to disk (`sync`), so that the writeback of freshly generated inputs
 * does not compete with the measurement that follows.
 */
export async function flushToDisk(): Promise<void> {
  await Bun.spawn(["sync"], { stdio: ["ignore", "ignore", "inherit"] }).exited;
}

/** Runs `use` with a fresh folder under the system temp dir, then removes the folder. */
export async function withTempDir<T>(prefix: string, use: (folder: string) => Promise<T>): Promise<T> {
  const folder = await mkdtemp(join(tmpdir(), `plugboard-bench-${prefix}-`));
  try {
    return await use(folder);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}
