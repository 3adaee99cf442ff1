import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BoundedReadError, readFileBounded, readRegularText, readTextBounded } from "./bounded-read.ts";

const dir = mkdtempSync(join(tmpdir(), "plugboard-bounded-read-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The error `read` throws, or undefined when it throws none. */
function thrown(read: () => unknown): unknown {
  try {
    read();
  } catch (error) {
    return error;
  }
  return undefined;
}

test("a regular file is read whole, links followed", () => {
  writeFileSync(join(dir, "config.json"), '{"plugins": []}\n');
  symlinkSync("config.json", join(dir, "linked.json"));
  expect(readTextBounded(join(dir, "config.json"))).toBe('{"plugins": []}\n');
  expect(readTextBounded(join(dir, "linked.json"))).toBe('{"plugins": []}\n');
  writeFileSync(join(dir, "empty"), "");
  expect(readFileBounded(join(dir, "empty")).length).toBe(0);
});

test("a FIFO is refused at once, not waited on for a writer (a plain read would block for ever)", () => {
  const fifo = join(dir, "fifo.json");
  expect(Bun.spawnSync(["mkfifo", fifo]).exitCode).toBe(0);
  const error = thrown(() => readTextBounded(fifo));
  expect(error).toBeInstanceOf(BoundedReadError);
  expect(error).toMatchObject({ code: "ENOTREG", message: "it is a FIFO (named pipe), not a regular file", path: fifo });
});

test("a link to a device that never ends is refused before anything is read", () => {
  symlinkSync("/dev/zero", join(dir, "zero.json"));
  expect(thrown(() => readTextBounded(join(dir, "zero.json")))).toMatchObject({ code: "ENOTREG", message: "it is a character device, not a regular file" });
});

test("a folder is EISDIR, a file over the bound EFBIG, a missing file the system's ENOENT", () => {
  mkdirSync(join(dir, "folder.json"));
  expect(thrown(() => readTextBounded(join(dir, "folder.json")))).toMatchObject({ code: "EISDIR" });
  writeFileSync(join(dir, "big"), "x".repeat(101));
  expect(readTextBounded(join(dir, "big"), 101)).toHaveLength(101);
  expect(thrown(() => readTextBounded(join(dir, "big"), 100))).toMatchObject({ code: "EFBIG", message: "it holds more than 100 bytes, the most read" });
  expect(thrown(() => readTextBounded(join(dir, "no-such-file")))).toMatchObject({ code: "ENOENT" });
});

test("a file whose size says nothing (the kernel's files say 0) is read to its end, to the bound", () => {
  const status = readTextBounded("/proc/self/status");
  expect(status).toStartWith("Name:");
  expect(status).toContain("\nPid:");
  // Longer than the first buffer: read on as it grows.
  const maps = readTextBounded("/proc/self/maps");
  expect(maps.length).toBeGreaterThan(4096);
  expect(maps.endsWith("\n")).toBe(true);
  expect(thrown(() => readTextBounded("/proc/self/maps", 5000))).toMatchObject({ code: "EFBIG" });
});

test("without the bound, a regular file of any size is read whole; a FIFO is still refused", () => {
  writeFileSync(join(dir, "large"), "y".repeat(200_000));
  expect(readRegularText(join(dir, "large"))).toHaveLength(200_000);
  expect(thrown(() => readRegularText(join(dir, "fifo.json")))).toMatchObject({ code: "ENOTREG" });
});
