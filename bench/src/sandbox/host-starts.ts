/**
 * Start-up of the hosts: `buildApp` with `freshHosts` (every host started and listed, as on
 * the first start after a plugin changed), from the config file to a runtime whose tools
 * are listed, each sample closing the hosts too. The shipped config's five plugins as
 * package entries resolved from the CLI's folder (`appFolder`), so they share hosts as in
 * the CLI (read_file and glob: one); the same five as path entries (a host each); one host
 * alone; the five in process; and the shipped five from the listing cache (no host starts).
 */
import { readFile } from "node:fs/promises";
import { basename, join } from "node:path";
import type { FigureLog } from "../harness/figures.ts";
import { type Timing, timeRunsWithSetup, timingFigure } from "../harness/measure.ts";
import type { RunMode } from "../harness/mode.ts";
import { REPO_ROOT } from "../harness/paths.ts";
import { pssOfTree } from "../harness/pss.ts";
import type { AppBuilds } from "./app-builds.ts";
import { SANDBOX_GROUP } from "./groups.ts";

/** The goal for starting an app's hosts, in ms. */
const GOAL_MS = 150;
const CLI_FOLDER = join(REPO_ROOT, "apps/cli");

/** Measures the start-ups, with first-party plugins as `paths` (path entries) and as the shipped config has them. */
export async function hostStarts(mode: RunMode, log: FigureLog, builds: AppBuilds, paths: readonly object[]): Promise<void> {
  mode.progress("sandbox: start-up of the shipped config's hosts, of five path entries' hosts, of one host, and in process");
  const shipped = (JSON.parse(await readFile(join(CLI_FOLDER, "plugboard.config.json"), "utf8")) as { plugins: object[] }).plugins;
  const starts = { samples: mode.quick ? 3 : 9, warmup: 1 };
  const startOf = (name: string, sandbox: "auto" | "off", plugins: readonly object[], options: { fresh?: boolean; appFolder?: string } = {}) =>
    timeRunsWithSetup(
      () => undefined,
      async () => builds.close(await builds.build(name, sandbox, plugins, { freshHosts: options.fresh ?? true, ...(options.appFolder ? { appFolder: options.appFolder } : {}) })),
      starts,
    );
  const ms = (name: string, timing: Timing, note?: string) => log.add(timingFigure(SANDBOX_GROUP, name, timing, "ms", 1e6, note));
  const hostsOf = async (plugins: readonly object[], appFolder?: string) => {
    const before = unshareCount();
    const built = await builds.build("count", "auto", plugins, { freshHosts: true, ...(appFolder ? { appFolder } : {}) });
    const count = unshareCount() - before;
    await builds.close(built);
    return count;
  };

  const sharing = await hostsOf(shipped, CLI_FOLDER);
  const shippedStart = ms(
    `buildApp, the shipped config's five plugins confined (${sharing} hosts in parallel)`,
    await startOf("shipped-confined", "auto", shipped, { appFolder: CLI_FOLDER }),
    "package entries resolved from apps/cli, as the CLI resolves them: first-party plugins with the same grants share a host; includes closing the hosts",
  );
  log.ratio(SANDBOX_GROUP, `the shipped config's hosts started / ${GOAL_MS} ms`, shippedStart, GOAL_MS, { op: "<=", limit: 1 });
  const separate = await hostsOf(paths);
  const pathStart = ms(
    `buildApp, five first-party plugins confined as path entries (${separate} hosts in parallel)`,
    await startOf("paths-confined", "auto", paths),
    "a path entry has a host of its own: none shared; includes closing the hosts",
  );
  log.ratio(SANDBOX_GROUP, `five path entries' hosts started / ${GOAL_MS} ms`, pathStart, GOAL_MS, { op: "<=", limit: 1 });
  ms("buildApp, one plugin confined (read_file's host)", await startOf("one-confined", "auto", paths.slice(1, 2)));
  ms("buildApp, five first-party plugins in process", await startOf("five-off", "off", shipped, { appFolder: CLI_FOLDER }));
  ms(
    "buildApp, the shipped config's five plugins confined, tools from the listing cache",
    await startOf("shipped-confined", "auto", shipped, { fresh: false, appFolder: CLI_FOLDER }),
    "what each host listed is kept: no host starts until a call",
  );
}

/** How many `unshare` processes (one per confined host) descend from the bench's process. */
function unshareCount(): number {
  return pssOfTree(process.pid).filter((member) => basename(member.argv[0] ?? "") === "unshare").length;
}
