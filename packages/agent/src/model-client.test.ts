import { afterAll, describe, expect, test } from "bun:test";
import { DEMO_BASE_URL } from "./demo/demo-fetch.ts";
import OpenAI from "openai";
import { DEFAULT_BASE_URL } from "./model-settings.ts";
import { createModelClient } from "./model-client.ts";

const seen: { authorization: string | null }[] = [];
let failuresLeft = 0;
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(request) {
    seen.push({ authorization: request.headers.get("authorization") });
    if (failuresLeft > 0) {
      failuresLeft--;
      return Response.json({ error: { message: "boom" } }, { status: 500, headers: { "retry-after-ms": "1" } });
    }
    return Response.json({
      id: "x",
      object: "chat.completion",
      created: 0,
      model: "m",
      choices: [{ index: 0, message: { role: "assistant", content: "hello" }, finish_reason: "stop" }],
    });
  },
});
afterAll(() => server.stop(true));
const baseURL = `http://127.0.0.1:${server.port}/v1`;

async function complete(client: OpenAI) {
  const completion = await client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "hi" }] });
  return completion.choices[0]?.message.content;
}

describe("createModelClient without a key or base URL", () => {
  test("answers from the offline demo model, without any request leaving the process", async () => {
    seen.length = 0;
    const { client, demo, endpoint } = createModelClient({ name: "m", baseURL: undefined, apiKey: undefined });
    expect(demo).toBe(true);
    expect(endpoint).toEqual({ baseURL: DEMO_BASE_URL, model: "m" });
    expect(await complete(client)).toContain("offline demo model");
    expect(seen).toEqual([]);
  });
});

describe("createModelClient with an endpoint", () => {
  test("sends the API key to the configured base URL", async () => {
    seen.length = 0;
    const { client, demo, apiKeySet } = createModelClient({ name: "m", baseURL, apiKey: "sk-test" });
    expect(demo).toBe(false);
    expect(apiKeySet).toBe(true);
    expect(await complete(client)).toBe("hello");
    expect(seen).toEqual([{ authorization: "Bearer sk-test" }]);
  });

  test("works with a base URL and no key (local servers)", async () => {
    seen.length = 0;
    const { client, apiKeySet } = createModelClient({ name: "m", baseURL, apiKey: undefined });
    expect(apiKeySet).toBe(false);
    expect(await complete(client)).toBe("hello");
    expect(seen.length).toBe(1);
  });

  test("uses the OpenAI endpoint when only a key is set", () => {
    const { client, demo } = createModelClient({ name: "m", baseURL: undefined, apiKey: "sk-test" });
    expect(demo).toBe(false);
    expect(client.baseURL).toBe(DEFAULT_BASE_URL);
  });

  test("retries server errors twice, then succeeds", async () => {
    seen.length = 0;
    failuresLeft = 2;
    const { client } = createModelClient({ name: "m", baseURL, apiKey: "k" });
    expect(await complete(client)).toBe("hello");
    expect(seen.length).toBe(3);
  });

  test("gives up after two retries with the SDK's error", async () => {
    seen.length = 0;
    failuresLeft = 5;
    const { client } = createModelClient({ name: "m", baseURL, apiKey: "k" });
    await expect(complete(client)).rejects.toBeInstanceOf(OpenAI.InternalServerError);
    expect(seen.length).toBe(3);
    failuresLeft = 0;
  });
});
