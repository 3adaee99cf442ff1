/** BENCHMARKS.md section 10 (the sandbox): what exactly is measured, and a reading of the figures. */
import { formatNumber as n } from "../harness/format.ts";
import { SANDBOX_GROUP } from "../sandbox/sandbox.ts";
import type { FigureIndex } from "./lookup.ts";
import type { Section } from "./section.ts";

const sandboxCosts: Section = {
  title: "10. The sandbox: confined plugin hosts",
  groups: [SANDBOX_GROUP],
  measured: () =>
    [
      "Per call: `runtime.execute(\"read_file\", '{\"path\":\"notes.txt\"}')` on a one-line file, after warm-up calls, with the",
      "read-file plugin in the app's process (`\"sandbox\": \"off\"`) and in its confined plugin host (`\"sandbox\": \"auto\"`: the",
      "app's runtime → `@plugboard/mcp`'s client → the host's stdin/stdout → the SDK server → the host's runtime → the",
      "plugin, in a process restricted by Landlock and living in its own user, PID, mount and network namespaces). Start-up:",
      "`buildApp` from the config file to a runtime with every tool listed, for the five first-party plugins in five hosts",
      "started in parallel (`freshHosts`: started and listed, whatever the listing cache holds), for one host, and for the",
      "five plugins in process; each sample also closes the hosts. Goals:",
      "under 0.5 ms per call, under 100 ms to start the five hosts. The 1-minute load average at the start and end of the",
      "suite is in the table: this machine is shared, and a busy machine inflates every row, start-up most (each host is",
      "two Bun start-ups). `bun run --cwd bench sandbox` refreshes this section alone.",
    ].join(" "),
  reading: (index: FigureIndex) => {
    const value = (name: string) => index.value(SANDBOX_GROUP, name);
    const overhead = value("overhead of confinement per call");
    const five = value("buildApp, five first-party plugins confined");
    const one = value("buildApp, one plugin confined");
    const load = value("1-minute load average, start of the suite");
    return [
      `A confined call costs ${n(overhead)} µs more than the same call in process (${n(value("read_file, plugin in its confined host"))} against ${n(value("read_file, plugin in the app's process"))} µs): ${overhead < 500 ? "within" : "over"} the 0.5 ms goal. The cost is the MCP round trip (two JSON-RPC messages through two pipes, the SDK's zod checks on both sides, the JSON Schema check of the arguments in the app) and a second event loop; the kernel's checks (Landlock on each open) are a few microseconds of it.`,
      `Starting the hosts misses the 100 ms goal: five hosts in parallel take ${n(five)} ms and one host ${n(one)} ms (at a load average of ${n(load)} on two cores), against ${n(value("buildApp, five first-party plugins in process"))} ms in process. Each host is \`unshare\`, a first Bun process that restricts itself with Landlock and \`execve\`s a second one (Landlock binds only the calling thread, so Bun must start already restricted), and that second Bun loading the bootstrap's loader, the MCP SDK's server (with zod) and the plugin: on two cores, five hosts are ten Bun start-ups. An app pays it only on the first start after a plugin changed: what each host listed is kept (the listing cache), an app whose plugins did not change mounts their tools at once, and a host starts on the first call of one of its tools, paying one host's start then (section 5: \`plugboard tools\` starts none). Built from the listing cache, the same five confined plugins take ${n(value("buildApp, five plugins confined, tools from the listing cache"))} ms. What would shorten a host's own start: one confining step (a small static helper instead of the first Bun), or a host that loads only the plugin and a minimal JSON-RPC loop instead of the SDK server. The per-call protocol is the SDK's, as decided; none of this changes what is enforced.`,
    ];
  },
};

/** Section 10. */
export const SANDBOX_SECTIONS: readonly Section[] = [sandboxCosts];
