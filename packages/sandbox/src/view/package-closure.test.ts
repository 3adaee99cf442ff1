/** A code closure kept between processes: used while what its walk read is unchanged, walked again when it changes, and kept small. */
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
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

const kept = (file: string) => Object.keys(JSON.parse(readFileSync(file, "utf8")) as object);

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
  const file = join(root, "kept.json");
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
  const file = join(root, "linked.json");
  expect(codeClosure([plugin], [join(root, "workspace")], file).folders).toContain(join(root, "linked/one"));
  rmSync(join(plugin, "node_modules/dep"));
  symlinkSync(join(root, "linked/two"), join(plugin, "node_modules/dep"));
  // What this process remembered is stale too: both are checked against what the walk read.
  const after = codeClosure([plugin], [join(root, "workspace")], file).folders;
  expect(after).toContain(join(root, "linked/two"));
  expect(after).not.toContain(join(root, "linked/one"));
});

test("the file keeps the newest 32 closures: a workspace each would grow it without end", () => {
  const plugin = join(root, "many/plugin");
  writePackage(plugin, "plugin");
  const file = join(root, "many.json");
  for (let index = 0; index < 40; index++) codeClosure([plugin], [join(root, `workspace-${index}`)], file);
  const keys = kept(file);
  expect(keys).toHaveLength(32);
  expect(keys.at(-1)).toContain("workspace-39");
  expect(keys.some((key) => key.endsWith("workspace-0"))).toBe(false);
});

test("the file as this process read it is used again only while no other process has written it: closures another process kept are not lost", () => {
  const plugin = join(root, "shared/plugin");
  writePackage(plugin, "plugin");
  const file = join(root, "shared.json");
  codeClosure([plugin], [join(root, "workspace-here")], file);
  const script = `const { codeClosure } = await import(${JSON.stringify(join(import.meta.dir, "package-closure.ts"))});
    codeClosure([${JSON.stringify(plugin)}], [${JSON.stringify(join(root, "workspace-there"))}], ${JSON.stringify(file)});`;
  expect(Bun.spawnSync([process.execPath, "-e", script]).exitCode).toBe(0);
  codeClosure([plugin], [join(root, "workspace-later")], file);
  expect(kept(file).map((key) => key.split("\0").at(-1))).toEqual([join(root, "workspace-here"), join(root, "workspace-there"), join(root, "workspace-later")]);
});

test("a file where the kept closures' folder should be, or where a folder a walk read was, is a walk afresh, not a failure", () => {
  const plugin = join(root, "blocked/plugin");
  writePackage(plugin, "plugin", ["dep"]);
  writePackage(join(root, "blocked/store/dep"), "dep");
  mkdirSync(join(plugin, "node_modules"), { recursive: true });
  symlinkSync(join(root, "blocked/store/dep"), join(plugin, "node_modules/dep"));
  writeFileSync(join(root, "blocked/a-file"), "");
  expect(codeClosure([plugin], [join(root, "workspace")], join(root, "blocked/a-file/closures.json")).folders).toContain(join(root, "blocked/store/dep"));
  // The dependency's folder becomes a file: its package.json, which the walk read, is stamped `missing`, and the closure walked again.
  const file = join(root, "blocked.json");
  codeClosure([plugin], [join(root, "workspace")], file);
  rmSync(join(root, "blocked/store/dep"), { recursive: true });
  writeFileSync(join(root, "blocked/store/dep"), "");
  expect(() => codeClosure([plugin], [join(root, "workspace")], file)).not.toThrow();
});

test("a kept closure is not walked again when unrelated files come and go in a folder above the code; a config file or a node_modules that appears there is", () => {
  const above = join(root, "above");
  const plugin = join(above, "code/plugin");
  writePackage(plugin, "plugin");
  const file = join(above, "kept.json");
  const closure = () => codeClosure([plugin], [join(root, "workspace")], file);
  closure();
  const written = statSync(file).ino;
  // The kept file's own folder changes with every write of the cache (here: another file in it).
  writeFileSync(join(above, "unrelated.txt"), "");
  writeFileSync(join(above, "code/notes.md"), "");
  closure();
  expect(statSync(file).ino).toBe(written);
  // What Bun reads above the code, planted there after the walk: a tsconfig.json, a bunfig.toml, a node_modules
  // (a package in it resolves for the code). Each makes the closure walked again, and lists it.
  for (const [name, plant] of [
    ["tsconfig.json", (path: string) => writeFileSync(path, "{}")],
    ["bunfig.toml", (path: string) => writeFileSync(path, "")],
    ["node_modules", (path: string) => writePackage(join(path, "planted"), "planted")],
  ] as const) {
    const before = statSync(file).ino;
    plant(join(above, name));
    const walked = closure();
    expect([...walked.files, ...walked.folders]).toContain(join(above, name));
    expect(statSync(file).ino).not.toBe(before);
  }
});
