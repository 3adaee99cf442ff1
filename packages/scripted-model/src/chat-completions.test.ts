import { describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { startScriptedModel } from "./scripted-model.ts";

const params = { model: "m", messages: [{ role: "user" as const, content: "Hi" }] };

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected the request to fail");
    },
    (error: unknown) => error,
  );
}

describe("faults", () => {
  test("a 401 surfaces as the SDK's AuthenticationError with an OpenAI-style body", async () => {
    await using model = await startScriptedModel([{ status: 401 }]);
    const client = new OpenAI({ baseURL: model.baseURL, apiKey: "test", maxRetries: 0 });
    const error = await failure(client.chat.completions.create(params));
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error).toMatchObject({ status: 401, code: "invalid_api_key", type: "invalid_request_error" });
    expect(model.requests).toHaveLength(1);
  });

  test("a 500 with a custom body carries its message", async () => {
    await using model = await startScriptedModel([{ status: 500, body: { error: { message: "boom", type: "server_error" } } }]);
    const client = new OpenAI({ baseURL: model.baseURL, apiKey: "test", maxRetries: 0 });
    const error = await failure(client.chat.completions.create(params));
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect(error).toMatchObject({ status: 500, message: "500 boom" });
  });

  test("a 429 sends its headers; the SDK retries after retry-after and takes the next reply", async () => {
    await using model = await startScriptedModel([{ status: 429, headers: { "retry-after": "0" } }]);
    const strict = new OpenAI({ baseURL: model.baseURL, apiKey: "test", maxRetries: 0 });
    const error = await failure(strict.chat.completions.create(params));
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect((error as InstanceType<typeof OpenAI.RateLimitError>).headers.get("retry-after")).toBe("0");

    model.enqueue({ status: 429, headers: { "retry-after": "0" } }, { content: "after the retry" });
    const patient = new OpenAI({ baseURL: model.baseURL, apiKey: "test", maxRetries: 1 });
    const completion = await patient.chat.completions.create(params);
    expect(completion.choices[0]?.message.content).toBe("after the retry");
    expect(model.requests).toHaveLength(3);
  });

  test("a fault answers a streamed request before any event, as an APIError", async () => {
    await using model = await startScriptedModel([{ status: 503 }]);
    const client = new OpenAI({ baseURL: model.baseURL, apiKey: "test", maxRetries: 0 });
    const error = await failure(client.chat.completions.create({ ...params, stream: true }));
    expect(error).toMatchObject({ status: 503 });
    expect(model.requests[0]?.body.stream).toBe(true);
  });

  test("an exhausted script answers a clear 500 that the SDK does not retry", async () => {
    await using model = await startScriptedModel([{ content: "only one" }]);
    const client = new OpenAI({ baseURL: model.baseURL, apiKey: "test", maxRetries: 2 });
    await client.chat.completions.create(params);
    const error = await failure(client.chat.completions.create(params));
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect(String((error as Error).message)).toContain("the script is exhausted");
    expect(error).toMatchObject({ code: "script_exhausted" });
    expect(model.requests).toHaveLength(2);
  });

  test("a reply function that throws answers a 500 naming the failure", async () => {
    await using model = await startScriptedModel([
      () => {
        throw new Error("fixture missing");
      },
    ]);
    const client = new OpenAI({ baseURL: model.baseURL, apiKey: "test", maxRetries: 0 });
    const error = await failure(client.chat.completions.create(params));
    expect((error as Error).message).toContain("the reply function failed (fixture missing)");
  });
});

describe("raw replies", () => {
  test("a raw object is sent as the JSON body, unchecked", async () => {
    await using model = await startScriptedModel([{ raw: { choices: [] } }]);
    const client = new OpenAI({ baseURL: model.baseURL, apiKey: "test", maxRetries: 0 });
    const completion = await client.chat.completions.create(params);
    expect(completion).toEqual({ choices: [] } as never);
  });

  test("a raw array answers a streamed request with one event per element", async () => {
    await using model = await startScriptedModel([{ raw: [{ id: "x", choices: [] }, { id: "y", choices: [] }] }]);
    const client = new OpenAI({ baseURL: model.baseURL, apiKey: "test", maxRetries: 0 });
    const stream = await client.chat.completions.create({ ...params, stream: true });
    const ids: string[] = [];
    for await (const chunk of stream) ids.push(chunk.id);
    expect(ids).toEqual(["x", "y"]);
  });

  test("a raw string is sent verbatim, so the client sees broken JSON", async () => {
    await using model = await startScriptedModel([{ raw: "{ not json", status: 200 }]);
    const response = await fetch(`${model.baseURL}/chat/completions`, { method: "POST", body: JSON.stringify(params) });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("{ not json");
  });
});

describe("hang", () => {
  test("holds the request until the client aborts", async () => {
    await using model = await startScriptedModel([{ hang: true }]);
    const client = new OpenAI({ baseURL: model.baseURL, apiKey: "test", maxRetries: 0 });
    const controller = new AbortController();
    const pending = client.chat.completions.create(params, { signal: controller.signal });
    await model.waitForRequests(1);
    controller.abort();
    expect(await failure(pending)).toBeInstanceOf(OpenAI.APIUserAbortError);
  });

  test("close releases a held request by closing its connection", async () => {
    const model = await startScriptedModel([{ hang: true }]);
    const pending = fetch(`${model.baseURL}/chat/completions`, { method: "POST", body: JSON.stringify(params) }).then(
      (response) => response.status,
      () => "closed",
    );
    await model.waitForRequests(1);
    await model.close();
    expect(await pending).toBe("closed");
  });
});
