/** Where things are, from this file: the repo root and the bench package. */
import { join } from "node:path";

/** The bench package's folder (`bench/`). */
export const BENCH_DIR = join(import.meta.dir, "..", "..");

/** The repository root. */
export const REPO_ROOT = join(BENCH_DIR, "..");
