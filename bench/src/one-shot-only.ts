/**
 * `bun run --cwd bench one-shot`: measures only the one-shot suite (one confined command
 * against Codex's and Anthropic's sandboxes, and Plugboard's stages), in full, and puts its
 * figures in place of the ones in `bench/results/latest.json`, then renders BENCHMARKS.md
 * again. The other figures stay those of the last full run; the load during this run is in
 * its rows. A quick look that leaves the committed figures alone:
 * `bun run bench --quick --only one-shot`.
 */
import { ONE_SHOT_GROUPS } from "./one-shot/groups.ts";
import { oneShot } from "./one-shot/one-shot.ts";
import { refreshSuite } from "./report/refresh-suite.ts";

await refreshSuite({ name: "one-shot", groups: ONE_SHOT_GROUPS, suite: oneShot, load: false });
