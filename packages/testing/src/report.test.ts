import { expect, test } from "bun:test";
import { result } from "./checks.ts";
import { formatReport } from "./report.ts";

test("one line per check with its mark, problems and fix indented, and a summary", () => {
  const text = formatReport({
    directory: "/plugins/notes",
    plugin: "plugboard-plugin-notes@0.1.0",
    ok: false,
    checks: [
      result("package", "pass"),
      result("strict-schemas", "warn", ["notes: limit: optional"]),
      result("quiet", "fail", ['printed while loading: "hi\\n"'], { notes: ["only stdout is watched"] }),
      result("abort", "skip", ["the plugin did not load"]),
    ],
  });
  expect(text.split("\n")).toEqual([
    "Conformance of plugboard-plugin-notes@0.1.0 (/plugins/notes):",
    "✓ package.json is ready to publish",
    "! parameter schemas fit OpenAI strict mode (optional)",
    "    notes: limit: optional",
    expect.stringMatching(/^ {4}fix: For strict mode, list every property in required/),
    "✗ loading and calling it print nothing on stdout",
    '    printed while loading: "hi\\n"',
    expect.stringMatching(/^ {4}fix: Do not print from a plugin/),
    "    note: only stdout is watched",
    "- a call stops soon after its signal aborts (skipped)",
    "    the plugin did not load",
    "1 passed, 1 with warnings, 1 failed, 1 skipped.",
  ]);
});
