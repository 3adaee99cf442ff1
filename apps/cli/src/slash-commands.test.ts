import { describe, expect, test } from "bun:test";
import { slashCommand } from "./slash-commands.ts";

describe("slashCommand: which messages are commands", () => {
  test.each([
    ["/help", { name: "help", argument: "" }],
    ["/resume 2", { name: "resume", argument: "2" }],
    ["/model  gpt-4.1 ", { name: "model", argument: "gpt-4.1" }],
    ["/x", { name: "x", argument: "" }],
    ["/tmp is full", { name: "tmp", argument: "is full" }],
  ])("%p is a command", (message, command) => {
    expect(slashCommand(message)).toEqual(command);
  });

  test.each([["/etc/hosts is weird"], ["/Users/me/notes.md"], ["/Help"], [" /help"], ["/help\nand a second line"], ["/"], ["// a comment"], ["what does /help do?"]])(
    "%p is a message for the model",
    (message) => {
      expect(slashCommand(message)).toBeUndefined();
    },
  );
});
