import { describe, expect, test } from "bun:test";
import { invocationCwd } from "./invocation.ts";

describe("invocationCwd", () => {
  test("is the process folder outside the named root script", () => {
    expect(invocationCwd({ INIT_CWD: "/elsewhere", npm_lifecycle_event: "test" }, "/here", "plugboard")).toBe("/here");
    expect(invocationCwd({ INIT_CWD: "/elsewhere", npm_lifecycle_event: "plugboard" }, "/here", "web")).toBe("/here");
  });

  test.each([
    [{ npm_lifecycle_event: "plugboard", INIT_CWD: "/user/folder" }, "/user/folder"],
    [{ npm_lifecycle_event: "plugboard", npm_config_local_prefix: "/user/folder" }, "/user/folder"],
    [{ npm_lifecycle_event: "plugboard" }, "/repo"],
    [{ npm_lifecycle_event: "plugboard", INIT_CWD: "relative" }, "/repo"],
  ])("under the root script, %p gives %p", (env, expected) => {
    expect(invocationCwd(env, "/repo", "plugboard")).toBe(expected);
  });
});
