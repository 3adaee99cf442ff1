import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Type } from "@sinclair/typebox";
import { defineTool, structuredResult, textResult, ToolRegistry, Workspace } from "@plugboard/core";
import type { AuditRecord } from "./audit.ts";
import { ToolRuntime } from "./runtime.ts";

const SECRET = { name: "DB_PASSWORD", value: "correct-horse-battery-staple" };

let root: string;
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "plugboard-redaction-"));
  root = join(dir, "ws");
  await mkdir(root);
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const echo = defineTool({
  name: "echo",
  description: "Returns its text.",
  parameters: Type.Object({ text: Type.String() }),
  handler: async ({ text }) => textResult(text),
});
const rows = defineTool({
  name: "rows",
  description: "Returns a row, structured.",
  parameters: Type.Object({}),
  outputSchema: Type.Object({ password: Type.String() }),
  handler: async () => structuredResult("one row", { password: SECRET.value }),
});
/** A tool that names a secret where a key goes: in its result's structured content, and as a parameter's name. */
const keyed = defineTool({
  name: "keyed",
  description: "Returns rows keyed by name.",
  parameters: Type.Object({ [SECRET.value]: Type.Optional(Type.String()) }),
  handler: async () => structuredResult("keyed rows", { [SECRET.value]: "row", plain: "row" }),
});
const written: string[] = [];
const save = defineTool({
  name: "save",
  description: "Writes a file.",
  parameters: Type.Object({ path: Type.String(), content: Type.String() }),
  concurrency: { writes: ({ path }, workspace) => resolve(workspace.root, path) },
  handler: async ({ content }) => {
    written.push(content);
    return textResult("saved");
  },
});

async function runtimeWith(options: { secrets?: typeof SECRET[]; results?: { maxBytes: number; maxFileBytes: number } } = {}) {
  const records: AuditRecord[] = [];
  const runtime = new ToolRuntime(new ToolRegistry([echo, rows, save, keyed]), { workspace: await Workspace.open(root), audit: (record) => records.push(record), ...options });
  return { runtime, records };
}

describe("the runtime keeps the app's secrets from the model", () => {
  test("a result's secrets are replaced and counted, in the result and its audit record; without the secret (the twin) the value passes", async () => {
    const text = `pw: ${SECRET.value}, again ${SECRET.value}`;
    const { runtime, records } = await runtimeWith({ secrets: [SECRET] });
    const result = await runtime.execute("echo", JSON.stringify({ text }));
    expect(result).toEqual({ content: "pw: [redacted: DB_PASSWORD], again [redacted: DB_PASSWORD]", isError: false, redactions: 2 });
    expect(records[0]?.redactions).toBe(2);
    const twin = await runtimeWith();
    expect(await twin.runtime.execute("echo", JSON.stringify({ text }))).toEqual({ content: text, isError: false });
    expect(twin.records[0]).not.toHaveProperty("redactions");
    // A call no model reads (the person's own) is not redacted.
    expect(await runtime.execute("echo", JSON.stringify({ text }), { redact: false })).toEqual({ content: text, isError: false });
  });

  test("a structured result's strings are redacted too", async () => {
    const { runtime } = await runtimeWith({ secrets: [SECRET] });
    expect(await runtime.execute("rows", "{}")).toEqual({ content: "one row", isError: false, structuredContent: { password: "[redacted: DB_PASSWORD]" }, redactions: 1 });
  });

  test("a secret where a key goes is redacted too: a structured result's key, a parameter's name in the schema the model is sent; without the secret (the twin) both pass", async () => {
    const { runtime } = await runtimeWith({ secrets: [SECRET] });
    const result = await runtime.execute("keyed", "{}");
    expect(result.structuredContent).toEqual({ "[redacted: DB_PASSWORD]": "row", plain: "row" });
    expect(result.redactions).toBe(1);
    expect(JSON.stringify(runtime.schemas())).not.toContain(SECRET.value);
    expect(JSON.stringify(runtime.schema("keyed"))).toContain("[redacted: DB_PASSWORD]");
    const twin = await runtimeWith();
    expect((await twin.runtime.execute("keyed", "{}")).structuredContent).toEqual({ [SECRET.value]: "row", plain: "row" });
    expect(JSON.stringify(twin.runtime.schema("keyed"))).toContain(SECRET.value);
  });

  test("a large result: its results file keeps it as it was (the person's), the model's head and tail are redacted, a secret at the cut included", async () => {
    // The secret straddles the middle, where the cut falls: redacted first, it cannot leave a part on either side.
    const filler = "x".repeat(3000);
    const text = `${SECRET.value}\n${filler}${SECRET.value}${filler}\n${SECRET.value}`;
    const { runtime, records } = await runtimeWith({ secrets: [SECRET], results: { maxBytes: 1000, maxFileBytes: 1_000_000 } });
    const result = await runtime.execute("echo", JSON.stringify({ text }), { callId: "call_big" });
    expect(await readFile(join(root, ".plugboard/results/call_big.txt"), "utf8")).toBe(text);
    expect(result.content).toStartWith("[redacted: DB_PASSWORD]\nxxx");
    expect(result.content).toEndWith("xxx\n[redacted: DB_PASSWORD]");
    expect(result.content).toContain("bytes cut; the whole result is in .plugboard/results/call_big.txt");
    for (let cut = 4; cut <= SECRET.value.length; cut++) expect(result.content).not.toContain(SECRET.value.slice(0, cut));
    expect(records[0]?.redactions).toBe(3);
  });

  test("a call of a tool that writes a file, carrying a placeholder, is refused before its handler; the twin without one runs", async () => {
    const { runtime, records } = await runtimeWith({ secrets: [SECRET] });
    written.length = 0;
    const refused = await runtime.execute("save", JSON.stringify({ path: ".env", content: "DB_PASSWORD=[redacted: DB_PASSWORD]\n" }));
    expect(refused.isError).toBe(true);
    expect(refused.content).toStartWith('Error: save was not run: its arguments carry "[redacted: …]"');
    expect(records[0]?.decision).toBe("deny");
    // A tool that writes no file (echo) may carry it: it reads back what the model saw.
    expect((await runtime.execute("echo", JSON.stringify({ text: "[redacted: DB_PASSWORD]" }))).isError).toBe(false);
    expect(written).toEqual([]);
    expect(await runtime.execute("save", JSON.stringify({ path: ".env", content: "DB_PASSWORD=changed-by-the-model\n" }))).toEqual({ content: "saved", isError: false });
    expect(written).toEqual(["DB_PASSWORD=changed-by-the-model\n"]);
  });
});
