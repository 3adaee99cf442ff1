import { afterEach, expect, test } from "bun:test";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { loadFails, removeTempDirs, tempDir, writeConfig } from "../test/temp-config.ts";
import { loadConfig } from "./index.ts";

afterEach(removeTempDirs);

test("hooks: paths are resolved against the config's folder; a hook runs in its program's folder (the script an interpreter runs)", async () => {
  const dir = await tempDir();
  await mkdir(join(dir, "hooks"));
  await writeFile(join(dir, "hooks/check.py"), "");
  await writeFile(join(dir, "rules.json"), "{}");
  const path = await writeConfig(dir, {
    plugins: [],
    hooks: {
      before: [
        { tool: "bash", command: ["./hooks/check.sh", "--strict"] },
        { command: ["python3", "-u", "hooks/check.py", "rules.json", "deny", "./out.log"], timeoutMs: 2000 },
        { command: ["jq", "-c", "."] },
        { command: ["/usr/bin/env", "python3", "./hooks/check.py"] },
      ],
      after: [{ tool: "*_file", command: ["../shared/redact"] }],
    },
  });
  const config = await loadConfig(path, { env: {} });
  const jq = Bun.which("jq");
  expect(config.hooks).toEqual({
    before: [
      { tool: "bash", command: [join(dir, "hooks/check.sh"), "--strict"], program: join(dir, "hooks/check.sh"), label: "./hooks/check.sh --strict", timeoutMs: 10_000, cwd: join(dir, "hooks") },
      {
        command: ["python3", "-u", join(dir, "hooks/check.py"), join(dir, "rules.json"), "deny", join(dir, "out.log")],
        program: join(dir, "hooks/check.py"),
        label: "python3 -u hooks/check.py rules.json deny ./out.log",
        timeoutMs: 2000,
        cwd: join(dir, "hooks"),
      },
      // A bare name is found on PATH, and runs in its folder there.
      { command: ["jq", "-c", "."], ...(jq === null ? { cwd: dir } : { program: jq, cwd: dirname(jq) }), label: "jq -c .", timeoutMs: 10_000 },
      // `env` runs an interpreter: the hook's code is still the script.
      { command: ["/usr/bin/env", "python3", join(dir, "hooks/check.py")], program: join(dir, "hooks/check.py"), label: "/usr/bin/env python3 ./hooks/check.py", timeoutMs: 10_000, cwd: join(dir, "hooks") },
    ],
    after: [{ tool: "*_file", command: [join(dir, "../shared/redact")], program: join(dir, "../shared/redact"), label: "../shared/redact", timeoutMs: 10_000, cwd: join(dir, "../shared") }],
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
