/**
 * The CLI tarball (`bun run release --pack`) installed as README's "Install the CLI" says, on
 * a machine that has Node and npm and no Bun: `npm install -g FILE.tgz` into a temp prefix
 * (npm fetches only `bun`, from its cache when it has it), then `plugboard` run with an empty
 * HOME and a PATH of the prefix's bin and a folder of the few system programs the launcher,
 * the sandbox and the bash tool use — no other `bun` anywhere on it. One pack and one install
 * for the file (about 30 s and 40 s on the loaded 2-core machine).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdir, mkdtemp, realpath, rename, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startScriptedModel } from "@plugboard/scripted-model";
import { packCli } from "../src/pack-cli.ts";

const REPO = join(import.meta.dir, "../../..");
/** What the launcher (sh, readlink), the sandbox's probe (unshare, true) and the bash tool (sh) run: no bun among them. */
const SYSTEM_PROGRAMS = ["sh", "readlink", "unshare", "true"];

let root = "";
let prefix = "";
/** Empty at the start: the HOME every installed run gets. */
let home = "";
let path = "";
let tarballBytes = 0;

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "plugboard-tarball-")));
  prefix = join(root, "prefix");
  home = join(root, "home");
  const programs = join(root, "programs");
  await mkdir(home);
  await mkdir(programs);
  for (const name of SYSTEM_PROGRAMS) {
    const found = Bun.which(name, { PATH: "/usr/bin:/bin" });
    if (found === null) throw new Error(`${name} is not installed`);
    await symlink(found, join(programs, name));
  }
  path = `${join(prefix, "bin")}:${programs}`;
  const packed = await packCli(REPO, join(root, "out"));
  tarballBytes = packed.bytes;
  const installed = Bun.spawnSync(["npm", "install", "-g", "--prefix", prefix, "--prefer-offline", "--no-audit", "--no-fund", packed.file], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
  });
  if (installed.exitCode !== 0) throw new Error(`npm install -g failed:\n${installed.stdout.toString()}${installed.stderr.toString()}`);
}, 600_000);

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
}, 120_000);

/** Runs a program by name on the bare PATH, with the empty HOME and nothing else of this environment. */
async function bare(argv: readonly string[], cwd: string) {
  // Asynchronous: the scripted model answers from this process meanwhile.
  const child = Bun.spawn(["/usr/bin/env", "-i", `HOME=${home}`, `PATH=${path}`, ...argv], { cwd, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, stdout, stderr };
}

async function emptyFolder(name: string): Promise<string> {
  const folder = join(root, name);
  await mkdir(folder);
  return folder;
}

describe("the CLI tarball installed with npm on a machine without Bun", () => {
  test("it is one file that carries our packages: no @plugboard package is fetched", async () => {
    expect(tarballBytes).toBeGreaterThan(0);
    const json = (await Bun.file(join(prefix, "lib/node_modules/@plugboard/cli/package.json")).json()) as {
      dependencies: Record<string, string>;
      bundleDependencies: string[];
    };
    const { packageManager } = (await Bun.file(join(REPO, "package.json")).json()) as { packageManager: string };
    expect(`bun@${json.dependencies.bun}`).toBe(packageManager);
    expect(json.bundleDependencies).toContain("@plugboard/plugin-bash");
    expect(json.bundleDependencies).not.toContain("bun");
  });

  test("the PATH it runs on finds plugboard and no bun", async () => {
    const found = await bare(["sh", "-c", "command -v plugboard; command -v bun || echo 'no bun'"], root);
    expect(found.stdout).toBe(`${join(prefix, "bin/plugboard")}\nno bun\n`);
  });

  test("plugboard --version answers", async () => {
    const result = await bare(["plugboard", "--version"], root);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(result.stdout).toMatch(/^plugboard \d+\.\d+\.\d+ \(contract \d+\.\d+\.\d+\)\n$/);
  });

  test("plugboard run answers from the model; the first-party plugins run their tools confined (read_file, bash with its parsed line)", async () => {
    const work = await emptyFolder("work");
    await writeFile(join(work, "notes.txt"), "one two\nthree\n");
    await using model = await startScriptedModel([
      { toolCalls: [{ id: "call_read", name: "read_file", arguments: { path: "notes.txt" } }] },
      { toolCalls: [{ id: "call_bash", name: "bash", arguments: { command: "echo from-bash" } }] },
      { content: "notes.txt has two lines." },
    ]);
    const result = await bare(["plugboard", "run", "--yes", "--base-url", model.baseURL, "how many lines has notes.txt?"], work);
    expect(result).toMatchObject({ code: 0, stdout: "notes.txt has two lines.\n" });
    const toolResults = model.requests.at(-1)?.body.messages?.filter((message) => message.role === "tool").map((message) => String(message.content));
    expect(toolResults?.[0]).toContain("one two");
    expect(toolResults?.[1]).toContain("from-bash");
    expect(result.stderr).not.toContain("Error");
    // The sandbox's programs and the hosts' came in the tarball: the plugins ran confined.
    expect(result.stderr).not.toContain("unconfined");
  }, 120_000);

  // The twin of the runs above: without the bun of its own dependency the launcher finds none
  // on this PATH, so those runs were Bun from the tarball's dependency.
  test("without its bun dependency, plugboard says what to install (exit 2)", async () => {
    const bunPackage = join(prefix, "lib/node_modules/@plugboard/cli/node_modules/bun");
    await rename(bunPackage, `${bunPackage}.away`);
    try {
      const result = await bare(["plugboard", "--version"], root);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("plugboard: Bun is not installed, or not on PATH");
    } finally {
      await rename(`${bunPackage}.away`, bunPackage);
    }
  });
});
