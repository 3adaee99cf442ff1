import { describe, expect, test } from "bun:test";
import { readdir, readFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";

const repo = join(import.meta.dir, "../../..");
const transpiler = new Bun.Transpiler({ loader: "ts" });

/** Every import specifier of every non-test source file under `folder`. */
async function importsOf(folder: string): Promise<{ file: string; specifier: string }[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true }).catch(() => []);
  const found: { file: string; specifier: string }[] = [];
  for (const entry of entries) {
    if (!entry.isFile() || !/\.tsx?$/.test(entry.name) || /\.test\.tsx?$/.test(entry.name)) continue;
    const file = join(entry.parentPath, entry.name);
    if (file.includes("/node_modules/") || file.includes("/fixtures/")) continue;
    for (const { path } of transpiler.scanImports(await readFile(file, "utf8"))) {
      found.push({ file: relative(repo, file), specifier: path });
    }
  }
  return found;
}

/** Which of our packages a specifier reaches: a `@plugboard/…` name or a relative path into another package. */
function reaches(file: string, specifier: string): string | undefined {
  if (specifier.startsWith("@plugboard/")) return specifier.split("/").slice(0, 2).join("/");
  if (!specifier.startsWith(".")) return undefined;
  const target = relative(repo, join(repo, dirname(file), specifier));
  const [top, name] = target.split("/");
  const own = file.split("/").slice(0, 2).join("/");
  return `${top}/${name}` === own ? undefined : target;
}

async function packageFolders(group: string): Promise<string[]> {
  const entries = await readdir(join(repo, group), { withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isDirectory()).map((entry) => `${group}/${entry.name}`);
}

describe("import direction", () => {
  test("core imports nothing of ours: no plugin, no app, no other package", async () => {
    const ours = (await importsOf(join(repo, "packages/core/src"))).filter(({ file, specifier }) => reaches(file, specifier));
    expect(ours).toEqual([]);
  });

  test("core's package depends on TypeBox alone: a plugin author's install brings nothing else of it", async () => {
    const manifest = await Bun.file(join(repo, "packages/core/package.json")).json();
    expect(Object.keys(manifest.dependencies ?? {})).toEqual(["@sinclair/typebox"]);
  });

  test("the runtime imports only core of ours, and the agent only core and the runtime (and the SSE framing its demo model speaks)", async () => {
    const allowed: Record<string, readonly string[]> = {
      "packages/runtime": ["@plugboard/core"],
      "packages/agent": ["@plugboard/core", "@plugboard/runtime", "@plugboard/scripted-model"],
    };
    const offending = [];
    for (const [folder, ours] of Object.entries(allowed)) {
      for (const { file, specifier } of await importsOf(join(repo, folder, "src"))) {
        const target = reaches(file, specifier);
        if (target !== undefined && !ours.includes(target)) offending.push(`${file} → ${specifier}`);
      }
    }
    expect(offending).toEqual([]);
  });

  test("no package of ours depends on one that depends back on it, through any path", async () => {
    const folders = [...(await packageFolders("packages")), ...(await packageFolders("plugins")), ...(await packageFolders("apps"))];
    const graph = new Map<string, string[]>();
    for (const folder of folders) {
      const manifest = await Bun.file(join(repo, folder, "package.json")).json().catch(() => undefined);
      if (manifest === undefined) continue;
      const deps = { ...manifest.dependencies, ...manifest.devDependencies, ...manifest.peerDependencies };
      graph.set(manifest.name, Object.keys(deps).filter((name) => name.startsWith("@plugboard/")));
    }
    const cycles: string[] = [];
    const reach = (from: string, path: readonly string[]): void => {
      for (const next of graph.get(from) ?? []) {
        if (next === path[0]) cycles.push([...path, next].join(" → "));
        else if (!path.includes(next)) reach(next, [...path, next]);
      }
    };
    for (const name of graph.keys()) reach(name, [name]);
    expect(cycles).toEqual([]);
  });

  test("plugins import only @plugboard/core of ours", async () => {
    const offending = [];
    for (const folder of await packageFolders("plugins")) {
      for (const { file, specifier } of await importsOf(join(repo, folder, "src"))) {
        const target = reaches(file, specifier);
        if (target !== undefined && target !== "@plugboard/core") offending.push(`${file} → ${specifier}`);
      }
    }
    expect(offending).toEqual([]);
  });

  test("plugins use core's public surface (its root and ./process), never @plugboard/core/internal", async () => {
    const publicEntries = ["@plugboard/core/process", "@plugboard/core/package.json"];
    const offending = [];
    for (const folder of await packageFolders("plugins")) {
      for (const { file, specifier } of await importsOf(join(repo, folder, "src"))) {
        if (specifier.startsWith("@plugboard/core/") && !publicEntries.includes(specifier)) offending.push(`${file} → ${specifier}`);
      }
    }
    expect(offending).toEqual([]);
  });

  test("packages never import apps or plugins", async () => {
    const offending = [];
    for (const folder of await packageFolders("packages")) {
      for (const { file, specifier } of await importsOf(join(repo, folder, "src"))) {
        const target = reaches(file, specifier) ?? "";
        if (/^(apps|plugins)\//.test(target) || target.startsWith("@plugboard/plugin-") || target === "@plugboard/cli") {
          offending.push(`${file} → ${specifier}`);
        }
      }
    }
    expect(offending).toEqual([]);
  });
});

describe("importing core", () => {
  test("creates no registry, compiles no schema, prints nothing and leaves nothing running", async () => {
    const probe = `
      import { TypeCompiler } from "@sinclair/typebox/compiler";
      let compiled = 0;
      const original = TypeCompiler.Compile;
      TypeCompiler.Compile = (...args) => { compiled++; return original(...args); };
      const core = await import(${JSON.stringify(join(import.meta.dir, "index.ts"))});
      process.stderr.write(JSON.stringify({ compiled, exports: Object.keys(core).length }));
    `;
    const child = Bun.spawnSync(["bun", "-e", probe], { cwd: join(import.meta.dir, ".."), timeout: 20_000 });
    expect(child.exitCode).toBe(0);
    expect(child.stdout.toString()).toBe("");
    const report = JSON.parse(child.stderr.toString());
    expect(report.compiled).toBe(0);
    expect(report.exports).toBeGreaterThan(10);
  });

  test("no module of core constructs a registry or runtime at top level", async () => {
    const sources = (await readdir(import.meta.dir)).filter((name) => name.endsWith(".ts") && !name.endsWith(".test.ts"));
    for (const name of sources) {
      const text = await readFile(join(import.meta.dir, name), "utf8");
      const topLevel = text.split("\n").filter((line) => /^(export )?(const|let|var) /.test(line));
      expect(topLevel.filter((line) => /new (ToolRegistry|ToolRuntime)\b/.test(line))).toEqual([]);
    }
  });
});

describe("the public surface", () => {
  test("the package root names its exports and keeps the internals out", async () => {
    const index = await readFile(join(import.meta.dir, "index.ts"), "utf8");
    expect(index).not.toMatch(/export \*/);
    const core = await import("./index.ts");
    for (const internal of ["toolErrors", "ERROR_PREFIX", "DuplicateToolError", "PlugboardError", "formatSchemaErrors"]) {
      expect(Object.keys(core)).not.toContain(internal);
    }
    const internals = await import("./internal.ts");
    expect(Object.keys(internals)).toEqual(expect.arrayContaining(["toolErrors", "ERROR_PREFIX", "DuplicateToolError"]));
  });
});
