import { expect, test } from "bun:test";
import { deriveCommandRule } from "./derived-rule.ts";

test.each([
  // programs with subcommands: the subcommand
  ["git log --oneline -5 | head", { pattern: "git log *", command: "git log --oneline -5" }],
  ["/usr/bin/git status", { pattern: "git status *", command: "git status" }],
  ["env X=1 ls; bun test src/a.test.ts", { pattern: "bun test *", command: "bun test src/a.test.ts" }],
  ["npm install --save-dev typescript", { pattern: "npm install *", command: "npm install --save-dev typescript" }],
  ["make test", { pattern: "make test *", command: "make test" }],
  // … and without one, only the exact command: `git *` would allow `git push --force`
  ["git -C sub log", { pattern: "git -C sub log", command: "git -C sub log" }],
  ["make", { pattern: "make", command: "make" }],
  // other programs: the name alone
  ["ls -la notes", { pattern: "ls *", command: "ls -la notes" }],
  ["echo hi", { pattern: "echo *", command: "echo hi" }],
  ["touch approved.txt", { pattern: "touch *", command: "touch approved.txt" }],
  // interpreters: the script they run, or the exact command
  ["python3 build.py --fast", { pattern: "python3 build.py *", command: "python3 build.py --fast" }],
  ["python3 -c 'print(1)'", { pattern: "python3 -c print(1)", command: "python3 -c print(1)" }],
  // destructive commands: exactly this one
  ["rm -rf build", { pattern: "rm -rf build", command: "rm -rf build" }],
  ["mv a.txt b.txt", { pattern: "mv a.txt b.txt", command: "mv a.txt b.txt" }],
  ["chmod 600 key", { pattern: "chmod 600 key", command: "chmod 600 key" }],
  ["git push --force origin main", { pattern: "git push --force origin main", command: "git push --force origin main" }],
  ["git push -f", { pattern: "git push -f", command: "git push -f" }],
  ["git push origin +main", { pattern: "git push origin +main", command: "git push origin +main" }],
  ["git reset --hard HEAD~1", { pattern: "git reset --hard HEAD~1", command: "git reset --hard HEAD~1" }],
  ["git clean -fdx", { pattern: "git clean -fdx", command: "git clean -fdx" }],
  ["git branch -D topic", { pattern: "git branch -D topic", command: "git branch -D topic" }],
  ["rsync -a --delete src/ dst/", { pattern: "rsync -a --delete src/ dst/", command: "rsync -a --delete src/ dst/" }],
  ["docker rm web", { pattern: "docker rm web", command: "docker rm web" }],
  ["nice -n 5 kill 42", { pattern: "kill 42", command: "kill 42" }],
  // … and not push or reset otherwise
  ["git push origin main", { pattern: "git push *", command: "git push origin main" }],
  ["git reset HEAD a.txt", { pattern: "git reset *", command: "git reset HEAD a.txt" }],
  ["find . -name x", { pattern: "find *", command: "find . -name x" }],
  // an exact rule cannot hold a wildcard character: no offer
  ["rm -f *.o", undefined],
  ['"$TOOL" run', undefined],
  ["git log (", undefined],
])("the rule for commands like %p", async (line, expected) => {
  expect(await deriveCommandRule(line)).toEqual(expected);
});
