/** The hosts' programs: bundled once into the cache folder, used while their sources are unchanged, built again when one changes. */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "@plugboard/core";
import { stamp } from "./listing-cache.ts";
import { HOST_SOURCE, hostPrograms, programFolder } from "./program.ts";

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});
const cacheFolder = () => {
  const folder = mkdtempSync(join(tmpdir(), "plugboard-programs-"));
  folders.push(folder);
  return folder;
};

test("the host and the confining step are bundled with their bytecode, and the bundles kept", async () => {
  const cache = cacheFolder();
  const first = await hostPrograms(cache, silentLogger);
  expect(first.host).toStartWith(programFolder(cache));
  expect(first.confine).toStartWith(programFolder(cache));
  for (const file of [first.host, first.confine ?? ""]) {
    expect(statSync(file).isFile()).toBe(true);
    expect(statSync(`${file}.jsc`).size).toBeGreaterThan(0);
  }
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

test("a bundle another checkout built (its sources are elsewhere, unchanged) is built again from these sources", async () => {
  const cache = cacheFolder();
  await hostPrograms(cache, silentLogger);
  const recordFile = join(programFolder(cache), "host-program.json");
  const record = JSON.parse(readFileSync(recordFile, "utf8")) as { sources: Record<string, string> };
  const other = join(cacheFolder(), "host-program.ts");
  writeFileSync(other, "// another checkout's host program\n");
  writeFileSync(recordFile, JSON.stringify({ ...record, sources: { [other]: stamp(other) } }));
  await hostPrograms(cache, silentLogger);
  expect(Object.keys((JSON.parse(readFileSync(recordFile, "utf8")) as { sources: Record<string, string> }).sources)).toContain(HOST_SOURCE);
});
