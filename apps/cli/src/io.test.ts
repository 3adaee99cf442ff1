import { describe, expect, test } from "bun:test";
import { invocationCwd } from "./io.ts";

describe("invocationCwd", () => {
  test("is the process folder outside the root plugboard script", () => {
    expect(invocationCwd({ INIT_CWD: "/elsewhere", npm_lifecycle_event: "test" }, "/here")).toBe("/here");
  });

  test.each([
    [{ npm_lifecycle_event: "plugboard", INIT_CWD: "/user/folder" }, "/user/folder"],
    [{ npm_lifecycle_event: "plugboard", npm_config_local_prefix: "/user/folder" }, "/user/folder"],
    [{ npm_lifecycle_event: "plugboard" }, "/repo"],
    [{ npm_lifecycle_event: "plugboard", INIT_CWD: "relative" }, "/repo"],
  ])("under the root script, %p gives %p", (env, expected) => {
    expect(invocationCwd(env, "/repo")).toBe(expected);
  });
});
