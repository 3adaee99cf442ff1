import { expect, test } from "bun:test";
import { findUnshare, unshareFlags, whyUnshareFails, whyUnshareFailsAsync } from "./unshare.ts";

test("unshareFlags spells each namespace, the user namespace first", () => {
  expect(unshareFlags({})).toEqual([]);
  expect(unshareFlags({ pid: true })).toEqual(["--pid", "--fork", "--kill-child"]);
  expect(unshareFlags({ user: "self", pid: true })).toEqual(["--user", "--map-current-user", "--pid", "--fork", "--kill-child"]);
  expect(unshareFlags({ user: "root", pid: "own-proc", ipc: true, net: true })).toEqual([
    "--user",
    "--map-root-user",
    "--pid",
    "--fork",
    "--kill-child",
    "--mount-proc",
    "--ipc",
    "--net",
  ]);
});

test.skipIf(findUnshare() === null)("whyUnshareFails is null when unshare runs, else the last line it printed", async () => {
  const unshare = findUnshare() ?? "unshare";
  expect(whyUnshareFails(unshare, [])).toBeNull();
  expect(await whyUnshareFailsAsync(unshare, [])).toBeNull();
  // util-linux's two lines: "unshare: unrecognized option '--no-such-flag'", then this.
  const hint = "Try 'unshare --help' for more information.";
  expect(whyUnshareFails(unshare, ["--no-such-flag"])).toBe(hint);
  expect(await whyUnshareFailsAsync(unshare, ["--no-such-flag"])).toBe(hint);
});
