import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pluginRuntime } from "@plugboard/testing";
import plugin, { type Options } from "./index.ts";

let base: string;
let root: string;
let outside: string;

const FILES = [
  "src/a.ts",
  "src/b.ts",
  "src/deep/c.ts",
  "src/deep/deeper/d.ts",
  "README.md",
  "a.txt",
  "Z.txt",
  ".env",
  ".github/workflows/ci.yml",
  ".git/HEAD",
  "node_modules/pkg/index.js",
  "src/node_modules/x/y.js",
];

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "plugboard-glob-")));
  root = join(base, "root");
  outside = join(base, "outside");
  for (const path of FILES) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), path);
  }
  await mkdir(join(outside, "sub"), { recursive: true });
  await writeFile(join(outside, "secret.txt"), "secret");
  await writeFile(join(outside, "sub/deep-secret.ts"), "secret");
  await symlink(outside, join(root, "linkdir"));
  await symlink(join(outside, "secret.txt"), join(root, "linkfile.ts"));
  await symlink("src/a.ts", join(root, "inlink"));
  await symlink("src", join(root, "insrc"));
  await symlink("nowhere.ts", join(root, "dangling.ts"));
  // Named like the regular file src/b.ts: each path is checked for itself.
  await symlink(join(outside, "sub/deep-secret.ts"), join(root, "src/deep/deeper/b.ts"));
});

afterAll(() => rm(base, { recursive: true, force: true }));

const globber = async (options: Partial<Options> = {}) => (await pluginRuntime(plugin, { root, options })).tool("glob");

const lines = (...paths: string[]) => paths.join("\n");

describe("glob", () => {
  test("** recurses and lists files sorted, relative to the workspace", async () => {
    const glob = await globber();
    expect(await glob({ pattern: "**/*.ts" })).toEqual({
      content: lines("src/a.ts", "src/b.ts", "src/deep/c.ts", "src/deep/deeper/d.ts"),
      isError: false,
      structuredContent: { matches: ["src/a.ts", "src/b.ts", "src/deep/c.ts", "src/deep/deeper/d.ts"], more: 0 },
    });
  });

  test("lists dot files, skips .git and node_modules, keeps symlinks to files inside, drops the rest", async () => {
    const glob = await globber();
    expect((await glob({ pattern: "**" })).content).toBe(
      lines(
        ".env",
        ".github/workflows/ci.yml",
        "README.md",
        "Z.txt",
        "a.txt",
        "inlink",
        "src/a.ts",
        "src/b.ts",
        "src/deep/c.ts",
        "src/deep/deeper/d.ts",
      ),
    );
  });

  test("searches from a base folder and still shows paths from the workspace root", async () => {
    const glob = await globber();
    expect((await glob({ pattern: "*.ts", path: "src" })).content).toBe(lines("src/a.ts", "src/b.ts"));
    expect((await glob({ pattern: "**/*.ts", path: "src/deep" })).content).toBe(
      lines("src/deep/c.ts", "src/deep/deeper/d.ts"),
    );
  });

  test("accepts brace patterns and absolute patterns inside the workspace", async () => {
    const glob = await globber();
    expect((await glob({ pattern: "{README.md,src/a.ts}" })).content).toBe(lines("README.md", "src/a.ts"));
    expect((await glob({ pattern: join(root, "src/*.ts") })).content).toBe(lines("src/a.ts", "src/b.ts"));
  });

  test("a pattern starting with ./ lists paths from the workspace root", async () => {
    const glob = await globber();
    expect((await glob({ pattern: "./src/*.ts" })).content).toBe(lines("src/a.ts", "src/b.ts"));
    expect((await glob({ pattern: "./*.ts", path: "src" })).content).toBe(lines("src/a.ts", "src/b.ts"));
  });

  test("says (no matches) when nothing matches", async () => {
    const glob = await globber();
    expect(await glob({ pattern: "**/*.rs" })).toEqual({ content: "(no matches)", isError: false, structuredContent: { matches: [], more: 0 } });
  });

  test("caps the listing at maxResults and counts the rest", async () => {
    const glob = await globber({ maxResults: 2 });
    const capped = await glob({ pattern: "**/*.ts" });
    expect(capped.content).toBe(lines("src/a.ts", "src/b.ts", "... (2 more matches)"));
    expect(capped.structuredContent).toEqual({ matches: ["src/a.ts", "src/b.ts"], more: 2 });
    expect((await glob({ pattern: "src/*.ts" })).content).toBe(lines("src/a.ts", "src/b.ts"));
  });

  test("ignore and dot options change what is listed", async () => {
    const everything = await globber({ ignore: [] });
    expect((await everything({ pattern: "**/{HEAD,*.js}" })).content).toBe(
      lines(".git/HEAD", "node_modules/pkg/index.js", "src/node_modules/x/y.js"),
    );
    const noDots = await globber({ dot: false });
    expect((await noDots({ pattern: "**/*.{yml,env}" })).content).toBe("(no matches)");
    expect((await noDots({ pattern: ".github/**" })).content).toBe(".github/workflows/ci.yml");
  });

  test("refuses a base folder that is missing or a file", async () => {
    const glob = await globber();
    expect((await glob({ pattern: "*", path: "nope" })).content).toBe("Error: Folder not found: nope");
    expect((await glob({ pattern: "*", path: "README.md" })).content).toBe("Error: README.md is not a folder");
  });

  test.each([
    ["{1..100000}", "its braces expand to more than 1000 patterns"],
    ["{a,b}".repeat(40), "its braces expand to more than 1000 patterns"],
    ["x".repeat(70_000), "70000 characters, over the limit of 4096"],
    ["*a*a*a*a*b", "more than 3 * in one path segment"],
  ])("a pattern fast-glob cannot expand or match in time is an Error: result (%#)", async (pattern, reason) => {
    const glob = await globber();
    const { content, isError } = await glob({ pattern });
    expect(isError).toBe(true);
    expect(content).toStartWith("Error: Invalid glob pattern ");
    expect(content).toEndWith(`: ${reason}`);
  });

  test("a base folder too long for the system is an Error: result", async () => {
    const glob = await globber();
    expect((await glob({ pattern: "*", path: "n".repeat(300) })).content).toBe(`Error: Path too long: ${"n".repeat(300)}`);
  });

  test("answers a cancelled call with the cancellation error", async () => {
    const glob = await globber();
    expect(await glob({ pattern: "**" }, { signal: AbortSignal.abort() })).toEqual({
      content: "Error: Cancelled before the tool finished",
      isError: true,
    });
  });
});

describe("glob never leaves the workspace", () => {
  test.each([
    "../x",
    "../outside/*",
    "src/../../outside/**",
    "/etc/*",
    "linkdir/*",
    "linkdir/**/*.ts",
    "{src,linkdir}/*",
  ])("refuses the pattern %s", async (pattern) => {
    const glob = await globber();
    expect(await glob({ pattern })).toEqual({ content: `Error: Path escapes workspace: ${pattern}`, isError: true });
  });

  // Each of these once listed the folder outside: the absolute alternative of a brace was
  // checked as if under the root while fast-glob scanned the real absolute path.
  test.each([
    () => "{/etc,x}/*",
    () => "{,/}etc/*",
    () => `${root}//etc/*`,
    () => `{${outside},x}/*`,
    () => `{,${outside}/}*`,
    () => `${root}/{x,${outside}}/*`,
    () => "**/../../*",
    () => "src/{a,../../outside}/*",
  ])("refuses every expansion that leaves: %#", async (make) => {
    const pattern = make();
    const glob = await globber();
    expect(await glob({ pattern })).toEqual({ content: `Error: Path escapes workspace: ${pattern}`, isError: true });
  });

  test("of symlinks named by fixed paths, keeps only those to a file inside", async () => {
    const glob = await globber();
    expect((await glob({ pattern: "{inlink,linkfile.ts,dangling.ts,linkdir,insrc,README.md}" })).content).toBe(
      lines("README.md", "inlink"),
    );
  });

  test("refuses an absolute pattern into a sibling folder", async () => {
    const glob = await globber();
    const pattern = join(outside, "*");
    expect((await glob({ pattern })).content).toBe(`Error: Path escapes workspace: ${pattern}`);
  });

  test.each(["..", "../outside", "linkdir", "/etc"])("refuses the base folder %s", async (path) => {
    const glob = await globber();
    expect((await glob({ pattern: "*", path })).content).toBe(`Error: Path escapes workspace: ${path}`);
  });

  test.each(["**/*.ts", "*/*", "**/secret.txt", "{..,src}/**", "*/sub/*", "linkfile.ts"])(
    "%s returns nothing from outside",
    async (pattern) => {
      const glob = await globber();
      const { content } = await glob({ pattern });
      expect(content).not.toContain("secret");
      expect(content).not.toContain("linkdir");
      expect(content).not.toContain("linkfile");
    },
  );
});
