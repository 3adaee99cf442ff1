/**
 * The hints over what confined programs really print (curl, wget, git, npm, bash, dash,
 * coreutils, Bun, Node, Python, the host's own `Refused by the sandbox`), against a real
 * workspace on disk: each refusal is hinted without its grant and not with it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { defineTool, PERMISSIONS, type Permission, textResult, errorResult, Type } from "@plugboard/core";
import { removeTempDirs, tempDir } from "@plugboard/test-helpers";
import { protectedPaths } from "../protect/protected-paths.ts";
import { explainingGrants, explainingRefusals, limitHint, type RefusalContext, refusalHint, hintedRefusal } from "./refusal-hint.ts";

const PLUGIN = "@plugboard/plugin-bash";
let ws = "";
let outside = "";
let config = "";
let base: Omit<RefusalContext, "grants" | "offered">;

beforeAll(async () => {
  ws = await tempDir();
  config = join(ws, "plugboard.json");
  writeFileSync(config, "{}");
  writeFileSync(join(ws, "a.txt"), "a");
  writeFileSync(join(ws, "locked.txt"), "l");
  chmodSync(join(ws, "locked.txt"), 0o600);
  mkdirSync(join(ws, ".git", "hooks"), { recursive: true });
  writeFileSync(join(ws, ".git", "config"), "");
  mkdirSync(join(ws, "deploy"));
  writeFileSync(join(ws, "deploy", "prod.key"), "k");
  mkdirSync(join(ws, ".plugboard", "results"), { recursive: true });
  const folder = await tempDir();
  outside = join(folder, "x.secret");
  writeFileSync(outside, "secret");
  const protect = protectedPaths({ configPath: config, audit: undefined, protect: ["deploy/*.key"] }, ws, undefined);
  base = { plugin: PLUGIN, workspace: ws, protect, configPath: config };
});
afterAll(removeTempDirs);

const ALL: readonly Permission[] = PERMISSIONS;
const without = (permission: Permission) => ALL.filter((granted) => granted !== permission);
const hint = (content: string, grants: readonly Permission[], offered: readonly Permission[] = ALL) =>
  refusalHint({ content, isError: false }, { ...base, grants, offered });
/** The grant a person could be offered for the refusal `content` shows (with a workspace writable from the start). */
const grantOf = (content: string, grants: readonly Permission[], offered: readonly Permission[] = ALL, writableWorkspace = true) =>
  hintedRefusal({ content, isError: false }, { ...base, grants, offered, writableWorkspace })?.grant;
const grantLine = (permission: Permission, purpose: string) =>
  `plugboard: refused by the sandbox: ${PLUGIN} ${purpose.replace("GRANT", `grant "${permission}" to it in ${config}`)}`;

/** Each output, the grant that allows what it shows refused, and the hint without that grant. */
const GRANTABLE: readonly { output: () => string; grant: Permission; hint: () => string }[] = [
  ...[
    "[stderr]\ncurl: (6) Could not resolve host: example.com\nexit code: 6",
    "curl: (7) Failed to connect to 127.0.0.1 port 39433 after 0 ms: Couldn't connect to server",
    "curl: (7) Immediate connect fail for 127.0.0.1: Network is unreachable",
    "Resolving example.com (example.com)... failed: Temporary failure in name resolution.\nwget: unable to resolve host address ‘example.com’",
    "--2026-12-01 20:01:56--  http://127.0.0.1:39433/\nConnecting to 127.0.0.1:39433... failed: Operation not permitted.\nGiving up.",
    "/usr/bin/bash: socket: Operation not permitted\n/usr/bin/bash: line 1: /dev/tcp/127.0.0.1/39433: Operation not permitted",
    "fatal: unable to access 'https://github.com/x/y/': Could not resolve host: github.com",
    "ssh: Could not resolve hostname github.com: Temporary failure in name resolution",
    "npm error request to https://registry.npmjs.org/left-pad failed, reason: getaddrinfo EAI_AGAIN registry.npmjs.org",
    "urllib.error.URLError: <urlopen error [Errno 1] Operation not permitted>",
    "urllib.error.URLError: <urlopen error [Errno -3] Temporary failure in name resolution>",
    "TypeError: fetch failed\n  [cause]: Error: connect EPERM 127.0.0.1:39433",
    "Error: connect ECONNREFUSED 127.0.0.1:8080",
    "Error: getaddrinfo ENOTFOUND registry.example.com",
    'TypeError: EPERM: Was there a typo in the url or port?\n  path: "http://127.0.0.1:39433/",',
    "Error: Refused by the sandbox (@plugboard/plugin-bash is granted fs.read): Failed to connect",
  ].map((output) => ({ output: () => output, grant: "network" as const, hint: () => grantLine("network", "has no network access; GRANT to allow it") })),
  {
    output: () => `Error: Refused by the sandbox (${PLUGIN} is granted fs.read): EROFS: read-only file system, open '${ws}/a.txt'`,
    grant: "fs.write",
    hint: () => grantLine("fs.write", "may not write a.txt; GRANT to let it write the workspace"),
  },
  {
    output: () => "sh: 1: cannot create notes.md: Read-only file system",
    grant: "fs.write",
    hint: () => grantLine("fs.write", "may not write notes.md; GRANT to let it write the workspace"),
  },
  {
    output: () => "OSError: [Errno 30] Read-only file system: 'a.txt'",
    grant: "fs.write",
    hint: () => grantLine("fs.write", "may not write a.txt; GRANT to let it write the workspace"),
  },
  {
    output: () => "touch: cannot touch '/tmp/scratch': Read-only file system",
    grant: "fs.write",
    hint: () => grantLine("fs.write", "may not write /tmp/scratch; GRANT to let it write its private temporary folders"),
  },
  {
    output: () => "cat: a.txt: No such file or directory\nexit code: 1",
    grant: "fs.read",
    hint: () => grantLine("fs.read", "cannot see a.txt; GRANT to let it read the workspace"),
  },
  {
    output: () => `Error: Refused by the sandbox (${PLUGIN} is granted fs.read): EACCES: permission denied, posix_spawn '/bin/sh'`,
    grant: "process.spawn",
    hint: () => grantLine("process.spawn", "may not run /bin/sh; GRANT to let it run programs"),
  },
  {
    output: () => "Error: spawn git EACCES",
    grant: "process.spawn",
    hint: () => grantLine("process.spawn", "may not run git; GRANT to let it run programs"),
  },
  {
    output: () => "PermissionError: [Errno 13] Permission denied: 'git'",
    grant: "process.spawn",
    hint: () => grantLine("process.spawn", "may not run git; GRANT to let it run programs"),
  },
];

describe("refusalHint", () => {
  test.each(GRANTABLE.map((row) => [row.output().replace("[stderr]\n", "").split("\n")[0] ?? "", row] as const))("%s: hinted without the grant, not with it", (_, row) => {
    // fs.write shows the workspace too: the fs.read case is hinted only without both.
    const missing = row.grant === "fs.read" ? without("fs.read").filter((granted) => granted !== "fs.write") : without(row.grant);
    expect(hint(row.output(), missing)).toBe(row.hint());
    expect(grantOf(row.output(), missing)).toEqual({ permission: row.grant });
    // fs.write is offered only where the protections of a writable workspace are in force; the hint is the same.
    expect(grantOf(row.output(), missing, ALL, false)).toEqual(row.grant === "fs.write" ? undefined : { permission: row.grant });
    expect(hint(row.output(), ALL)).toBeUndefined();
  });

  test.each(GRANTABLE.map((row) => [row.grant, row] as const))("%s not in the manifest: says so", (grant, row) => {
    const missing = grant === "fs.read" ? without("fs.read").filter((granted) => granted !== "fs.write") : without(grant);
    const offered = ALL.filter((permission) => permission !== grant);
    expect(hint(row.output(), missing, offered)).toEndWith(`; its manifest does not ask for "${grant}", so no config can grant it`);
    // Nothing to offer a person either.
    expect(grantOf(row.output(), missing, offered)).toBeUndefined();
  });

  test.each([
    ["bash", () => "/usr/bin/bash: line 1: .git/hooks/pre-commit: Read-only file system", ".git/hooks/pre-commit", () => ".git/hooks/, always protected"],
    ["coreutils", () => "touch: cannot touch 'plugboard.json': Read-only file system", "plugboard.json", () => "the config file, always protected"],
    ["git", () => "error: could not lock config file .git/config: Read-only file system", ".git/config", () => ".git/config, always protected"],
    ["git config", () => "error: could not write config file .git/config: Device or resource busy", ".git/config", () => ".git/config, always protected"],
    ["node", () => `EROFS: read-only file system, open '${ws}/deploy/prod.key'`, "deploy/prod.key", () => `"protect": "deploy/*.key" in ${config}`],
  ])("a write to a protected path (%s) names its rule, whatever the grants", (_, output, path, rule) => {
    const expected = `plugboard: refused by the sandbox: ${PLUGIN} may not write ${path}: it is a protected path (${rule()})`;
    expect(hint(output(), ALL)).toBe(expected);
    expect(hint(output(), without("fs.write"))).toBe(expected);
    // No grant can allow it: none is offered.
    expect(grantOf(output(), without("fs.write"))).toBeUndefined();
  });

  test.each([
    ["cat", () => `cat: ${outside}: No such file or directory`, () => outside],
    ["ls", () => `ls: cannot access '${outside}': No such file or directory`, () => outside],
    ["node", () => `ENOENT: no such file or directory, open '${outside}'`, () => outside],
    ["a new file in a hidden folder", () => `/usr/bin/bash: line 1: ${outside}.new: No such file or directory`, () => `${outside}.new`],
  ])("what exists outside the view (%s) is outside what the plugin can see, whatever the grants", (_, output, path) => {
    const expected = `plugboard: refused by the sandbox: ${path()} is outside what ${PLUGIN} can see (its own code, the system's folders, the paths its entry grants and, with fs.read, the workspace); add "read": [${JSON.stringify(path())}] to its entry in ${config} to let it read it`;
    expect(hint(output(), ALL)).toBe(expected);
    expect(hint(output(), [])).toBe(expected);
    // Offered as a "read" grant only where Plugboard's own folders are known and it is none of them.
    expect(grantOf(output(), [])).toBeUndefined();
    const known = (reserved: { path: string; what: string }[]) => hintedRefusal({ content: output(), isError: false }, { ...base, grants: [], offered: ALL, reserved })?.grant;
    expect(known([{ path: join(ws, "elsewhere"), what: "Plugboard's config folder" }])).toEqual({ read: path() });
    expect(known([{ path: dirname(outside), what: "Plugboard's config folder" }])).toBeUndefined();
  });

  test("a path through a link is offered as where the link leads now; a link into Plugboard's own folders is not offered", () => {
    const target = join(dirname(outside), "real-target");
    const link = join(dirname(outside), "link-to-it");
    mkdirSync(target, { recursive: true });
    symlinkSync(target, link);
    try {
      const refused = { content: `cat: ${link}: No such file or directory`, isError: false };
      const offer = (reserved: { path: string; what: string }[]) => hintedRefusal(refused, { ...base, grants: [], offered: ALL, reserved })?.grant;
      // The grant names the real folder: pointing the link elsewhere later moves nothing.
      expect(offer([{ path: join(ws, "elsewhere"), what: "Plugboard's config folder" }])).toEqual({ read: realpathSync(target) });
      expect(offer([{ path: target, what: "Plugboard's config folder" }])).toBeUndefined();
    } finally {
      rmSync(link);
      rmSync(target, { recursive: true });
    }
  });

  test("explainingGrants ends the result with the hint and tells the grant it names; explainingRefusals the same result", () => {
    const result = { content: "curl: (6) Could not resolve host: example.com", isError: false };
    const context = { ...base, grants: without("network"), offered: ALL };
    const explained = explainingGrants(context, false)(result);
    expect(explained).toEqual({ result: { ...result, content: `${result.content}\n${grantLine("network", "has no network access; GRANT to allow it")}` }, grant: { permission: "network" } });
    expect(explainingRefusals(context, false)(result)).toEqual(explained.result);
  });

  test.each([
    ["a missing workspace file", () => "cat: missing.txt: No such file or directory\nexit code: 1"],
    ["a missing workspace file, with no grant to see it either", () => `ENOENT: no such file or directory, open '${ws}/missing.txt'`],
    ["a missing file in the view's own /tmp", () => "cat: /tmp/never-made-here: No such file or directory"],
    ["a missing system file", () => "cat: /usr/share/no-such-thing: No such file or directory"],
    ["a file without permission to read it", () => `cat: ${ws}/locked.txt: Permission denied`],
    ["a read-only file system naming no path", () => "Error: EROFS"],
    ["ordinary output", () => "hello\nexit code: 0"],
  ])("no hint for %s", (_, output) => {
    expect(hint(output(), [])).toBeUndefined();
    expect(hint(output(), ALL)).toBeUndefined();
  });

  test(".plugboard/results/ is not protected: a write there is refused only without fs.write", () => {
    const output = `EROFS: read-only file system, open '${ws}/.plugboard/results/x.txt'`;
    expect(hint(output, ALL)).toBeUndefined();
    expect(hint(output, without("fs.write"))).toBe(grantLine("fs.write", "may not write .plugboard/results/x.txt; GRANT to let it write the workspace"));
  });

  test("one line, for the first refusal shown", () => {
    const output = `curl: (6) Could not resolve host: example.com\n/usr/bin/bash: line 1: .git/hooks/x: Read-only file system\nexit code: 1`;
    expect(hint(output, without("network"))).toBe(grantLine("network", "has no network access; GRANT to allow it"));
    expect(hint(output, ALL)).toBe(`plugboard: refused by the sandbox: ${PLUGIN} may not write .git/hooks/x: it is a protected path (.git/hooks/, always protected)`);
  });
});

describe("explainingRefusals", () => {
  const context = () => ({ ...base, grants: without("network"), offered: ALL });
  /** A call of a tool of `concurrency` that answers `result()`, explained as its source explains it. */
  const tool = (concurrency: "serial" | "read-only", result: () => ReturnType<typeof textResult>) => ({
    handler: async (_args: object, _ctx: object) => {
      const finish = explainingRefusals(context(), concurrency === "read-only");
      return finish(result());
    },
  });
  const ctx = {};

  test("ends a result that shows a refusal with the hint, as its last line", async () => {
    const result = await tool("serial", () => textResult("curl: (6) Could not resolve host: x\nexit code: 6")).handler({}, ctx);
    expect(result).toEqual({ content: `curl: (6) Could not resolve host: x\nexit code: 6\n${grantLine("network", "has no network access; GRANT to allow it")}`, isError: false });
  });

  test("leaves a read-only tool's successful result alone (it is what it read), not its error", async () => {
    const text = "log: Could not resolve host: x";
    expect(await tool("read-only", () => textResult(text)).handler({}, ctx)).toEqual({ content: text, isError: false });
    expect((await tool("read-only", () => errorResult(text)).handler({}, ctx)).content).toEndWith("to allow it");
  });
});

describe("a network grant narrowed to a list of hosts", () => {
  const narrowed = (refused: string[]): RefusalContext => ({ ...base, grants: ALL, offered: ALL, network: ["localhost:4873"], refusedHosts: () => refused });

  test("hosts the egress proxy refused during the call are named, with the network key", () => {
    const content = "curl: (56) CONNECT tunnel failed, response 403";
    expect(refusalHint({ content, isError: false }, narrowed(["example.com:443"]), ["example.com:443"])).toBe(
      `plugboard: refused by the sandbox: network to example.com:443 is not granted to ${PLUGIN}; add it to its "network" list in ${config} to allow it`,
    );
    expect(refusalHint({ content: "", isError: false }, narrowed([]), ["a.example:80", "b.example:443"])).toBe(
      `plugboard: refused by the sandbox: network to a.example:80, b.example:443 is not granted to ${PLUGIN}; add them to its "network" list in ${config} to allow them`,
    );
    expect(hintedRefusal({ content, isError: false }, narrowed([]), ["a.example:80", "b.example:443"])?.grant).toEqual({ hosts: ["a.example:80", "b.example:443"] });
    // Around the proxy: no one host to grant.
    expect(hintedRefusal({ content: "curl: (7) Failed to connect to 127.0.0.2 port 80: Couldn't connect to server", isError: false }, narrowed([]))?.grant).toBeUndefined();
  });

  test("a connection around the proxy says the network goes through the proxy only; with plain network nothing is said", () => {
    const content = "curl: (7) Failed to connect to 127.0.0.2 port 8080 after 0 ms: Couldn't connect to server";
    expect(refusalHint({ content, isError: false }, narrowed([]))).toBe(
      `plugboard: refused by the sandbox: ${PLUGIN} reaches the network only through the app's proxy (HTTP_PROXY, HTTPS_PROXY), to the hosts of its "network" list in ${config}`,
    );
    expect(refusalHint({ content, isError: false }, { ...base, grants: ALL, offered: ALL })).toBeUndefined();
  });

  test("a tool's result ends with the hint for the refusals made while it ran, not before", async () => {
    let refusedAt = 0;
    const tool = defineTool({
      name: "fetcher",
      description: "d",
      parameters: Type.Object({}),
      handler: async () => {
        refusedAt = Date.now();
        return textResult("Plugboard: network to x.example:80 is not granted to it");
      },
    });
    const context = { ...narrowed([]), refusedHosts: (since: number) => (refusedAt >= since ? ["x.example:80"] : []) };
    const finish = explainingRefusals(context, false);
    const result = finish(await tool.handler({}, {} as Parameters<typeof tool.handler>[1]));
    expect(result.content.split("\n").at(-1)).toBe(`plugboard: refused by the sandbox: network to x.example:80 is not granted to ${PLUGIN}; add it to its "network" list in ${config} to allow it`);
  });
});

describe("limitHint", () => {
  const values = { processes: 40, memory: 64 * 1024 ** 2, tmp: 8 * 1024 ** 2 };
  /** A context whose cgroups' counters read `now`. */
  const limited = (now: { pids: number; memory: number }, countsProcesses = true) => ({
    ...base,
    grants: ALL,
    offered: ALL,
    limits: { values, counts: { refusals: () => now, countsProcesses: () => countsProcesses } },
  });
  const result = (content: string) => ({ content, isError: false });
  const before = { pids: 2, memory: 1 };

  test("a refusal the kernel counted during the call names its limit and key", () => {
    expect(limitHint(result("started 24 failed 36"), limited({ pids: 38, memory: 1 }), before)).toBe(
      `plugboard: refused by a limit: ${PLUGIN} reached its limit of 40 processes (threads count too), so starting another failed; raise "limits.processes" in ${config} to allow more`,
    );
    expect(limitHint(result("Killed"), limited({ pids: 2, memory: 2 }), before)).toBe(
      `plugboard: refused by a limit: ${PLUGIN} used its limit of 64 MiB of memory, so the kernel ended a process of it; raise "limits.memory" in ${config} to allow more`,
    );
  });

  test("where RLIMIT_NPROC bounds the processes (nothing counts them), a refused fork or spawn in the result names the limit; counted, the result alone does not", () => {
    const hinted = (content: string, countsProcesses: boolean) => limitHint(result(content), limited(before, countsProcesses), before);
    for (const refused of ["/usr/bin/bash: fork: retry: Resource temporarily unavailable", "Error: EAGAIN: resource temporarily unavailable, posix_spawn 'sleep'"]) {
      expect(hinted(refused, false)).toStartWith(`plugboard: refused by a limit: ${PLUGIN} reached its limit of 40 processes`);
      expect(hinted(refused, true)).toBeUndefined();
    }
    expect(hinted("read: EAGAIN", false)).toBeUndefined();
  });

  test("a full private folder is named by the result's ENOSPC, the workspace's own disk having room", () => {
    expect(limitHint(result("head: error writing 'standard output': No space left on device"), limited(before), before)).toBe(
      `plugboard: refused by a limit: each private temporary folder of ${PLUGIN} (/tmp, /var/tmp, /dev/shm, /run, its HOME) holds at most 8 MiB; raise "limits.tmp" in ${config} to allow more`,
    );
  });

  test("nothing when no counter moved and no space is missing, or when no limits are in force", () => {
    expect(limitHint(result("started 60 failed 0"), limited(before), before)).toBeUndefined();
    expect(limitHint(result("No space left on device"), { ...base, grants: ALL, offered: ALL }, undefined)).toBeUndefined();
  });

  test("explainingRefusals reads the counters around the call and ends its result with the hint", async () => {
    let now = { pids: 0, memory: 0 };
    const tool = defineTool({
      name: "spawner",
      description: "Refused a process.",
      parameters: Type.Object({}),
      handler: async () => {
        now = { pids: 3, memory: 0 };
        return textResult("fork: retry: Resource temporarily unavailable");
      },
    });
    const finish = explainingRefusals({ ...base, grants: ALL, offered: ALL, limits: { values, counts: { refusals: () => now, countsProcesses: () => true } } }, false);
    const answered = finish(await tool.handler({}, {} as Parameters<typeof tool.handler>[1]));
    expect(answered.content.split("\n").at(-1)).toStartWith("plugboard: refused by a limit: @plugboard/plugin-bash reached its limit of 40 processes");
  });
});
