import { describe, expect, test } from "bun:test";
import { strayOwner } from "./stray-errors.ts";

const plugins = [
  { name: "notes", directory: "/work/notes" },
  { name: "project", directory: "/work/project" },
];
const APP = "/work/project/node_modules/@plugboard/cli/dist";

/** An error as Bun makes it, thrown at `file`, called from `caller`. */
function thrownAt(file: string, caller: string): Error {
  const error = new TypeError("boom");
  error.stack = `TypeError: boom\n      at later (${file}:12:11)\n      at <anonymous> (${caller}:3:5)`;
  return error;
}

describe("whose error it is", () => {
  test("the plugin whose folder holds the frame where it was thrown", () => {
    expect(strayOwner(thrownAt("/work/notes/src/index.ts", `${APP}/chunk-1.js`), plugins, APP)?.name).toBe("notes");
  });

  test("the app's own code, though it lies in a plugin's folder (a plugin at \".\" with the app in its node_modules), is no plugin's", () => {
    expect(strayOwner(thrownAt(`${APP}/chunk-2.js`, "/work/notes/src/index.ts"), plugins, APP)).toBeUndefined();
  });

  test("a plugin's code lower in the stack does not make an error of the app's its own; nor does a folder whose name only starts the same", () => {
    expect(strayOwner(thrownAt("/work/other/x.ts", "/work/notes/src/index.ts"), plugins, APP)).toBeUndefined();
    expect(strayOwner(thrownAt("/work/notes-old/x.ts", "/work/notes-old/y.ts"), plugins, APP)).toBeUndefined();
  });

  test("an error without a stack to tell by, or no error at all, is no one's", () => {
    const bare = new Error("no stack");
    bare.stack = "Error: no stack";
    expect(strayOwner(bare, plugins, APP)).toBeUndefined();
    expect(strayOwner("a thrown string", plugins, APP)).toBeUndefined();
  });
});
