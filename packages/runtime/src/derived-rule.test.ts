import { expect, test } from "bun:test";
import { deriveCommandRule } from "./derived-rule.ts";

test.each([
  ["git log --oneline -5 | head", { pattern: "git log *", command: "git log --oneline -5" }],
  ["ls -la notes", { pattern: "ls *", command: "ls -la notes" }],
  ["/usr/bin/git status", { pattern: "git status *", command: "git status" }],
  ["env X=1 ls; bun test src/a.test.ts", { pattern: "bun test *", command: "bun test src/a.test.ts" }],
  ['"$TOOL" run', undefined],
  ["git log (", undefined],
])("the rule for commands like %p", async (line, expected) => {
  expect(await deriveCommandRule(line)).toEqual(expected);
});
