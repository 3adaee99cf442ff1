/**
 * Suite 6 — tools on big inputs, each against the Unix tool a person would use. Inputs are
 * generated under a temp dir and removed afterwards; `--quick` uses smaller ones.
 */
import type { FigureLog } from "../harness/figures.ts";
import type { RunMode } from "../harness/mode.ts";
import { withTempDir } from "../harness/temp.ts";
import { bashBench } from "./bash.ts";
import { editFileBench } from "./edit-file.ts";
import { globBench } from "./glob.ts";
import { readFileBench } from "./read-file.ts";

/** The group names in every report. */
export const BIG_INPUT_GROUPS = {
  readFile: "read_file on a big file",
  glob: "glob over many files",
  bash: "bash with a lot of output",
  editFile: "edit_file on a big file",
} as const;

const MiB = 2 ** 20;

/** The input sizes of a mode. */
export function bigInputSizes(quick: boolean) {
  return quick
    ? { readBytes: 100 * MiB, globFiles: 10_000, bashBytes: 100 * MiB, editBytes: 100 * MiB }
    : { readBytes: 1024 * MiB, globFiles: 100_000, bashBytes: 1024 * MiB, editBytes: 100 * MiB };
}

/** Runs the four comparisons. */
export async function bigInputs(mode: RunMode, log: FigureLog): Promise<void> {
  const sizes = bigInputSizes(mode.quick);
  const samples = mode.quick ? 3 : 5;
  mode.progress(`big inputs: read_file on ${sizes.readBytes / MiB} MiB`);
  await withTempDir("read", (folder) => readFileBench(folder, sizes.readBytes, samples, log, BIG_INPUT_GROUPS.readFile));
  mode.progress(`big inputs: glob over ${sizes.globFiles} files`);
  await withTempDir("glob", (folder) => globBench(folder, sizes.globFiles, samples, log, BIG_INPUT_GROUPS.glob));
  mode.progress(`big inputs: bash printing ${sizes.bashBytes / MiB} MiB`);
  await bashBench(sizes.bashBytes, mode.quick ? 2 : 3, log, BIG_INPUT_GROUPS.bash);
  mode.progress(`big inputs: edit_file on ${sizes.editBytes / MiB} MiB`);
  await withTempDir("edit", (folder) => editFileBench(folder, sizes.editBytes, samples, log, BIG_INPUT_GROUPS.editFile));
}
