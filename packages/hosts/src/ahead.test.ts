/**
 * A confining step started ahead stands in for the namespace probe only when it shows it
 * runs in namespaces of its own: attacked with an `unshare` that makes none (it runs the
 * step as a plain child). The steps never get rules, so they run nothing.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findUnshare } from "@plugboard/core/process";
import { CONFINE_PROGRAM } from "@plugboard/sandbox/launcher";
import { startHostAhead } from "./ahead.ts";

let dir = "";
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "plugboard-ahead-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const stepWith = (unshare: string) => startHostAhead({ unshare }, { grants: [], workspace: dir, confineProgram: CONFINE_PROGRAM });

test("a step whose unshare made its namespaces shows it: the probe is not needed", async () => {
  const unshare = findUnshare();
  if (unshare === null) throw new Error("this test needs util-linux unshare");
  const step = stepWith(unshare);
  try {
    expect(await step.inNamespaces()).toBe(true);
  } finally {
    step.close();
  }
});

test.each([
  // Drops its options and runs the rest as a child, as `unshare --fork` would, in this process's namespaces.
  ["run by an unshare that makes no namespaces (its Bun a plain child) shows nothing: the probe is asked", "lying-unshare", '#!/bin/sh\nwhile case "$1" in -*) true ;; *) false ;; esac; do shift; done\n"$@" &\nwait\n'],
  ["whose unshare fails shows nothing", "failing-unshare", '#!/bin/sh\necho "unshare: unshare failed: Operation not permitted" >&2\nexit 1\n'],
])("a step %s", async (_name, file, script) => {
  const unshare = join(dir, file);
  await writeFile(unshare, script);
  await chmod(unshare, 0o755);
  const step = stepWith(unshare);
  try {
    expect(await step.inNamespaces()).toBe(false);
  } finally {
    step.close();
  }
});
