/** BENCHMARKS.md section 10 (the sandbox): what exactly is measured, and a reading of the figures. */
import { formatNumber as n } from "../harness/format.ts";
import { FILE_OPERATIONS_GROUP, NPX_GROUP, SANDBOX_GROUP, SANDBOX_GROUPS, START_STEPS_GROUP } from "../sandbox/groups.ts";
import type { FigureIndex } from "./lookup.ts";
import type { Section } from "./section.ts";

const SERVER = "@modelcontextprotocol/server-everything";

const sandboxCosts: Section = {
  title: "10. The sandbox: confined plugin hosts",
  groups: SANDBOX_GROUPS,
  measured: () =>
    [
      "Per call: `runtime.execute(\"read_file\", '{\"path\":\"notes.txt\"}')` on a one-line file, after warm-up calls, with the",
      "read-file plugin in the app's process (`\"sandbox\": \"off\"`) and in its confined plugin host (`\"sandbox\": \"auto\"`: the",
      "app's runtime → `@plugboard/mcp`'s client → the host's stdin/stdout → the SDK server → the host's runtime → the",
      "plugin, in a process that sees only the view built for it, restricted by Landlock and a seccomp filter, in its own",
      "user, PID, mount, IPC and network namespaces). Start-up: `buildApp` from the config file to a runtime with every tool",
      "listed, for the five first-party plugins in five hosts started in parallel (`freshHosts`: started and listed,",
      "whatever the listing cache holds), for one host (read_file's: `confineCommand`, the spawn, up to the host answering",
      "its tool listing), and for the five plugins in process; each sample also closes the hosts.",
      "*File operations*: what confinement adds to each operation once a host runs, the kernel's work alone (the view's",
      "mounts on each path lookup, Landlock's checks on each open, the seccomp filter on each system call): one script",
      "times 10,000 `statSync`, `readFileSync` and `Bun.file().text()` calls of a one-line workspace file, as one sample",
      "(several per process), run confined through `confineCommand` exactly as read_file's host is (grants `fs.read`, the",
      "same view) and unconfined with the same environment, in turn, round after round; the difference of the medians is",
      "what confinement adds.",
      "*One host's start, step by step*: the view's computation alone (the `confineCommand` call for read_file's host,",
      "which walks the package closure at every host start), and the confining step alone: `bun -e 0` confined as",
      "read_file's host (`unshare`, then `bun confine-main.ts`, which mounts the view, applies Landlock and seccomp and",
      "`execve`s the program), under `unshare`'s namespaces only, and unconfined, and a plain `bun -e` that only imports",
      "confine-main.ts (the first Bun's share that is loading code), spawn to exit, in turn.",
      `*npx*: \`bun apps/cli/scripts/start.ts tools --config CFG\` with a config mounting only \`${SERVER}\` by`,
      "`npx -y` (confined, grants `process.spawn` and `network`) and an `XDG_CACHE_HOME` under a fresh temp folder: the",
      "first start once (npx downloads the package into the server's own cache folder, its `HOME`), then the second start",
      "three times; not measured when `npm view` gets no answer from the registry within 20 s.",
      "Goals: under 0.1 ms added per file operation, under 0.5 ms per call, under 100 ms to start the five hosts, under",
      "2 s for an npx server's second start. The 1-minute load average at the start and end of the suite is in the table:",
      "this machine is shared, and a busy machine inflates every row, start-up most. `bun run --cwd bench sandbox`",
      "refreshes this section alone.",
    ].join(" "),
  reading: (index: FigureIndex, env) => [fileOperationsReading(index), ...hostReadings(index, env.cores), npxReading(index)],
};

function fileOperationsReading(index: FigureIndex): string {
  const value = (name: string) => index.value(FILE_OPERATIONS_GROUP, name);
  const largest = value("largest added cost per operation");
  if (Number.isNaN(largest)) return "The file operations were not measured in this run.";
  const added = (operation: string) => {
    const times = `${n(value(`${operation}, confined`))} against ${n(value(`${operation}, unconfined`))} µs`;
    const difference = value(`${operation}, added by confinement`);
    // A negative difference is the machine's noise: the confined runs happened to be faster.
    return difference > 0 ? `${n(difference)} µs on \`${operation}\` (${times})` : `nothing measurable on \`${operation}\` (${times})`;
  };
  return `Inside a running host, confinement adds ${added("statSync")}, ${added("readFileSync")} and ${added("Bun.file().text()")}: at most ${n(largest * 100)} µs per operation, ${largest <= 1 ? "within" : "over"} the 0.1 ms goal. An open pays Landlock's check (a walk from the file up the path, against the ruleset) and the seccomp filter runs on every system call; a \`stat\` pays only the filter and the lookup through the view's mounts. A few microseconds are nothing next to a call's round trip to its host (below) or a model's answer: confinement costs at the process's start and in each call's round trip, not in what a tool does with files.`;
}

function hostReadings(index: FigureIndex, cores: number): string[] {
  const value = (name: string) => index.value(SANDBOX_GROUP, name);
  const step = (name: string) => index.value(START_STEPS_GROUP, name);
  const overhead = value("overhead of confinement per call");
  const five = value("buildApp, five first-party plugins confined");
  const one = value("buildApp, one plugin confined");
  const load = value("1-minute load average, start of the suite");
  const confining = step("the confining step");
  return [
    `A confined call costs ${n(overhead)} µs more than the same call in process (${n(value("read_file, plugin in its confined host"))} against ${n(value("read_file, plugin in the app's process"))} µs): ${overhead < 500 ? "within" : "over"} the 0.5 ms goal. The cost is the MCP round trip (two JSON-RPC messages through two pipes, the SDK's zod checks on both sides, the JSON Schema check of the arguments in the app) and a second event loop; the kernel's part is the few microseconds per file operation above.`,
    `Starting the hosts ${five < 100 ? "meets" : "misses"} the 100 ms goal: five hosts in parallel take ${n(five)} ms and one host ${n(one)} ms (at a load average of ${n(load)} on ${cores} cores), against ${n(value("buildApp, five first-party plugins in process"))} ms in process: each host is two Bun start-ups, so on ${cores} cores five hosts are ten. Of one host's start, computing its view takes ${n(step("the view's computation"))} ms and the confining step ${n(confining)} ms (\`bun -e 0\` confined: ${n(step("bun -e 0 confined"))} ms, against ${n(step("bun -e 0, unconfined"))} ms unconfined): ${n(step("of which the namespaces"))} ms for \`unshare\`'s namespaces, ${n(step("of which confine-main.ts"))} ms for the first Bun, which mounts the view, applies Landlock and seccomp and \`execve\`s the host (Landlock binds only the calling thread, so Bun must start already restricted): of that, ${n(step("of which the first Bun, loading"))} ms is that Bun starting and loading confine-main.ts's modules, and ${n(step("of which mounting the view"))} ms the mounts, Landlock, seccomp and the \`execve\`. The rest of the ${n(one)} ms, about ${n(one - confining - step("bun -e 0, unconfined"))} ms beyond a bare Bun start, is the host loading the bootstrap's loader, the MCP SDK's server (with zod) and the plugin, the listing's round trip and the close. An app pays it only on the first start after a plugin changed: what each host listed is kept (the listing cache), an app whose plugins did not change mounts their tools at once, and a host starts on the first call of one of its tools, paying one host's start then (section 5: \`plugboard tools\` starts none). Built from the listing cache, the same five confined plugins take ${n(value("buildApp, five plugins confined, tools from the listing cache"))} ms. What would shorten a host's own start: a confining step that is not a Bun process (a small static helper), or a host that loads only the plugin and a minimal JSON-RPC loop instead of the SDK server. The per-call protocol is the SDK's, as decided; none of this changes what is enforced.`,
  ];
}

function npxReading(index: FigureIndex): string {
  const value = (name: string) => index.value(NPX_GROUP, name);
  const second = value("plugboard tools, @modelcontextprotocol/server-everything by npx -y: second start");
  const first = value("plugboard tools, @modelcontextprotocol/server-everything by npx -y: first start");
  if (Number.isNaN(second)) return `The npx server's starts were not measured in this run: ${index.find(NPX_GROUP, "plugboard tools")?.note ?? "no figure"}.`;
  return `With its cache folder kept, \`plugboard tools\` with \`${SERVER}\` by \`npx -y\` starts in ${n(second)} s the second time, against ${n(first)} s the first (the download): ${second <= 2 ? "within" : "over"} the 2 s goal (the figure reported before this work: 5.4 s, no faster than the first). What remains is npx's own start, Node starting the server, its listing and the confining step.`;
}

/** Section 10. */
export const SANDBOX_SECTIONS: readonly Section[] = [sandboxCosts];
