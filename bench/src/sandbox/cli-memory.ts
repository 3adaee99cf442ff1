/**
 * What confinement costs in memory: the PSS of the real CLI's whole process tree (the CLI
 * and, confined, its plugin hosts under `unshare`) in an interactive session
 * (`plugboard` with stdin a pipe, `--yes` for the shipped policy's asks) against the scripted
 * model, which makes one call of each of the five tools in one response, then answers.
 * Once the answer is printed the tree is left alone for a second, its PSS is read, then
 * stdin is closed and the CLI quits. Confined and with the sandbox off, on a Bun of the tree's
 * own (cli-workspace.ts says why) and, for information, on the installed Bun, in turn, round
 * after round, after one untimed session of each (the listing cache and host programs made).
 */
import { rm, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { startScriptedModel } from "@plugboard/testing";
import type { FigureLog } from "../harness/figures.ts";
import { summarize, timingFigure } from "../harness/measure.ts";
import type { RunMode } from "../harness/mode.ts";
import { pssOfTree, type TreeProcess, totalPss } from "../harness/pss.ts";
import { type BunCopy, type CliWorkspace, NOTES, type SandboxSetting, withCliWorkspace } from "./cli-workspace.ts";
import { CLI_GROUP } from "./groups.ts";

const ANSWER = "All five tools ran.";
const CALLS = [
  { name: "bash", arguments: { command: "echo hi" } },
  { name: "read_file", arguments: { path: NOTES.path } },
  { name: "write_file", arguments: { path: "out.txt", content: "written\n" } },
  { name: "edit_file", arguments: { path: "draft.txt", old_text: "draft", new_text: "edited" } },
  { name: "glob", arguments: { pattern: "*.txt" } },
];
const TOOLS = CALLS.map(({ name }) => name);
/** How long the tree is left alone between the answer and the reading. */
const SETTLE_MS = 1000;
const ANSWER_TIMEOUT_MS = 30_000;
/** The goal: confined, at most twice the memory of the sandbox off. */
const GOAL = 2;
const MB = 2 ** 20;

/** The sessions measured: the tree's own PSS (on a Bun of its own), and on the installed Bun, for information. */
const CONTENDERS = [
  { sandbox: "auto", bun: "own" },
  { sandbox: "off", bun: "own" },
  { sandbox: "auto", bun: "installed" },
  { sandbox: "off", bun: "installed" },
] as const;

/** Measures the PSS of the CLI's tree, confined and with the sandbox off. */
export async function cliMemory(mode: RunMode, log: FigureLog): Promise<void> {
  const samples = mode.quick ? 3 : 5;
  mode.progress(`sandbox: PSS of the CLI's process tree after a turn of five tool calls, confined and with the sandbox off, ${samples} samples each`);
  const trees = await withCliWorkspace({ mode, ownBun: true }, async (cli) => {
    const sampled = CONTENDERS.map((): TreeProcess[][] => []);
    for (const contender of CONTENDERS) await session(cli, contender);
    for (let round = 0; round < samples; round++) {
      // Each round takes them in the other order, so none always runs on a machine another just warmed.
      const order = round % 2 === 0 ? [...CONTENDERS.keys()] : [...CONTENDERS.keys()].reverse();
      for (const index of order) sampled[index]?.push(await session(cli, CONTENDERS[index] ?? CONTENDERS[0]));
    }
    return sampled;
  });
  const [confinedTrees = [], offTrees = [], installedConfined = [], installedOff = []] = trees;
  const mb = (name: string, values: readonly number[], note?: string) => log.add(timingFigure(CLI_GROUP, name, summarize(values), "MB", MB, note));
  const hosts = confinedTrees[0]?.filter((member) => hostTools(member) !== undefined).length ?? 0;
  const confined = mb(
    "PSS, five plugins confined",
    confinedTrees.map(totalPss),
    `the CLI and its ${hosts} plugin hosts, each under unshare, 1 s after the answer of a turn that called each of the five tools once; on a Bun no other process maps`,
  );
  const off = mb("PSS, sandbox off", offTrees.map(totalPss), 'the same session with "sandbox": "off": the five plugins in the CLI\'s process');
  log.ratio(CLI_GROUP, "PSS confined / PSS sandbox off", confined, off, { op: "<=", limit: GOAL });
  // Where the confined tree's memory is: the CLI's own process, each host, the unshare processes.
  mb("of which the CLI's own process", confinedTrees.map((tree) => tree[0]?.pssBytes ?? Number.NaN));
  const labels = [...new Set(confinedTrees.flatMap((tree) => tree.map(hostTools).filter((label) => label !== undefined)))];
  labels.sort((a, b) => TOOLS.indexOf(a.split(", ")[0] ?? "") - TOOLS.indexOf(b.split(", ")[0] ?? ""));
  for (const label of labels) mb(`of which the host of ${label}`, confinedTrees.map((tree) => totalPss(tree.filter((member) => hostTools(member) === label))));
  const unshares = confinedTrees.map((tree) => tree.filter(isUnshare));
  mb(`of which unshare (${unshares[0]?.length ?? 0} processes)`, unshares.map(totalPss));
  const shared = "the installed Bun, whose pages PSS shares with every other Bun process running (the bench's, any other): it varies with the machine";
  const onInstalled = mb("PSS on the installed Bun, five plugins confined", installedConfined.map(totalPss), shared);
  const offInstalled = mb("PSS on the installed Bun, sandbox off", installedOff.map(totalPss), shared);
  log.ratio(CLI_GROUP, "on the installed Bun: PSS confined / PSS sandbox off", onInstalled, offInstalled);
}

/** One session, to the reading of its tree's PSS. */
async function session(cli: CliWorkspace, { sandbox, bun }: { sandbox: SandboxSetting; bun: BunCopy }): Promise<TreeProcess[]> {
  await writeFile(join(cli.root, "draft.txt"), "a draft\n");
  await rm(join(cli.root, "out.txt"), { force: true });
  await using model = await startScriptedModel([{ toolCalls: CALLS }, { content: ANSWER }]);
  const child = Bun.spawn(cli.argv(sandbox, ["--base-url", model.baseURL, "--yes"], bun), {
    cwd: cli.root,
    env: cli.env,
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  const output = { stdout: "", stderr: "" };
  const reading = Promise.all([read(child.stdout, (text) => (output.stdout += text)), read(child.stderr, (text) => (output.stderr += text))]);
  const failed = (why: string) => new Error(`plugboard (sandbox ${sandbox}, ${bun} Bun) ${why}:\n${output.stdout}${output.stderr}`);
  try {
    child.stdin.write("use each tool once\n");
    child.stdin.flush();
    const deadline = Date.now() + ANSWER_TIMEOUT_MS;
    while (!output.stdout.includes(ANSWER)) {
      if (child.exitCode !== null) throw failed(`exited with ${child.exitCode} before answering`);
      if (Date.now() > deadline) throw failed(`did not answer within ${ANSWER_TIMEOUT_MS / 1000} s`);
      await Bun.sleep(10);
    }
    await Bun.sleep(SETTLE_MS);
    const tree = pssOfTree(child.pid);
    child.stdin.end();
    const code = await child.exited;
    await reading;
    if (code !== 0) throw failed(`exited with ${code}`);
    const results = model.requests[1]?.body.messages?.filter((message) => message.role === "tool").map((message) => String(message.content)) ?? [];
    if (results.length !== CALLS.length || results.some((result) => result.startsWith("Error"))) throw failed(`sent the model these tool results: ${JSON.stringify(results)}`);
    return tree;
  } finally {
    child.kill();
  }
}

/** The tools of a host process (`bash`, `read_file, glob`), from the spec on its command line; undefined for any other process. */
function hostTools(member: TreeProcess): string | undefined {
  // unshare's command line holds the host's too: only the host itself is counted as the host.
  const program = isUnshare(member) ? -1 : member.argv.findIndex((arg) => basename(arg).startsWith("host-program"));
  if (program === -1) return undefined;
  try {
    const spec = JSON.parse(member.argv[program + 1] ?? "") as { plugins: { manifest: { tools: { name: string }[] } }[] };
    return spec.plugins.flatMap(({ manifest }) => manifest.tools.map(({ name }) => name)).join(", ");
  } catch {
    return "?";
  }
}

function isUnshare(member: TreeProcess): boolean {
  return basename(member.argv[0] ?? "") === "unshare";
}

async function read(stream: ReadableStream<Uint8Array>, append: (text: string) => void): Promise<void> {
  const decoder = new TextDecoder();
  for await (const chunk of stream) append(decoder.decode(chunk, { stream: true }));
}
