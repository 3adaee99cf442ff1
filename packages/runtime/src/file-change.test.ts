import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Workspace } from "@plugboard/core";
import { fileChange } from "./file-change.ts";

let dir = "";
let workspace: Workspace;
beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), "plugboard-file-change-")));
  await mkdir(join(dir, "folder"));
  await writeFile(join(dir, "image.bin"), new Uint8Array([0x89, 0x50, 0, 1, 2]));
  workspace = await Workspace.open(dir);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

test("a binary file replaced is named, not compared; the new text's head follows", async () => {
  expect(await fileChange("write_file", { path: "image.bin", content: "text" }, workspace)).toEqual({
    kind: "replace",
    rows: [
      { kind: "skipped", text: "replaces a binary file of 5 bytes" },
      { kind: "added", text: "text" },
    ],
  });
});

test("a folder, another tool or arguments of the wrong kind show no change", async () => {
  expect(await fileChange("write_file", { path: "folder", content: "x" }, workspace)).toBeUndefined();
  expect(await fileChange("read_file", { path: "image.bin" }, workspace)).toBeUndefined();
  expect(await fileChange("edit_file", { path: "a", old_text: 1, new_text: "b" }, workspace)).toBeUndefined();
});
