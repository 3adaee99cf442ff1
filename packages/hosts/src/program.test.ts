/** The hosts' programs: bundled once into the cache folder, used while their sources are unchanged, built again when one changes. */
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "@plugboard/core";
import { stamp } from "./listing-cache.ts";
import { HOST_SOURCE, hostPrograms, programFolder } from "./program.ts";

// Each test bundles the host (with its bytecode) and the confining step: about a second alone,
// far more than bun's default 5 s when the whole suite shares two cores.
setDefaultTimeout(60_000);

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});
const cacheFolder = () => {
  const folder = mkdtempSync(join(tmpdir(), "plugboard-programs-"));
  folders.push(folder);
  return folder;
};

test("the host is bundled with its bytecode, the confining step as an ES module, and the bundles kept", async () => {
  const cache = cacheFolder();
  const first = await hostPrograms(cache, silentLogger);
  expect(first.host).toStartWith(programFolder(cache));
  expect(first.confine).toStartWith(programFolder(cache));
  for (const file of [first.host, first.confine ?? ""]) expect(statSync(file).isFile()).toBe(true);
  expect(statSync(`${first.host}.jsc`).size).toBeGreaterThan(0);
  // It awaits at its top level the program it runs in place (confine-program.ts): no CommonJS, no bytecode.
  expect(existsSync(`${first.confine}.jsc`)).toBe(false);
  expect(readFileSync(first.confine ?? "", "utf8")).not.toStartWith("// @bun @bytecode");
  const written = statSync(first.host).mtimeMs;
  const again = await hostPrograms(cache, silentLogger);
  expect(again).toEqual(first);
  expect(statSync(again.host).mtimeMs).toBe(written);
});

test("a source that changed since (its stamp differs) makes it build again", async () => {
  const cache = cacheFolder();
  const first = await hostPrograms(cache, silentLogger);
  const recordFile = join(programFolder(cache), "host-program.json");
  const record = JSON.parse(readFileSync(recordFile, "utf8")) as { sources: Record<string, string> };
  expect(Object.keys(record.sources)).toContain(HOST_SOURCE);
  record.sources[HOST_SOURCE] = "0 0 0 0";
  writeFileSync(recordFile, JSON.stringify(record));
  const rebuiltAt = Date.now();
  const again = await hostPrograms(cache, silentLogger);
  expect(again.host).toBe(first.host);
  expect(statSync(again.host).mtimeMs).toBeGreaterThanOrEqual(rebuiltAt - 1);
  expect((JSON.parse(readFileSync(recordFile, "utf8")) as { sources: Record<string, string> }).sources[HOST_SOURCE]).not.toBe("0 0 0 0");
});

test("without a cache folder, or one that cannot be written, hosts run from the sources", async () => {
  expect(await hostPrograms(undefined, silentLogger)).toEqual({ host: HOST_SOURCE, confine: undefined });
  const blocker = join(cacheFolder(), "a-file");
  writeFileSync(blocker, "");
  expect(await hostPrograms(blocker, silentLogger)).toEqual({ host: HOST_SOURCE, confine: undefined });
});

test("another installation's bundles are never built over or deleted; those of a removed one are", async () => {
  const cache = cacheFolder();
  const all = programFolder(cache, "all");
  // Another checkout (its sources exist) and a removed one (its sources are gone), as they would leave their folders.
  const plant = (installation: string, source: string) => {
    const folder = join(all, installation);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "host-program-0123456789abcdef.js"), "// its bundle\n");
    writeFileSync(join(folder, "host-program.json"), JSON.stringify({ bun: Bun.version, file: "host-program-0123456789abcdef.js", sources: { [source]: stamp(source) } }));
    return folder;
  };
  const living = join(cacheFolder(), "host-program.ts");
  writeFileSync(living, "// another checkout's host program\n");
  const other = plant("aaaaaaaaaaaaaaaa", living);
  const removed = plant("bbbbbbbbbbbbbbbb", join(cacheFolder(), "gone", "host-program.ts"));
  const ours = await hostPrograms(cache, silentLogger);
  expect(ours.host).toStartWith(`${programFolder(cache)}/`);
  expect(programFolder(cache)).not.toBe(other);
  expect(readFileSync(join(other, "host-program-0123456789abcdef.js"), "utf8")).toBe("// its bundle\n");
  expect(existsSync(removed)).toBe(false);
});

test("a rebuild keeps the bundle just before it (and the compiler it requires), which a host may be starting from", async () => {
  const cache = cacheFolder();
  await hostPrograms(cache, silentLogger);
  const folder = programFolder(cache);
  const recordFile = join(folder, "host-program.json");
  const record = JSON.parse(readFileSync(recordFile, "utf8")) as { file: string; parts: string[]; sources: Record<string, string> };
  // The record names a stale bundle (the one just before) and its compiler; older ones lie beside them.
  const previous = ["host-program-00000000000000aa.js", "host-program-compiler-00000000000000aa.js"];
  const older = ["host-program-00000000000000ff.js", "host-program-compiler-00000000000000ff.js"];
  for (const file of [...previous, ...older]) for (const written of [file, `${file}.jsc`]) writeFileSync(join(folder, written), "// an earlier build\n");
  writeFileSync(recordFile, JSON.stringify({ ...record, file: previous[0], parts: previous.slice(1), sources: { ...record.sources, [HOST_SOURCE]: "0 0 0 0" } }));
  const rebuilt = await hostPrograms(cache, silentLogger);
  expect(rebuilt.host).not.toBe(join(folder, previous[0] ?? ""));
  const there = (files: readonly string[]) => files.flatMap((file) => [existsSync(join(folder, file)), existsSync(join(folder, `${file}.jsc`))]);
  expect(there(previous)).toEqual([true, true, true, true]);
  expect(there(older)).toEqual([false, false, false, false]);
  // The new build's own compiler, beside it.
  const built = JSON.parse(readFileSync(recordFile, "utf8")) as { parts: string[] };
  expect(built.parts).toEqual([expect.stringMatching(/^host-program-compiler-[0-9a-f]{16}\.js$/)]);
  expect(there(built.parts)).toEqual([true, true]);
});

test("the host's bundle requires TypeBox's compiler from beside it; a kept bundle whose compiler is gone is built again", async () => {
  const cache = cacheFolder();
  const first = await hostPrograms(cache, silentLogger);
  const folder = programFolder(cache);
  const { parts } = JSON.parse(readFileSync(join(folder, "host-program.json"), "utf8")) as { parts: string[] };
  const [compiler = ""] = parts;
  expect(readFileSync(first.host, "utf8")).toContain(`require("./${compiler}")`);
  // The compiler generates each check as source text, `return function check(...)`: that code is in its bundle, not the host's.
  expect(readFileSync(first.host, "utf8")).not.toContain("return function check(");
  expect(readFileSync(join(folder, compiler), "utf8")).toContain("return function check(");
  rmSync(join(folder, compiler));
  const again = await hostPrograms(cache, silentLogger);
  expect(again.host).toBe(first.host);
  expect(existsSync(join(folder, compiler))).toBe(true);
});
