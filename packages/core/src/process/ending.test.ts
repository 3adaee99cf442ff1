import { expect, test } from "bun:test";
import { formatEnding, parseEnding } from "./ending.ts";

test("ending: a report line reads back as the ending it was written from", () => {
  for (const ending of [
    { exitCode: 0, signalCode: null },
    { exitCode: 143, signalCode: null },
    { exitCode: null, signalCode: "SIGTERM" },
  ]) {
    expect(parseEnding(formatEnding(ending))).toEqual(ending);
  }
  expect(formatEnding({ exitCode: null, signalCode: "SIGKILL" })).toBe("signal SIGKILL\n");
});

test("ending: no report, or anything else, is no ending", () => {
  for (const report of ["", "exit\n", "exit 3", "exit 3\nexit 4\n", "signal \n", "status 0\n"]) expect(parseEnding(report)).toBeNull();
});
