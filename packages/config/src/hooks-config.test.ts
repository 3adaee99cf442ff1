import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import { loadFails, removeTempDirs, tempDir, writeConfig } from "../test/temp-config.ts";
import { loadConfig } from "./index.ts";

afterEach(removeTempDirs);

test("hooks: a program named by a path is resolved against the config's folder, where hooks run; a bare name is left to PATH", async () => {
  const dir = await tempDir();
  const path = await writeConfig(dir, {
    plugins: [],
    hooks: {
      before: [{ tool: "bash", command: ["./hooks/check.sh", "--strict"] }, { command: ["jq", "-c", "."], timeoutMs: 2000 }],
      after: [{ tool: "*_file", command: ["../shared/redact"] }],
    },
  });
  const config = await loadConfig(path, { env: {} });
  expect(config.hooks).toEqual({
    before: [
      { tool: "bash", command: [join(dir, "hooks/check.sh"), "--strict"], label: "./hooks/check.sh --strict", timeoutMs: 10_000, cwd: dir },
      { command: ["jq", "-c", "."], label: "jq -c .", timeoutMs: 2000, cwd: dir },
    ],
    after: [{ tool: "*_file", command: [join(dir, "../shared/redact")], label: "../shared/redact", timeoutMs: 10_000, cwd: dir }],
  });
});

test("hooks: no key is no hooks, and each wrong entry is named", async () => {
  const dir = await tempDir();
  expect((await loadConfig(await writeConfig(dir, { plugins: [] }), { env: {} })).hooks).toEqual({ before: [], after: [] });
  const path = await writeConfig(dir, {
    plugins: [],
    hooks: { before: [{ command: [] }, { command: "./check.sh" }, { command: ["./x"], timeoutMs: 0 }, { command: ["./x"], when: "always" }], during: [] },
  });
  const error = await loadFails(path, { env: {} });
  expect(error.code).toBe("CONFIG_INVALID");
  expect(error.message).toBe(
    [
      `Invalid config file ${path}:`,
      '  hooks.before[0].command: expected the program and its arguments, such as ["./check.sh"]',
      "  hooks.before[1].command: expected an array, got \"./check.sh\"",
      "  hooks.before[2].timeoutMs: expected at least 1, got 0",
      "  hooks.before[3].when: unknown key (allowed keys: tool, command, timeoutMs)",
      "  hooks.during: unknown key (allowed keys: before, after)",
    ].join("\n"),
  );
});
