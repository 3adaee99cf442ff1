/** A code closure kept between processes: used while what its walk read is unchanged, walked again when it changes, and kept small. */
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { codeClosure } from "./package-closure.ts";

const root = mkdtempSync(join(tmpdir(), "plugboard-closure-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A package `name` in `folder` declaring `dependencies`, each installed beside it in node_modules. */
function writePackage(folder: string, name: string, dependencies: readonly string[] = []): void {
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, "package.json"), JSON.stringify({ name, dependencies: Object.fromEntries(dependencies.map((dep) => [dep, "*"])) }));
}

/** The keys of the closures kept in `folder`, oldest first. */
const kept = (folder: string) =>
  readdirSync(folder)
    .map((name) => join(folder, name))
    .sort((a, b) => statSync(a).mtimeMs - statSync(b).mtimeMs)
    .map((file) => (JSON.parse(readFileSync(file, "utf8")) as { key: string }).key);

test("a kept closure is used while nothing it read changed, and walked again (in another process too) when a dependency is added", async () => {
  // Installed as Bun installs them: links in the plugin's node_modules to a store.
  const plugin = join(root, "app/plugin");
  const install = (name: string) => {
    writePackage(join(root, "store", name), name);
    mkdirSync(join(plugin, "node_modules"), { recursive: true });
    symlinkSync(join(root, "store", name), join(plugin, "node_modules", name));
  };
  writePackage(plugin, "plugin", ["dep-a"]);
  install("dep-a");
  const file = join(root, "kept");
  const first = codeClosure([plugin], [join(root, "workspace")], file);
  expect(first.folders).toContain(join(root, "store/dep-a"));
  expect(first.folders).not.toContain(join(root, "store/dep-b"));
  expect(kept(file)).toHaveLength(1);
  // Another process reads the kept closure: the same folders, whatever this process remembers.
  const script = `const { codeClosure } = await import(${JSON.stringify(join(import.meta.dir, "package-closure.ts"))});
    console.log(JSON.stringify(codeClosure([${JSON.stringify(plugin)}], [${JSON.stringify(join(root, "workspace"))}], ${JSON.stringify(file)}).folders));`;
  const again = Bun.spawnSync([process.execPath, "-e", script]);
  expect(JSON.parse(again.stdout.toString())).toEqual(first.folders);
  // A new dependency: package.json and node_modules change, so the next walk finds it.
  writePackage(plugin, "plugin", ["dep-a", "dep-b"]);
  install("dep-b");
  const changed = Bun.spawnSync([process.execPath, "-e", script]);
  expect(JSON.parse(changed.stdout.toString())).toContain(join(root, "store/dep-b"));
});

test("a link replaced in a node_modules is walked again: the closure follows the new target", () => {
  const plugin = join(root, "linked/plugin");
  writePackage(plugin, "plugin", ["dep"]);
  writePackage(join(root, "linked/one"), "dep");
  writePackage(join(root, "linked/two"), "dep");
  mkdirSync(join(plugin, "node_modules"), { recursive: true });
  symlinkSync(join(root, "linked/one"), join(plugin, "node_modules/dep"));
  const file = join(root, "linked");
  expect(codeClosure([plugin], [join(root, "workspace")], file).folders).toContain(join(root, "linked/one"));
  rmSync(join(plugin, "node_modules/dep"));
  symlinkSync(join(root, "linked/two"), join(plugin, "node_modules/dep"));
  // What this process remembered is stale too: both are checked against what the walk read.
  const after = codeClosure([plugin], [join(root, "workspace")], file).folders;
  expect(after).toContain(join(root, "linked/two"));
  expect(after).not.toContain(join(root, "linked/one"));
});

test("the folder keeps the newest 32 closures: a workspace each would grow it without end", () => {
  const plugin = join(root, "many/plugin");
  writePackage(plugin, "plugin");
  const folder = join(root, "many-kept");
  for (let index = 0; index < 40; index++) {
    codeClosure([plugin], [join(root, `workspace-${index}`)], folder);
    // Apart in time, so that the oldest are told by their files' times.
    const file = readdirSync(folder).map((name) => join(folder, name)).find((path) => readFileSync(path, "utf8").includes(`workspace-${index}"`));
    if (file !== undefined) utimesSync(file, new Date(), new Date(Date.now() - (40 - index) * 1000));
  }
  const keys = kept(folder);
  expect(keys).toHaveLength(32);
  expect(keys.at(-1)).toEndWith("workspace-39");
  expect(keys.some((key) => key.endsWith("workspace-0"))).toBe(false);
});

test("closures another process kept are not lost: each is a file of its own, read when its key is asked for", () => {
  const plugin = join(root, "shared/plugin");
  writePackage(plugin, "plugin");
  const folder = join(root, "shared-kept");
  codeClosure([plugin], [join(root, "workspace-here")], folder);
  const script = `const { codeClosure } = await import(${JSON.stringify(join(import.meta.dir, "package-closure.ts"))});
    codeClosure([${JSON.stringify(plugin)}], [${JSON.stringify(join(root, "workspace-there"))}], ${JSON.stringify(folder)});`;
  expect(Bun.spawnSync([process.execPath, "-e", script]).exitCode).toBe(0);
  codeClosure([plugin], [join(root, "workspace-later")], folder);
  expect(kept(folder).map((key) => key.split("\0").at(-1)).sort()).toEqual([join(root, "workspace-here"), join(root, "workspace-later"), join(root, "workspace-there")]);
});

test("a kept file that names another key is not that key's closure: walked afresh", () => {
  const plugin = join(root, "forged/plugin");
  writePackage(plugin, "plugin", ["dep"]);
  writePackage(join(plugin, "node_modules/dep"), "dep");
  const folder = join(root, "forged-kept");
  const walked = [...codeClosure([plugin], [join(root, "workspace")], folder).folders];
  const [file = ""] = readdirSync(folder).map((name) => join(folder, name));
  // The same closure under another key: the walk's record says nothing of this one.
  const entry = JSON.parse(readFileSync(file, "utf8")) as { key: string; walked: { part: { folders: string[] } } };
  entry.walked.part.folders.push("/forged");
  writeFileSync(file, JSON.stringify({ ...entry, key: `${entry.key}-other` }));
  const script = `const { codeClosure } = await import(${JSON.stringify(join(import.meta.dir, "package-closure.ts"))});
    console.log(JSON.stringify(codeClosure([${JSON.stringify(plugin)}], [${JSON.stringify(join(root, "workspace"))}], ${JSON.stringify(folder)}).folders));`;
  const again = JSON.parse(Bun.spawnSync([process.execPath, "-e", script]).stdout.toString()) as string[];
  expect(again).toEqual(walked);
  expect(again).not.toContain("/forged");
});

test("a file where the kept closures' folder should be, or where a folder a walk read was, is a walk afresh, not a failure", () => {
  const plugin = join(root, "blocked/plugin");
  writePackage(plugin, "plugin", ["dep"]);
  writePackage(join(root, "blocked/store/dep"), "dep");
  mkdirSync(join(plugin, "node_modules"), { recursive: true });
  symlinkSync(join(root, "blocked/store/dep"), join(plugin, "node_modules/dep"));
  writeFileSync(join(root, "blocked/a-file"), "");
  expect(codeClosure([plugin], [join(root, "workspace")], join(root, "blocked/a-file/closures")).folders).toContain(join(root, "blocked/store/dep"));
  // The dependency's folder becomes a file: its package.json, which the walk read, is stamped `missing`, and the closure walked again.
  const file = join(root, "blocked-kept");
  codeClosure([plugin], [join(root, "workspace")], file);
  rmSync(join(root, "blocked/store/dep"), { recursive: true });
  writeFileSync(join(root, "blocked/store/dep"), "");
  expect(() => codeClosure([plugin], [join(root, "workspace")], file)).not.toThrow();
});

test("a kept closure is not walked again when unrelated files come and go in a folder above the code; a config file or a node_modules that appears there is", () => {
  const above = join(root, "above");
  const plugin = join(above, "code/plugin");
  writePackage(plugin, "plugin");
  const folder = join(above, "kept");
  const closure = () => codeClosure([plugin], [join(root, "workspace")], folder);
  // The one closure kept: this test's only key.
  const file = () => join(folder, readdirSync(folder)[0] ?? "");
  closure();
  const written = statSync(file()).ino;
  // The kept file's own folder changes with every write of the cache (here: another file in it).
  writeFileSync(join(above, "unrelated.txt"), "");
  writeFileSync(join(above, "code/notes.md"), "");
  closure();
  expect(statSync(file()).ino).toBe(written);
  // What Bun reads above the code, planted there after the walk: a tsconfig.json, a bunfig.toml, a node_modules
  // (a package in it resolves for the code). Each makes the closure walked again, and lists it.
  for (const [name, plant] of [
    ["tsconfig.json", (path: string) => writeFileSync(path, "{}")],
    ["bunfig.toml", (path: string) => writeFileSync(path, "")],
    ["node_modules", (path: string) => writePackage(join(path, "planted"), "planted")],
  ] as const) {
    const before = statSync(file()).ino;
    plant(join(above, name));
    const walked = closure();
    expect([...walked.files, ...walked.folders]).toContain(join(above, name));
    expect(statSync(file()).ino).not.toBe(before);
  }
});
