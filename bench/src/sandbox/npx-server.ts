/**
 * The second start of an MCP server run with `npx -y`, confined: `plugboard tools` (`bun
 * apps/cli/scripts/start.ts tools --config CFG`) with a config mounting only that server, and
 * a fixed `XDG_CACHE_HOME` under a temp folder. The first start, with that cache empty,
 * fills the server's own cache folder (its `HOME`, where npx keeps the package); the second
 * start should find it there. Skipped, with a note, when the npm registry does not answer.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { coldEnv } from "../cold-start.ts";
import type { FigureLog } from "../harness/figures.ts";
import { summarize, timingFigure } from "../harness/measure.ts";
import type { RunMode } from "../harness/mode.ts";
import { REPO_ROOT } from "../harness/paths.ts";
import { runProcess } from "../harness/process.ts";
import { withTempDir } from "../harness/temp.ts";
import { NPX_GROUP } from "./groups.ts";

const SERVER = "@modelcontextprotocol/server-everything";
const START = join(REPO_ROOT, "apps/cli/scripts/start.ts");
const ENTRY = { mcp: { command: "npx", args: ["-y", SERVER] }, name: "everything", permissions: ["process.spawn", "network"] };
const SECOND_STARTS = 3;
/** The goal for the second start, in seconds. */
const GOAL_S = 2;
const PROBE_TIMEOUT_MS = 20_000;

/** Measures the first start once and the second start `SECOND_STARTS` times. */
export async function npxServer(mode: RunMode, log: FigureLog): Promise<void> {
  const second = `plugboard tools, ${SERVER} by npx -y: second start`;
  const version = await registryVersion();
  if (version === undefined) {
    mode.progress("sandbox: the npm registry did not answer; the npx server's starts are not measured");
    log.add({ group: NPX_GROUP, name: second, value: Number.NaN, unit: "", note: `not measured: npm view ${SERVER} version did not answer within ${PROBE_TIMEOUT_MS / 1000} s (or npm is missing)` });
    return;
  }
  mode.progress(`sandbox: ${SERVER} ${version} by npx -y, the first start (empty cache), then the second, ${SECOND_STARTS} times`);
  // Builds the CLI bundle when a source is newer (as `bun run plugboard` does), untimed.
  await runProcess([process.execPath, START, "--version"], { cwd: REPO_ROOT, env: coldEnv() });
  await withTempDir("npx", async (dir) => {
    const config = join(dir, "plugboard.config.json");
    await writeFile(config, JSON.stringify({ workspace: ".", plugins: [ENTRY] }));
    const env = { ...coldEnv(), XDG_CACHE_HOME: join(dir, "cache") };
    const tools = async () => {
      const run = await runProcess([process.execPath, START, "tools", "--config", config], { cwd: dir, env, capture: true });
      if (!run.stdout.includes("echo(")) throw new Error(`plugboard tools did not list the server's echo tool:\n${run.stdout}${run.stderr}`);
      return run.wallMs;
    };
    const first = await tools();
    log.add({ group: NPX_GROUP, name: `plugboard tools, ${SERVER} by npx -y: first start`, value: first / 1000, unit: "s", note: `version ${version}; an empty XDG_CACHE_HOME: npx downloads the package into the server's cache folder` });
    const walls: number[] = [];
    for (let run = 0; run < SECOND_STARTS; run++) walls.push(await tools());
    const median = log.add(timingFigure(NPX_GROUP, second, summarize(walls), "s", 1000, "the same XDG_CACHE_HOME: npx finds the package in the server's cache folder"));
    log.ratio(NPX_GROUP, "second start / 2 s", median, GOAL_S, { op: "<=", limit: 1 });
    log.ratio(NPX_GROUP, "second start / first start", median, first / 1000);
  });
}

/** The server's latest version as the registry gives it, or undefined when it does not answer in time. */
async function registryVersion(): Promise<string | undefined> {
  const npm = Bun.which("npm");
  if (npm === null) return undefined;
  const probe = Bun.spawn([npm, "view", SERVER, "version"], { env: coldEnv(), stdin: "ignore", stdout: "pipe", stderr: "ignore", timeout: PROBE_TIMEOUT_MS });
  const [stdout, code] = await Promise.all([new Response(probe.stdout).text(), probe.exited]);
  return code === 0 && stdout.trim() !== "" ? stdout.trim() : undefined;
}
