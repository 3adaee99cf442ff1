import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { bodyOf, chat, postChat, startTestServer, type TestServer } from "../test/helpers.ts";
import { checkBinding, isLoopbackHost } from "./binding.ts";
import { spawnWeb } from "../test/process.ts";

describe("binding", () => {
  test("loopback names and addresses", () => {
    for (const host of ["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]", "LOCALHOST"]) expect(isLoopbackHost(host)).toBe(true);
    for (const host of ["0.0.0.0", "::", "192.168.1.2", "example.com", "127.0.0.1.example.com"]) expect(isLoopbackHost(host)).toBe(false);
  });

  test("a non-loopback address needs a token, and a token must not be empty", () => {
    expect(() => checkBinding("0.0.0.0", undefined)).toThrow(/Refusing to listen on 0\.0\.0\.0 without an access token.*--token/);
    expect(() => checkBinding("0.0.0.0", "t")).not.toThrow();
    expect(() => checkBinding("127.0.0.1", undefined)).not.toThrow();
    expect(() => checkBinding("127.0.0.1", "")).toThrow(/token is empty/);
    // Hono's bearer check takes only what an Authorization header can carry.
    expect(() => checkBinding("127.0.0.1", "pass word")).toThrow(/may hold only letters, digits/);
    expect(() => checkBinding("127.0.0.1", "aB3-._~+/==")).not.toThrow();
  });

  test("the real process refuses 0.0.0.0 without a token: exit 2 and a message saying how", async () => {
    const web = spawnWeb(["--host", "0.0.0.0", "--port", "0"]);
    expect(await web.exited).toBe(2);
    expect(web.stderr()).toContain("Refusing to listen on 0.0.0.0 without an access token");
    expect(web.stderr()).toContain("PLUGBOARD_WEB_TOKEN");
    expect(web.stderr()).not.toContain("listening on");
  });
});

describe("with a token", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ token: "correct-horse" });
  });
  afterAll(() => t.close());

  test("the API answers 401 JSON without the token or with a wrong one", async () => {
    const attempts = [
      {},
      { authorization: "Bearer wrong" },
      { authorization: "correct-horse" },
      { authorization: "Bearer correct-horse2" },
      { authorization: "Basic correct-horse" },
      { authorization: "Bearer " },
    ];
    for (const headers of attempts as Record<string, string>[]) {
      const response = await postChat(t.server.url, chat("hi"), headers);
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toContain("Bearer");
      expect((await bodyOf(response)).error).toContain("Authorization: Bearer TOKEN");
    }
    expect((await fetch(`${t.server.url}/api/health`)).status).toBe(401);
    expect(t.model.requests).toHaveLength(0);
  });

  test("the right token gets an answer", async () => {
    t.model.enqueue({ content: "Hello." });
    const response = await postChat(t.server.url, chat("hi"), { authorization: "Bearer correct-horse" });
    expect(response.status).toBe(200);
    expect((await bodyOf(response)).reply).toBe("Hello.");
  });

  test("the page itself needs no token (it holds no data)", async () => {
    expect((await fetch(`${t.server.url}/`)).status).toBe(200);
  });
});
