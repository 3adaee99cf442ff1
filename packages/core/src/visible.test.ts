import { expect, test } from "bun:test";
import { visible } from "./visible.ts";

test("control characters are written out; tab, newline and printable text are kept", () => {
  expect(visible("a\u001b]0;x\u0007b")).toBe("a\\x1b]0;x\\x07b");
  expect(visible("\u0000\u0008\u000b\u000d\u001f\u007f\u0085\u009f")).toBe("\\x00\\x08\\x0b\\x0d\\x1f\\x7f\\x85\\x9f");
  expect(visible("tab\there\nnew line, é, ⏎, 日本")).toBe("tab\there\nnew line, é, ⏎, 日本");
});
