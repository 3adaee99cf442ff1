import { describe, expect, test } from "bun:test";
import { UsageError, parseCliArgs } from "./args.ts";

describe("parseCliArgs", () => {
  test("no arguments is the interactive session", () => {
    expect(parseCliArgs([])).toEqual({ command: "interactive", args: [], flags: { json: false }, help: false, version: false });
  });

  test("reads a command, its arguments and its flags", () => {
    const parsed = parseCliArgs(["run", "--max-steps", "5", "--base-url=http://x/v1", "read", "a.md", "--json"]);
    expect(parsed.command).toBe("run");
    expect(parsed.args).toEqual(["read", "a.md"]);
    expect(parsed.flags).toMatchObject({ maxSteps: 5, baseURL: "http://x/v1", json: true });
  });

  test("arguments after -- may start with a dash", () => {
    expect(parseCliArgs(["run", "--", "--not-a-flag"]).args).toEqual(["--not-a-flag"]);
  });

  test("help COMMAND is COMMAND --help", () => {
    expect(parseCliArgs(["help", "call"])).toMatchObject({ command: "call", help: true });
  });

  test("--help skips the argument count check", () => {
    expect(parseCliArgs(["call", "--help"])).toMatchObject({ command: "call", help: true });
  });

  test.each([["--max-steps", "1.5"], ["--max-steps", "1001"], ["--model", " "]])("refuses run %s %p", (flag, value) => {
    expect(() => parseCliArgs(["run", flag, value, "hi"])).toThrow(UsageError);
  });
});
