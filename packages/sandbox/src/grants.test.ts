import { expect, test } from "bun:test";
import type { Permission } from "@plugboard/core";
import { type GrantedEntry, withGrant } from "./grants.ts";

test("withGrant adds the permission once, the hosts or the read path at the end of their lists, and leaves the rest", () => {
  const entry: GrantedEntry & { package: string; options: unknown } = { package: "p", permissions: ["fs.read"] satisfies Permission[], network: ["a.example"], options: { x: 1 } };
  expect(withGrant(entry, { permission: "network" })).toEqual({ ...entry, permissions: ["fs.read", "network"] });
  expect(withGrant(entry, { permission: "fs.read" })).toEqual(entry);
  expect(withGrant(entry, { hosts: ["b.example:80"] })).toEqual({ ...entry, network: ["a.example", "b.example:80"] });
  expect(withGrant(entry, { read: "/opt/data" })).toEqual({ ...entry, read: ["/opt/data"] });
  // The entry given is not changed.
  expect(entry.permissions).toEqual(["fs.read"]);
});
