import { describe, expect, test } from "bun:test";
import { isBearerToken, isLoopbackHostHeader } from "./http-guard.ts";

describe("http-guard", () => {
  test("a Host header is loopback only when its host name is", () => {
    for (const header of ["localhost:80", "LOCALHOST", "127.0.0.1:8808", "[::1]:8080", "[::1]"]) expect(isLoopbackHostHeader(header)).toBe(true);
    for (const header of [undefined, "", "evil.example:80", "127.0.0.1.evil.example", "[::1", "0.0.0.0:80"]) expect(isLoopbackHostHeader(header)).toBe(false);
  });

  test("a bearer token holds only b64token characters", () => {
    expect(isBearerToken("aB3-._~+/==")).toBe(true);
    for (const token of ["", "pass word", "a=b", "tok\n"]) expect(isBearerToken(token)).toBe(false);
  });
});
