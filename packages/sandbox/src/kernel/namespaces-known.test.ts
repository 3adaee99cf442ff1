import { afterAll, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { forgetNamespaces, namespacesKnown, rememberNamespaces } from "./namespaces-known.ts";

const dir = mkdtempSync(join(tmpdir(), "plugboard-namespaces-known-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = { XDG_CACHE_HOME: join(dir, "cache") };
// Any program stands in for unshare here: the key is its file's identity, nothing is run.
const unshare = join(dir, "unshare");
copyFileSync("/bin/true", unshare);
const flags = ["--user", "--map-root-user", "--net"];

test("only a yes kept under the same key is known: the same unshare file and flags, this boot, user and process", () => {
  expect(namespacesKnown(env, unshare, flags)).toBe(false);
  rememberNamespaces(env, unshare, flags);
  expect(readdirSync(join(dir, "cache/plugboard/namespaces"))).toHaveLength(1);
  expect(namespacesKnown(env, unshare, flags)).toBe(true);
  expect(namespacesKnown(env, unshare, ["--user", "--map-root-user"])).toBe(false);
  // Another unshare at another path, and the same path holding another file.
  const other = join(dir, "unshare-2");
  copyFileSync("/bin/true", other);
  expect(namespacesKnown(env, other, flags)).toBe(false);
  rmSync(unshare);
  copyFileSync("/bin/false", unshare);
  expect(namespacesKnown(env, unshare, flags)).toBe(false);
  rememberNamespaces(env, unshare, flags);
  expect(namespacesKnown(env, unshare, flags)).toBe(true);
});

test("forgetting drops every kept yes; without a cache folder nothing is kept or known", () => {
  rememberNamespaces(env, unshare, flags);
  forgetNamespaces(env);
  expect(existsSync(join(dir, "cache/plugboard/namespaces"))).toBe(false);
  expect(namespacesKnown(env, unshare, flags)).toBe(false);
  rememberNamespaces({}, unshare, flags);
  expect(namespacesKnown({}, unshare, flags)).toBe(false);
  // A missing unshare is no key: never known.
  rememberNamespaces(env, join(dir, "no-such-unshare"), flags);
  expect(namespacesKnown(env, join(dir, "no-such-unshare"), flags)).toBe(false);
});
