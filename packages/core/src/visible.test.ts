import { expect, test } from "bun:test";
import { visible } from "./visible.ts";

test("control characters are written out; tab, newline and printable text are kept", () => {
  expect(visible("a\u001b]0;x\u0007b")).toBe("a\\x1b]0;x\\x07b");
  expect(visible("\u0000\u0008\u000b\u000d\u001f\u007f\u0085\u009f")).toBe("\\x00\\x08\\x0b\\x0d\\x1f\\x7f\\x85\\x9f");
  expect(visible("tab\there\nnew line, é, ⏎, 日本")).toBe("tab\there\nnew line, é, ⏎, 日本");
});

test("a clipboard write, a window title and a clear screen are shown, not obeyed", () => {
  const hostile = "ok\u001b]52;c;cm0gLXJmIH4K\u0007\u001b]0;owned\u0007\u001b[2J";
  expect(visible(hostile)).toBe("ok\\x1b]52;c;cm0gLXJmIH4K\\x07\\x1b]0;owned\\x07\\x1b[2J");
  expect(visible(hostile)).not.toContain("\u001b");
});
