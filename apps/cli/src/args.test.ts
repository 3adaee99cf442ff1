import { describe, expect, test } from "bun:test";
import { UsageError, parseCliArgs } from "./args.ts";

describe("parseCliArgs", () => {
  test("no arguments is the interactive session", () => {
    expect(parseCliArgs([])).toEqual({ command: "interactive", args: [], flags: { yes: false, json: false }, help: false, version: false });
  });

  test("reads a command, its arguments and its flags", () => {
    const parsed = parseCliArgs(["run", "--max-steps", "5", "--base-url=http://x/v1", "read", "a.md", "--json"]);
    expect(parsed.command).toBe("run");
    expect(parsed.args).toEqual(["read", "a.md"]);
    expect(parsed.flags).toMatchObject({ maxSteps: "5", baseURL: "http://x/v1", json: true });
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

  test.each([["--max-steps", " "], ["--model", " "]])("refuses run %s %p", (flag, value) => {
    expect(() => parseCliArgs(["run", flag, value, "hi"])).toThrow(UsageError);
  });

  test("plugin add takes --registry URL and --yes (or -y); plugin remove takes neither", () => {
    expect(parseCliArgs(["plugin", "add", "@acme/notes", "--registry", "http://127.0.0.1:4873/", "-y"])).toMatchObject({
      command: "plugin add",
      args: ["@acme/notes"],
      flags: { registry: "http://127.0.0.1:4873/", yes: true },
    });
    expect(() => parseCliArgs(["plugin", "add", "x", "--registry", "localhost"])).toThrow("--registry must be an http(s) URL, got 'localhost'");
    expect(() => parseCliArgs(["plugin", "remove", "x", "--yes"])).toThrow("--yes does not apply to 'plugboard plugin remove'");
  });

  test("plugin new and plugin check are two-word commands; --dir belongs to plugin new", () => {
    expect(parseCliArgs(["plugin", "new", "notes", "--dir", "out"])).toMatchObject({ command: "plugin new", args: ["notes"], flags: { dir: "out" } });
    expect(parseCliArgs(["plugin", "check", ".", "--json"])).toMatchObject({ command: "plugin check", args: ["."], flags: { json: true } });
    expect(parseCliArgs(["help", "plugin", "check"])).toMatchObject({ command: "plugin check", help: true });
    expect(() => parseCliArgs(["plugin", "check", ".", "--dir", "x"])).toThrow("--dir does not apply to 'plugboard plugin check' (see plugboard plugin check --help)");
  });

  test("a plugin command's usage mistake points at its own help", () => {
    expect(() => parseCliArgs(["plugin", "new", "--dir"])).toThrow("--dir needs a value (see plugboard plugin new --help)");
  });

  test("a value that starts with a dash is shown how to pass, and then checked as any other", () => {
    expect(() => parseCliArgs(["run", "--max-steps", "-1", "hi"])).toThrow(
      '--max-steps needs a value; one that starts with "-" is written --max-steps=-1 (see plugboard run --help)',
    );
    expect(() => parseCliArgs(["run", "--max-steps=-1", "hi"])).not.toThrow();
  });
});
