import { expect, test } from "bun:test";
import { join } from "node:path";
import { publishOrder, type WorkspacePackage, workspacePackages } from "./workspace-packages.ts";

const pkg = (name: string, needs: string[] = [], isPrivate = false): WorkspacePackage => ({ name, version: "1.0.0", folder: `/${name}`, private: isPrivate, needs });

test("each package comes after the workspace packages it needs; private ones are left out", () => {
  const order = publishOrder([pkg("cli", ["bootstrap", "openai"]), pkg("bootstrap", ["core"]), pkg("core"), pkg("bench", ["cli"], true)]);
  expect(order.map((entry) => entry.name)).toEqual(["core", "bootstrap", "cli"]);
});

test("a public package that needs a private one, or a cycle, is refused", () => {
  expect(() => publishOrder([pkg("cli", ["web"]), pkg("web", [], true)])).toThrow("cli needs web, which is private and so never published");
  expect(() => publishOrder([pkg("a", ["b"]), pkg("b", ["a"])])).toThrow("Dependency cycle: a → b → a");
});

test("this repository: every public package is ordered after its dependencies, and bench and web are not published", async () => {
  const all = await workspacePackages(join(import.meta.dir, "../../.."));
  const order = publishOrder(all).map((entry) => entry.name);
  expect(order).not.toContain("@plugboard/bench");
  expect(order).not.toContain("@plugboard/web");
  expect(order).toContain("@plugboard/cli");
  for (const entry of publishOrder(all)) {
    for (const needed of entry.needs.filter((name) => order.includes(name))) {
      expect({ entry: entry.name, before: order.indexOf(needed) < order.indexOf(entry.name) }).toEqual({ entry: entry.name, before: true });
    }
  }
});
