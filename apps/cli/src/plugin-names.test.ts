import { describe, expect, test } from "bun:test";
import { UsageError } from "./args.ts";
import { pluginNames } from "./plugin-names.ts";

describe("pluginNames (plugboard plugin new NAME)", () => {
  test.each([
    ["notes", "plugboard-plugin-notes", "notes", "plugboard-plugin-notes"],
    ["@acme/notes", "@acme/plugboard-plugin-notes", "notes", "plugboard-plugin-notes"],
    ["plugboard-plugin-notes", "plugboard-plugin-notes", "notes", "plugboard-plugin-notes"],
    ["@acme/plugboard-plugin-notes", "@acme/plugboard-plugin-notes", "notes", "plugboard-plugin-notes"],
    // Named as Plugboard's own packages are: kept as written, never "plugin-plugin-".
    ["@acme/plugin-shout", "@acme/plugin-shout", "shout", "plugin-shout"],
    ["@acme/plugin-word-count", "@acme/plugin-word-count", "word-count", "plugin-word-count"],
    // Unscoped, the convention's prefix takes the place of "plugin-".
    ["plugin-shout", "plugboard-plugin-shout", "shout", "plugboard-plugin-shout"],
  ])("%s is the package %s (short name %s, folder %s)", (name, packageName, shortName, folder) => {
    const names = pluginNames(name);
    expect(names.packageName).toBe(packageName);
    expect(names.shortName).toBe(shortName);
    expect(names.folder).toBe(folder);
  });

  test("the tool's names follow the short name", () => {
    expect(pluginNames("@acme/plugin-word-count")).toMatchObject({ toolName: "word_count", camelName: "wordCount" });
  });

  test.each(["@acme/plugin-", "@acme/Plugin-x", "Notes", "", "@/notes"])("%p is refused with the rule", (name) => {
    expect(() => pluginNames(name)).toThrow(UsageError);
  });
});
