/** Inputs are generated under a temp dir that is removed afterwards, even on failure. */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Runs `use` with a fresh folder under the system temp dir, then removes the folder. */
export async function withTempDir<T>(prefix: string, use: (folder: string) => Promise<T>): Promise<T> {
  const folder = await mkdtemp(join(tmpdir(), `plugboard-bench-${prefix}-`));
  try {
    return await use(folder);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}
