/**
 * BENCHMARKS.md sections 5–8 (cold start, scale, tools on big inputs, the web page): what exactly is
 * measured, and a reading of the figures for every missed target.
 */
import { BIG_INPUT_GROUPS } from "../big-inputs/big-inputs.ts";
import { COLD_START_CPU_GROUP, COLD_START_GROUP, COMMAND_NAMES } from "../cold-start.ts";
import { formatNumber as n } from "../harness/format.ts";
import { PAGE_BUNDLE_GROUP } from "../page-bundle.ts";
import { SCALE_GROUP } from "../scale/scale.ts";
import { type FigureIndex, percentOver } from "./lookup.ts";
import type { Section } from "./section.ts";

const coldStart: Section = {
  title: "5. Cold start",
  groups: [COLD_START_GROUP, COLD_START_CPU_GROUP],
  measured: () =>
    [
      "Whole-process time from spawn to exit (output to /dev/null) of the CLI as users run it: the bundle",
      "`apps/cli/dist/bin.js` that `bun build` makes from the sources (the published bin; `bun run plugboard` starts it",
      "after checking it is not older than its sources). `plugboard tools` uses the shipped config: five plugins resolved,",
      "manifests checked, the sandbox detected (`auto`, and this kernel has the mechanism) and each confined plugin's",
      "tools mounted from the listing cache (`~/.cache/plugboard/hosts`, filled by the untimed first run), so no plugin",
      "host starts: each would start on the first call of one of its tools; then the tools printed. *Hosts started (no",
      "listing cache)* is the same command with `XDG_CACHE_HOME` where nothing can be kept: each of the four confined hosts",
      "(read_file and glob share one) starts and lists its tools over the host protocol, as on the first start after a plugin changed.",
      "The same with `\"sandbox\": \"off\"` (*plugins unconfined*: entries imported into the CLI's process, options checked,",
      "schemas compiled) is measured from the bundle, through the root script `bun run plugboard` and from the TypeScript",
      "sources. Against them: `bun -e \"await import('openai')\"`, `--version`, `help`, and an empty Bun process (`bun -e \"\"`",
      "prints Bun's usage instead of running, so the script is `0`). Every command runs in `bench/` (where `openai`",
      "resolves), so each Bun start reads the same package.json and tsconfig.json. The commands are taken in turn, round",
      "after round, one untimed run each first; no model credentials are in the environment. The CPU rows are the child's",
      "user + system time from its resource usage (with the processes it waited for): on a loaded machine a process waits",
      "for a core, which adds to its wall time but not to its CPU time.",
    ].join(" "),
  reading: (index: FigureIndex, env) => {
    const g = COLD_START_GROUP;
    const c = COLD_START_CPU_GROUP;
    const { tools, openai, version, empty, uncached, unconfined, script, source } = COMMAND_NAMES;
    const paragraphs = [
      `With the shipped config, \`plugboard tools\` takes ${n(index.value(g, tools))} ms (${n(index.value(c, tools))} ms of CPU) against ${n(index.value(g, openai))} ms (${n(index.value(c, openai))} ms) for importing \`openai\` alone: the five confined plugins' tools come from the listing cache, keyed by each plugin's files, manifest, options and grants, the workspace, Bun and the hosts package's version, and each host starts on the first call of one of its tools. It reads the CLI's bundle, \`dist/cli.js\`, as Bun's bytecode (\`cli.js.jsc\`: no parsing or compiling of the code it runs), and evaluates the modules of the command, bootstrap and core, but neither loads the \`openai\` SDK, the MCP SDK or Ajv (bundles of their own, read at their first use) nor runs TypeBox's compiler (a tool's schema, kept with TypeBox's marks, is compiled at its first call), nor \`node:net\` (the egress proxy is loaded when a narrowed process's listener comes), nor what a host's start takes (its programs, the sandbox's launcher and view, the protected paths and code, loaded when the first host starts) or a call's result (refusal hints, the look for what a call left behind); \`jsonc-parser\` and \`jsonrepair\` are loaded only for text \`JSON.parse\` refuses, and no span of confined writes is recorded, since no plugin process runs. The sandbox's detection starts no process: the namespace probe (\`unshare\` run once) answered yes at the first start, and its yes is kept in the cache folder for later starts of this boot. Without the cache (the first start after a plugin changed) the four hosts start and list their tools: ${n(index.value(g, uncached))} ms (${n(index.value(c, uncached))} ms of CPU, the hosts included).`,
      `With the plugins unconfined, \`plugboard tools\` takes ${n(index.value(g, unconfined))} ms (${n(index.value(c, unconfined))} ms of CPU), and ${n(index.value(g, source))} ms (${n(index.value(c, source))} ms) from the TypeScript sources. The bundle loads no TypeScript of ours: \`dist/cli.js\` is read as Bun's bytecode (\`cli.js.jsc\`) and each module evaluated when first imported, the large libraries only some commands need (the \`openai\` and MCP SDKs, the Markdown renderer, the config editor's, the shell grammar's runtime, the HTTP server) are bundles of their own read when first needed, and the plugins' \`import "@plugboard/core"\` is given the bundle's own core, so core and TypeBox load once. What is left beyond loading code: the config and five manifests validated (valibot), the five plugins' TypeScript entries imported from their packages (transpiled at every start), their options checked and their parameter schemas compiled by TypeBox's compiler. \`--version\` (${n(index.value(g, version))} ms against ${n(index.value(g, empty))} ms for an empty process) prints the line the build put in the bundle's entry and imports nothing; \`help\` (${n(index.value(g, "plugboard help"))} ms) parses the arguments and loads no config. \`bun run plugboard\` (${n(index.value(g, script))} ms) adds its own Bun process and the freshness check (one \`stat\` per source).`,
    ];
    if (index.missed(g, "plugboard tools / import")) {
      paragraphs.push(
        `**Missed: plugboard tools ≤ 1× import('openai')**, by ${percentOver(index.value(g, "plugboard tools / import"))} (in CPU time ${n(index.value(c, "plugboard tools / import"))}×): \`tools\` reads \`cli.js\` alone (bundle.test.ts fails if it loads a vendored library's bundle or evaluates the egress proxy or TypeBox's compiler), so what remains is Bun's start with the built-in modules the CLI needs (\`node:fs\`, \`node:fs/promises\`, \`node:path\`, \`node:os\`, \`node:util\`, \`bun:ffi\`: 7–14 ms over an empty process on this machine, measured alone in interleaved runs; \`node:fs\` alone about 6), reading and decoding the minified bundle's code and bytecode (which \`help\` pays as well: compare its row), evaluating the modules every command needs, then the work: the config and five manifests validated, five plugins resolved, their code's pins checked, the sandbox detected and the listing cache read. With \`PLUGBOARD_TRACE=1\` (section 14 shows it for \`call\`) each of those is a stage of its own. This run's ratios: ${n(index.value(g, "plugboard tools / import"))}× in wall time, ${n(index.value(c, "plugboard tools / import"))}× in CPU time.`,
      );
    }
    if (index.missed(g, "plugboard --version / empty")) {
      paragraphs.push(
        `**Missed: plugboard --version ≤ 1.2× an empty process**, by ${percentOver(index.value(g, "plugboard --version / empty") / 1.2)} (in CPU time ${n(index.value(c, "plugboard --version / empty"))}×): the bundle's entry is a file to read and parse, where \`bun -e\` has its script in hand.`,
      );
    }
    const loaded = (env.loadAtStart[0] ?? 0) > env.cores || (env.loadAtEnd[0] ?? 0) > env.cores;
    if (loaded) {
      paragraphs.push(
        `The machine was loaded during this run (1-minute load average ${env.loadAtStart[0]?.toFixed(1)} at the start and ${env.loadAtEnd[0]?.toFixed(1)} at the end, on ${env.cores} cores): wall times include waiting for a core, so the CPU ratios (\`tools\` unconfined ${n(index.value(c, "plugboard tools, plugins unconfined / import"))}×, \`--version\` ${n(index.value(c, "plugboard --version / empty"))}×) are the steadier reading of the work each process does.`,
      );
    }
    return paragraphs;
  },
};

const scale: Section = {
  title: "6. Bootstrap scale",
  groups: [SCALE_GROUP],
  measured: () =>
    [
      "`loadConfig` + `buildApp` of 10, 100 and 1,000 generated plugins of one tool each (a folder with package.json,",
      "manifest and a TypeScript entry importing `@plugboard/core`, listed by path in a generated config with",
      "`\"sandbox\": \"off\"`, so that plugins load in the process rather than each in a confined host), each sample in",
      "a fresh process after `@plugboard/bootstrap` is imported, one untimed run first so the files are in the page cache.",
      "Memory is the growth of RSS and of the JS heap over the bootstrap, after a full collection. The marginal rows",
      "divide the difference between 100 and 1,000 plugins by 900: the cost of one more plugin without the fixed costs.",
    ].join(" "),
  reading: (index: FigureIndex) => {
    const ratio = index.value(SCALE_GROUP, "time(1000) / time(10)");
    const tenfold = index.value(SCALE_GROUP, "time(1000) / time(100)");
    const paragraphs = [
      `From 100 to 1,000 plugins the time grows ${n(tenfold)}× (linear is 10×), at ${n(index.value(SCALE_GROUP, "marginal time per plugin"))} ms and ${n(index.value(SCALE_GROUP, "marginal RSS per plugin"))} KB of RSS per additional plugin; 1,000 plugins take ${n(ratio)}× the time of 10 (linear is 100×; the fixed part of a bootstrap makes small configs cost more per plugin).`,
    ];
    if (index.missed(SCALE_GROUP, "time(1000) / time(10)")) {
      paragraphs.push(
        `**Missed: 1,000 plugins at most 120× the time of 10**, by ${percentOver(ratio / 120)}: something in the bootstrap grows faster than the number of plugins (the duplicate-name check, the registry or the module loader); compare the per-plugin rows across sizes to see where it starts.`,
      );
    }
    return paragraphs;
  },
};

const bigInputs: Section = {
  title: "7. Tools on big inputs",
  groups: [BIG_INPUT_GROUPS.readFile, BIG_INPUT_GROUPS.glob, BIG_INPUT_GROUPS.bash, BIG_INPUT_GROUPS.editFile],
  measured: () =>
    [
      "Inputs are generated under a temp dir and removed afterwards; the big files are in the page cache for both sides.",
      "The tools run in process through `runtime.execute` (the five real plugins, default options, workspace = the temp",
      "dir); the Unix tools run as processes. `read_file`: 2 lines at line 1,000,000 of a file of numbered 64-byte lines",
      "(the result counts the lines left) against `sed -n '1000000,1000001p'` then `wc -l`. `glob`: `**/*.ts` over a tree",
      "where half the files match, against raw `fast-glob` with its defaults and `find . -type f -name '*.ts'`, then with a",
      "root `.gitignore` and two nested ignore files in the tree (excluding about a tenth of it) against `find`. `bash`: a",
      "command printing 64-byte lines (`yes … | head -c`), run by the real tool in a child process that reports its own",
      "peak RSS, against the same command with its output to /dev/null (peak RSS from GNU time when present). `edit_file`:",
      "one unique line of a file of numbered lines, swapped back and forth, against `sed -i` on the same file.",
    ].join(" "),
  reading: (index: FigureIndex) => {
    const paragraphs: string[] = [];
    const read = BIG_INPUT_GROUPS.readFile;
    const small = index.value(read, "reading the file alone, 64 KiB");
    const large = index.value(read, "reading the file alone, 1 MiB");
    const readTool = index.value(read, "read_file, 2 lines");
    const readRatio = index.value(read, "read_file / (sed");
    const saved = small - large;
    paragraphs.push(
      `\`read_file\` is ${n(readRatio)}× \`sed\` + \`wc -l\`${index.missed(read, "read_file / (sed") ? ` — **missed: within 2×**, by ${percentOver(readRatio / 2)}` : ""}. Reading the file alone costs ${n(small)} ms in the 64 KiB \`FileHandle.read\` calls \`read_file\` makes (plugins/read-file/src/line-window.ts) and ${n(large)} ms in 1 MiB calls: each read has a fixed cost in Bun, so reading in 1 MiB chunks (one constant; memory stays constant) would save about ${n(saved)} ms of \`read_file\`'s ${n(readTool)} ms, which puts it at about ${n((readTool - saved) / (readTool / readRatio))}× the Unix pair. The rest is counting the lines, one \`indexOf\` per line.`,
    );
    const glob = BIG_INPUT_GROUPS.glob;
    const target = (name: string, limit: number) =>
      index.missed(glob, name) ? ` — **missed: within ${limit}×**, by ${percentOver(index.value(glob, name) / limit)}` : "";
    const fastGlobOverFind = index.value(glob, "fast-glob(") / index.value(glob, "find .");
    paragraphs.push(
      `\`glob\` is ${n(index.value(glob, "glob / find"))}× \`find\`${target("glob / find", 1.5)} and ${n(index.value(glob, "glob / raw fast-glob"))}× raw fast-glob${target("glob / raw fast-glob", 1.2)}; with ignore files in the tree it is ${n(index.value(glob, "glob with ignore files / find"))}× \`find\`${target("glob with ignore files / find", 2)}. fast-glob does the walk and the matching, through a \`readdir\` of ours that shapes each listing before fast-glob sees it: \`.git\` and \`node_modules\` dropped by name, folders an ignore file excludes dropped (their ignore files read as the folders are listed, so an excluded tree is never walked), and files whose name lacks the pattern's literal ending (\`.ts\` of \`**/*.ts\`) dropped before fast-glob matches them, which spares half of its per-path work here. It reads 32 folders at once (fast-glob's default is one per core), sorts only the paths it lists (1,000 of 50,000, below a bound taken from a sorted sample) and checks real paths only for symlinks. Raw fast-glob alone, with its defaults, is ${n(fastGlobOverFind)}× \`find\` on this tree; Bun's native walker, \`Bun.Glob\`, scans it in ${n(index.value(glob, "Bun.Glob"))} ms (DESIGN.md names fast-glob for this tool).`,
    );
    const bash = BIG_INPUT_GROUPS.bash;
    const peak = index.value(bash, "bash tool: peak RSS");
    paragraphs.push(
      `\`bash\` keeps ${n(peak)} MB peak RSS while the command prints, of which ${n(index.value(bash, "bash tool: RSS before"))} MB is the process before the call${index.missed(bash, "bash tool peak RSS") ? ` — **missed: under 150 MB**, by ${percentOver(peak / 150)}` : ""}; its wall time is ${n(index.value(bash, "bash tool / > /dev/null"))}× the same command to /dev/null, because every byte crosses a pipe and is decoded to count the characters cut, where /dev/null discards them in the kernel.`,
    );
    const edit = BIG_INPUT_GROUPS.editFile;
    const editRatio = index.value(edit, "edit_file / sed -i");
    paragraphs.push(
      `\`edit_file\` is ${n(editRatio)}× \`sed -i\`${index.missed(edit, "edit_file / sed -i") ? ` — **missed: within 2×**, by ${percentOver(editRatio / 2)}` : ""}; it also flushes the new file to disk before the rename (\`sed -i\` + \`sync FILE\` is the like-for-like row).`,
    );
    return paragraphs;
  },
};

const webPage: Section = {
  title: "8. Web chat page",
  groups: [PAGE_BUNDLE_GROUP],
  measured: () =>
    [
      "The size of what the web app serves for its page: `/page.js` is the bundle `bun build` makes at server start",
      "(`buildChatPage()` of `@plugboard/web`: `page/main.ts` and its libraries — marked, DOMPurify, highlight.js's",
      "core with eleven languages, jsdiff, idb-keyval, eventsource-parser — minified, for the browser), `/page.css` the",
      "stylesheet as written; each raw and gzipped (`Bun.gzipSync`, default level). The HTML itself is under 2 KiB.",
      "Sizes do not depend on the machine, so `bun run --cwd bench page-bundle` refreshes this section alone.",
    ].join(" "),
  reading: (index: FigureIndex) => {
    const script = index.value(PAGE_BUNDLE_GROUP, "page.js, gzip");
    return [
      `One script and one stylesheet, ${n(script + index.value(PAGE_BUNDLE_GROUP, "page.css, gzip"))} KiB gzipped together; the libraries are most of it (marked and DOMPurify about half, highlight.js with its languages a third). The server sends them uncompressed (${n(index.value(PAGE_BUNDLE_GROUP, "page.js"))} KiB of script) on loopback; a proxy in front that compresses would send the gzipped sizes.`,
    ];
  },
};

/** Sections 5–8, in order. */
export const TOOL_SECTIONS: readonly Section[] = [coldStart, scale, bigInputs, webPage];
