/** BENCHMARKS.md section 10 (the sandbox): what exactly is measured, and a reading of the figures. */
import { formatNumber as n } from "../harness/format.ts";
import { CLI_GROUP, EGRESS_GROUP, FILE_OPERATIONS_GROUP, NPX_GROUP, SANDBOX_GROUP, SANDBOX_GROUPS, START_STEPS_GROUP } from "../sandbox/groups.ts";
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
      "app's runtime → one line of plugboard's host protocol (JSON) on the host's stdin → the host's runtime → the plugin,",
      "and the result back as one line on its stdout, in a process that sees only the view built for it, restricted by",
      "Landlock and a seccomp filter, in its own user, PID, mount, IPC and network namespaces).",
      "*Start-up*: `buildApp` from the config file to a runtime with every tool listed, with `freshHosts` (every host started",
      "and listed, whatever the listing cache holds), each sample also closing the hosts: the shipped config's five plugins",
      "as package entries resolved from `apps/cli` (`appFolder`), so that first-party plugins with the same grants share a",
      "host as in the CLI (four hosts: read_file and glob share one); the same five as path entries (five hosts: a path",
      "entry's host is its own); one host (read_file's); the five in process; and the shipped five from the listing cache",
      "(no host starts). The listing cache, the host programs and the record of writable spans are in a temp folder.",
      "*The CLI*: the bundle (`apps/cli/dist/bin.js`, rebuilt first when a source is newer, as `bun run plugboard` does) run",
      "as `bun --no-env-file --config=/dev/null dist/bin.js` in a temp workspace, with the shipped config copied with",
      "`\"sandbox\": \"auto\"` and with `\"sandbox\": \"off\"`, its own `XDG_CACHE_HOME` and `XDG_STATE_HOME`, and the listing",
      "cache filled by an untimed run of each. *Memory*: the interactive `plugboard --base-url URL --yes` (stdin a pipe;",
      "`--yes` answers the shipped policy's asks) against `@plugboard/scripted-model`, scripted to call each of the five tools",
      "once in one response (bash `echo hi`, read_file, write_file, edit_file, glob), then to answer; once the answer is",
      "printed, a 1 s wait, then the PSS of the CLI's process tree (the sum of `Pss:` in `/proc/PID/smaps_rollup` over the",
      "CLI and every process descended from it), then stdin is closed and the CLI quits. No forced GC. Five sessions of",
      "each (three in --quick), in turn, median. The CLI runs on a copy of this Bun in the temp folder, which no process",
      "outside its tree maps: PSS divides a file's pages among every process that maps them, so on the installed Bun the",
      "tree's figure depends on how many other Bun processes run (the bench's own, anyone's tests); the same sessions on",
      "the installed Bun are in the table for information. *First call*: the wall time of a whole `plugboard call read_file",
      "'{\"path\":\"notes.txt\"}'` process, spawn to exit, confined (with the listing cache warm, read_file's host, shared",
      "with glob, starts while the app is built, buildApp's `warm`; the three others do not start) and with the sandbox",
      "off, 30 runs each (12 in --quick), in turn, median; then the same app built in the bench's process (loadConfig,",
      "buildApp as the CLI calls it, the call), which leaves the CLI's own start and exit out.",
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
      "confine-main.ts (the first Bun's share that is loading code), and `bun -e 0` confined with the default limits (one",
      "tree's cgroups, joined by each run's first process, and each private tmpfs sized), spawn to exit, in turn; then a",
      "tree's cgroups made below the app's and removed, in the app's process.",
      `*npx*: \`bun apps/cli/scripts/start.ts tools --config CFG\` with a config mounting only \`${SERVER}\` by`,
      "`npx -y` (confined, grants `process.spawn` and `network`) and an `XDG_CACHE_HOME` under a fresh temp folder: the",
      "first start once (npx downloads the package into the server's own cache folder, its `HOME`), then the second start",
      "three times; not measured when `npm view` gets no answer from the registry within 20 s.",
      "*Egress proxy* (a `network` grant narrowed to a list of hosts): `serveEgressProxy` on a loopback port in the bench's",
      "process, as the app runs it, admitting the origin's `127.0.0.1:PORT` and writing each connection's line to an audit",
      "log in a temp folder (`openAuditLog`, as the app does); the origin a `Bun.serve` in a process of its",
      "own (`/big` answers 64 MiB, `/small` two bytes); a client process fetching each directly and through the proxy",
      "(`fetch(url, { proxy, keepalive: false })`: a new connection each time, as the proxy makes every plain HTTP request",
      "one; the big body read as a stream and counted), in turn, after warm-up requests; five client processes of 300",
      "two-byte answers and 12 downloads each way (two of 100 and 5 in --quick), pooled. The download measures the relay:",
      "a connection's set-up is lost in 64 MiB, so what is left is the bytes' extra hop through the proxy (a 1 MiB download",
      "on loopback is mostly the second connection). The difference of the two-byte answers' medians is what the proxy adds",
      "to a connection (the client's connection to the proxy, the request's head read and checked, the audit line, the",
      "proxy's connection to the origin, the answer's extra hop).",
      "*Code pins* (pins.ts): `pinCode` and `codeProtections` in a new process per sample (21, five in --quick), their modules",
      "loaded, for the shipped config's plugins as the CLI resolves them and the checkout as workspace, after one start that",
      "kept the closure's walk; then five plugins copied outside the app, pinned once and checked 200 times in the bench's process.",
      "Goals: under 0.1 ms added per file operation, under 0.5 ms per call, at most 150 ms to start an app's hosts, at most 5 ms to check the shipped config's code pins at a start, at",
      "most twice the memory and 1.5 times the first call's time of the sandbox off, under 2 s for an npx server's second",
      "start, a 64 MiB download through the proxy at most 1.2 times as long as direct and at most 0.3 ms added per connection",
      "(`bun run --cwd bench egress` refreshes these rows alone). The 1-minute load average at the start and end of the suite is in the table: this machine is shared, and a",
      "busy machine inflates every row, start-up most. `bun run --cwd bench sandbox` refreshes this section alone.",
    ].join(" "),
  reading: (index: FigureIndex, env) => [fileOperationsReading(index), ...hostReadings(index, env.cores), pinsReading(index), ...cliReadings(index), npxReading(index), egressReading(index)],
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
  const shipped = value("buildApp, the shipped config's five plugins confined (");
  const paths = value("buildApp, five first-party plugins confined as path entries");
  const one = value("buildApp, one plugin confined");
  const load = value("1-minute load average, start of the suite");
  const confining = step("the confining step");
  const hosts = (name: string) => /\((\d+) hosts/.exec(index.find(SANDBOX_GROUP, name)?.name ?? "")?.[1] ?? "?";
  const verdict = (ms: number) => (ms <= 150 ? "within" : "over");
  return [
    `A confined call costs ${overhead >= 0 ? `${n(overhead)} µs more` : `no more (${n(-overhead)} µs less, the difference of two medians)`} than the same call in process (${n(value("read_file, plugin in its confined host"))} against ${n(value("read_file, plugin in the app's process"))} µs): ${overhead < 500 ? "within" : "over"} the 0.5 ms goal. The cost is the host protocol's round trip (a JSON line each way through two pipes; the arguments are checked once, in the app, by the compiled TypeBox check) and a second event loop; the kernel's part is the few microseconds per file operation above. On an idle machine both figures are mostly waiting for an idle CPU to wake (this machine is a VM: a file read hands its work to Bun's thread pool and waits for it; with another core kept busy, the same in-process call took about a quarter of the time when we checked), so the difference is the figure to read, not either alone.`,
    `Starting the shipped config's hosts takes ${n(shipped)} ms (${hosts("buildApp, the shipped config's")} hosts in parallel, read_file and glob in one): ${verdict(shipped)} the 150 ms goal; the same five plugins as path entries, ${hosts("buildApp, five first-party plugins confined as path")} hosts, take ${n(paths)} ms (${verdict(paths)} it), one host ${n(one)} ms, against ${n(value("buildApp, five first-party plugins in process"))} ms in process (at a load average of ${n(load)} on ${cores} cores: each host is a Bun start-up, its confining step's, which then runs the host program in place, so on ${cores} cores the hosts' starts queue for the CPU). Of one host's start, computing its view takes ${n(step("the view's computation"))} ms and the confining step ${n(confining)} ms (\`bun -e 0\` confined: ${n(step("bun -e 0 confined"))} ms, against ${n(step("bun -e 0, unconfined"))} ms unconfined): ${n(step("of which the namespaces"))} ms for \`unshare\`'s namespaces, ${n(step("of which confine-main.ts"))} ms for the first Bun, which mounts the view, applies Landlock and seccomp and runs the program (a host's in its own process, the step's threads all confined; here \`bun -e 0\`, which it \`execve\`s, as it would a program that is not a Bun script): of that, ${n(step("of which the first Bun, loading"))} ms is that Bun starting and loading confine-main.ts's modules, and ${n(step("of which mounting the view"))} ms the mounts, Landlock, seccomp and the \`execve\`. ${limitsReading(step)}The rest of the ${n(one)} ms, about ${n(one - confining)} ms, is the host program run in the step's process (one bundle with its bytecode, kept in the listing cache's folder; TypeBox's compiler, which a host needs only to compile a schema of a plugin's own, in a file beside it) and the plugin's own modules loading, the listing's round trip and the close. An app pays it only on the first start after a plugin changed: what each host listed is kept (the listing cache), an app whose plugins did not change mounts their tools at once, and a host starts on the first call of one of its tools (\`plugboard call\` starts the tool's host while the app is built). Built from the listing cache, the shipped five confined plugins take ${n(value("buildApp, the shipped config's five plugins confined, tools from the listing cache"))} ms.`,
  ];
}

/** What checking the code's pins and finding the code to keep read-only cost at a start (pins.ts). */
function pinsReading(index: FigureIndex): string {
  const value = (name: string) => index.value(SANDBOX_GROUP, name);
  const pins = value("the shipped config's code pins checked at start");
  return `Checking the shipped config's code pins at a start takes ${n(pins)} ms, in a new process with its modules loaded: ${pins <= 5 ? "within" : "over"} the 5 ms goal (the release pins the shipped plugins, so nothing is hashed and the lock is not read). Finding the paths to keep read-only as code when the workspace is the checkout itself (the Quick start's layout) takes ${n(value("the paths kept read-only as code"))} ms, once per app, at the first host's start: the closure of apps/cli and the plugins comes from its kept walk, and each path that walk read is stat'ed again. Hashing five plugins' files and comparing them with their pins, as for path entries outside the app, takes ${n(value("five plugins' code hashed and compared"))} ms.`;
}

/** What the default limits add to a host's start, when this run measured it. */
function limitsReading(step: (name: string) => number): string {
  const share = step("the limits' share");
  if (Number.isNaN(share)) return "";
  const added = share < 1 ? `no more to the confining step than the spread of a start (${n(share)} ms, the difference of two medians)` : `${n(share)} ms to the confining step`;
  return `The default limits — the confining step's first Bun writes itself into the tree's cgroups before the view is built (on cgroup v1 its own thread, through \`tasks\`, the one that then runs the host, which skips the kernel's wait for an RCU grace period that moving a whole process through \`cgroup.procs\` takes, 10 ms or more), and each private tmpfs gets a size — add ${added}; making and removing a tree's cgroups takes the app ${n(step("a tree's cgroups made and removed"))} ms. `;
}

function cliReadings(index: FigureIndex): string[] {
  const value = (name: string) => index.value(CLI_GROUP, name);
  const confined = value("PSS, five plugins confined");
  if (Number.isNaN(confined)) return ["The CLI's memory and first call were not measured in this run."];
  const ratio = value("PSS confined / PSS sandbox off");
  const hosts = index.inGroup(CLI_GROUP).filter((figure) => figure.name.startsWith("of which the host of "));
  const hostList = hosts.map((figure) => `${n(figure.value)} MB for ${figure.name.slice("of which the host of ".length).replace(", ", " and ")}'s`).join(", ");
  const call = value("plugboard call read_file, five plugins confined");
  const callOff = value("plugboard call read_file, sandbox off");
  const callRatio = value("first confined call / sandbox off");
  const inBench = value("in the bench's process: the app built and read_file called, five plugins confined");
  const host = value("of which read_file's host");
  const step = (name: string) => index.value(START_STEPS_GROUP, name);
  return [
    `After a turn that called each tool once, the CLI's process tree holds ${n(confined)} MB (PSS) with its five plugins confined against ${n(value("PSS, sandbox off"))} MB with the sandbox off: ${n(ratio)}×, ${ratio <= 2 ? "within" : "**over**"} the 2× goal. Of the ${n(confined)} MB, the CLI's own process holds ${n(value("of which the CLI's own process"))} MB and the hosts ${hostList} (${hosts.length} hosts; each is a Bun of its own, with its own heap and JavaScriptCore's structures, and shares with the others chiefly the pages of the Bun image and the host program's bundle), and the \`unshare\` above each host ${n(value("of which unshare"))} MB in all. On the installed Bun, whose pages PSS shares with every other Bun running, the same sessions read ${n(value("PSS on the installed Bun, five plugins confined"))} and ${n(value("PSS on the installed Bun, sandbox off"))} MB (${n(value("on the installed Bun: PSS confined"))}×): the Bun image is then partly counted in other processes, most of all for the lone CLI process of the sandbox off, so that ratio says more about the machine than about Plugboard.`,
    `A whole \`plugboard call read_file\` takes ${n(call)} ms confined against ${n(callOff)} ms with the sandbox off: ${n(callRatio)}×, ${callRatio <= 1.5 ? "within" : "**over**"} the 1.5× goal, ${n(call - callOff)} ms more. In the bench's process, where every module is loaded already, the same app built and called takes ${n(inBench)} ms confined against ${n(value("in the bench's process: the app built and read_file called, sandbox off"))} ms off: read_file's host, started while the app is built, listed and called, is ${n(host)} ms of it, of which the confining step (above) is ${n(step("the confining step"))} ms and a bare Bun start ${n(step("bun -e 0, unconfined"))} ms; the rest is the host program and the two plugins of that host (read_file and glob) loading, and the listing and the call's round trips. The CLI waits for the host to end when it closes the app, which adds to a confined run's wall time what the host takes to exit.`,
  ];
}

function npxReading(index: FigureIndex): string {
  const value = (name: string) => index.value(NPX_GROUP, name);
  const second = value("plugboard tools, @modelcontextprotocol/server-everything by npx -y: second start");
  const first = value("plugboard tools, @modelcontextprotocol/server-everything by npx -y: first start");
  if (Number.isNaN(second)) return `The npx server's starts were not measured in this run: ${index.find(NPX_GROUP, "plugboard tools")?.note ?? "no figure"}.`;
  return `With its cache folder kept, \`plugboard tools\` with \`${SERVER}\` by \`npx -y\` starts in ${n(second)} s the second time, against ${n(first)} s the first (the download): ${second <= 2 ? "within" : "over"} the 2 s goal (the figure reported before this work: 5.4 s, no faster than the first). What remains is npx's own start, Node starting the server, its listing and the confining step.`;
}

function egressReading(index: FigureIndex): string {
  const value = (name: string) => index.value(EGRESS_GROUP, name);
  const ratio = value("64 MiB download: through the proxy / direct");
  if (Number.isNaN(ratio)) return "The egress proxy was not measured in this run.";
  const added = value("added per connection by the proxy");
  return `Through the egress proxy a 64 MiB download takes ${n(value("64 MiB download, through the egress proxy"))} ms against ${n(value("64 MiB download, direct"))} ms directly (${n(value("throughput, through the egress proxy"))} against ${n(value("throughput, direct"))} MiB/s): ${n(ratio)}×, ${ratio <= 1.2 ? "within" : "**over**"} the 1.2× goal; a two-byte answer on a new connection takes ${n(value("a two-byte answer on a new connection, through the egress proxy"))} against ${n(value("a two-byte answer on a new connection, direct"))} ms, so the proxy adds ${n(added)} ms to each connection, ${added <= 0.3 ? "within" : "**over**"} the 0.3 ms goal. The proxy relays on Bun's native sockets (no \`node:net\` stream, no \`pipe\`): a chunk read from one socket is written straight to the other, and a write the kernel cannot take whole pauses the reading side until the other drains. A connection that has carried 256 KiB is handed to a worker thread that moves the rest with \`splice(2)\` through a pipe, so a download's bytes never enter the proxy's memory: the kernel moves the pages. Measured once with the proxy in a process of its own, one 64 MiB download cost the proxy about 70 ms of CPU relayed by \`node:net\`'s \`pipe\`, 54 ms copied through Bun's native sockets (a relay in C reading and writing 512 KiB at a time, socat, took 47 ms) and 24 to 29 ms with \`splice\`, the connection and its first 256 KiB included. Read per thread, the splicing worker's share of a download is almost all the kernel's: about 17 to 20 ms of system time and under 2 ms of its own, with the 1 MiB pipe it uses (pipes of 64 KiB, 256 KiB and 4 MiB cost 23 to 29 ms), and the same worker reading and writing through a 1 MiB buffer instead spent 27 to 30 ms. What is left is the kernel's work for the second TCP connection on loopback, and the client's: fed by a relay that passes each packet on as it comes, it reads the body in smaller pieces (mostly 64 KiB, against up to 256 KiB from a sender with the whole answer queued) and spent about 7 to 10 ms more CPU per download when we measured. On this machine's two cores the client, the origin and the proxy share the CPU, so the ratio moves with the machine's load: the second hop adds about 35 ms of CPU to the 85 ms the origin and the client spend directly, and on a busy machine the wall time follows the CPU. It moves with where the scheduler puts the processes too: pinned with \`taskset\`, the direct download took 34 to 45 ms with the client and the origin on different cores and 62 to 81 ms on one, and through the proxy 56 to 68 ms at its best placement (the origin and the proxy on one core, the client on the other). The scheduler puts the direct pair either way from one sample to the next, so the direct median, and with it the ratio, depends on how often they landed apart: from 1.14× to 1.48× across runs of the same code on this idle machine. Each connection is two connections plus the check of its host, its audit line and an extra hop each way through the proxy's event loop; short exchanges stay in the app's thread, where a hand-over would cost more than it saves. A narrowed plugin pays that on its own network requests only, and a download from a real registry, with its round trips over the internet, hides it.`;
}

/** Section 10. */
export const SANDBOX_SECTIONS: readonly Section[] = [sandboxCosts];
