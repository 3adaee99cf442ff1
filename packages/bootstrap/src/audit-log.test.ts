import { afterEach, describe, expect, test } from "bun:test";
import { readdirSync, readlinkSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fixture, removeTempDirs, tempDir, writeConfig } from "../test/temp-app.ts";
import { openAuditLog } from "./audit-log.ts";
import { buildApp, loadConfig } from "./index.ts";

afterEach(removeTempDirs);

async function appWith(dir: string, extra: Record<string, unknown>) {
  const path = await writeConfig(dir, { workspace: ".", plugins: [{ path: fixture("echo") }], ...extra });
  return buildApp(await loadConfig(path, { env: {} }));
}

describe("the audit log", () => {
  test("each call that reached the policy is one JSON line, appended", async () => {
    const dir = await tempDir();
    const app = await appWith(dir, { audit: "audit.jsonl", policy: { rules: [{ tool: "echo", args: { text: "no*" }, action: "deny" }] } });
    await app.runtime.execute("echo", '{"text":"hi"}', { callId: "c1" });
    await app.runtime.execute("echo", '{"text":"nope"}', { callId: "c2" });
    await app.runtime.execute("echo", '{"bad":1}', { callId: "c3" });
    const lines = (await readFile(join(dir, "audit.jsonl"), "utf8")).split("\n");
    expect(lines.at(-1)).toBe("");
    const records = lines.slice(0, -1).map((line) => JSON.parse(line));
    expect(records.map((record) => [record.callId, record.decision, record.rule, record.isError])).toEqual([
      ["c1", "allow", undefined, false],
      ["c2", "deny", "echo text=no*", true],
    ]);
    expect(records[0].session).toBe(app.runtime.session);
  });

  test("an audit file that cannot be opened is a config error naming the key, before any call", async () => {
    const dir = await tempDir();
    const error = await appWith(dir, { audit: "missing-folder/audit.jsonl" }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: "CONFIG_INVALID" });
    expect((error as Error).message).toContain(`Cannot open the audit log ${join(dir, "missing-folder/audit.jsonl")} (ENOENT), set by "audit" in ${join(dir, "plugboard.json")}`);
  });

  test("a folder is refused too", async () => {
    const dir = await tempDir();
    await mkdir(join(dir, "logs"));
    expect(() => openAuditLog(join(dir, "logs"), "c.json")).toThrow("(EISDIR)");
  });

  test("closing the app releases the log; a call that finishes after that is still recorded", async () => {
    const dir = await tempDir();
    const app = await appWith(dir, { audit: "audit.jsonl" });
    const fds = () => readdirSync("/proc/self/fd").filter((fd) => readlinkOrNone(`/proc/self/fd/${fd}`) === join(dir, "audit.jsonl"));
    expect(fds()).toHaveLength(1);
    await app.runtime.execute("echo", '{"text":"before"}');
    await app.close();
    expect(fds()).toHaveLength(0);
    await app.runtime.execute("echo", '{"text":"after"}');
    expect(fds()).toHaveLength(0);
    const lines = (await readFile(join(dir, "audit.jsonl"), "utf8")).trim().split("\n");
    expect(lines.map((line) => JSON.parse(line).args.text)).toEqual(["before", "after"]);
  });
});

function readlinkOrNone(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
}
