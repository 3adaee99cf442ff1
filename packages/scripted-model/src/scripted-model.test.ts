import { describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { startScriptedModel } from "./scripted-model.ts";

const user = [{ role: "user" as const, content: "Hi" }];

/** The rejection of `promise` (the SDK's lazy promises need a real `then`). */
async function failure(promise: PromiseLike<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected the request to fail");
    },
    (error: unknown) => error,
  );
}

function clientFor(baseURL: string, apiKey = "test"): OpenAI {
  return new OpenAI({ baseURL, apiKey, maxRetries: 0 });
}

describe("startScriptedModel", () => {
  test("serves on 127.0.0.1 with a base URL ending in /v1", async () => {
    await using model = await startScriptedModel();
    expect(model.baseURL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
  });

  test("answers a text reply as a full chat.completion, echoing the model", async () => {
    await using model = await startScriptedModel([{ content: "Hello there" }]);
    const completion = await clientFor(model.baseURL).chat.completions.create({ model: "gpt-test", messages: user });
    expect(completion.object).toBe("chat.completion");
    expect(completion.model).toBe("gpt-test");
    expect(completion.id).toStartWith("chatcmpl-");
    expect(completion.choices).toHaveLength(1);
    expect(completion.choices[0]?.message).toMatchObject({ role: "assistant", content: "Hello there" });
    expect(completion.choices[0]?.message.tool_calls).toBeUndefined();
    expect(completion.choices[0]?.finish_reason).toBe("stop");
    expect(completion.usage?.total_tokens).toBeGreaterThan(0);
  });

  test("answers tool calls, numbering the ones without an id", async () => {
    await using model = await startScriptedModel([
      {
        toolCalls: [
          { name: "read_file", arguments: { path: "README.md", limit: 1 } },
          { id: "call_mine", name: "glob", arguments: '{"pattern":"*.ts"}' },
          { name: "bash", arguments: "{not json" },
        ],
      },
    ]);
    const completion = await clientFor(model.baseURL).chat.completions.create({ model: "m", messages: user });
    const choice = completion.choices[0];
    expect(choice?.finish_reason).toBe("tool_calls");
    expect(choice?.message.content).toBeNull();
    expect(choice?.message.tool_calls).toEqual([
      { id: "call_1", type: "function", function: { name: "read_file", arguments: '{"path":"README.md","limit":1}' } },
      { id: "call_mine", type: "function", function: { name: "glob", arguments: '{"pattern":"*.ts"}' } },
      { id: "call_2", type: "function", function: { name: "bash", arguments: "{not json" } },
    ]);
  });

  test("records every request in order with path, headers and parsed body", async () => {
    await using model = await startScriptedModel([{ content: "one" }, { status: 500 }, { content: "three" }]);
    const client = clientFor(model.baseURL, "sk-recorded");
    await client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "first" }] });
    const second = client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "second" }] });
    expect(await failure(second)).toBeInstanceOf(OpenAI.InternalServerError);
    const stream = await client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "third" }], stream: true });
    for await (const _chunk of stream) {
      // drain
    }
    expect(model.requests.map((request) => request.body.messages?.[0]?.content)).toEqual(["first", "second", "third"]);
    const [first] = model.requests;
    expect(first?.method).toBe("POST");
    expect(first?.path).toBe("/v1/chat/completions");
    expect(first?.headers.authorization).toBe("Bearer sk-recorded");
    expect(first?.headers["content-type"]).toContain("application/json");
    expect(JSON.parse(first?.text ?? "")).toEqual(first?.body ?? {});
    expect(model.requests[2]?.body.stream).toBe(true);
    expect(model.pending).toBe(0);
  });

  test("enqueue appends replies and refuses malformed ones", async () => {
    await using model = await startScriptedModel([{ content: "a" }]);
    model.enqueue({ content: "b" }, () => ({ content: "c" }));
    expect(model.pending).toBe(3);
    expect(() => model.enqueue({ toolCalls: [] })).toThrow(TypeError);
    expect(() => model.enqueue({ status: 99 })).toThrow("status must be an HTTP status code");
    expect(() => model.enqueue({} as never)).toThrow("Invalid scripted reply {}");
    expect(model.pending).toBe(3);
    const client = clientFor(model.baseURL);
    const texts: (string | null | undefined)[] = [];
    for (let i = 0; i < 3; i++) {
      const completion = await client.chat.completions.create({ model: "m", messages: user });
      texts.push(completion.choices[0]?.message.content);
    }
    expect(texts).toEqual(["a", "b", "c"]);
  });

  test("a reply function computes the answer from the request", async () => {
    await using model = await startScriptedModel([
      (request) => ({ content: `echo: ${String(request.body.messages?.at(-1)?.content)}` }),
    ]);
    const completion = await clientFor(model.baseURL).chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "ping" }],
    });
    expect(completion.choices[0]?.message.content).toBe("echo: ping");
  });

  test("GET /v1/models lists the configured models", async () => {
    await using model = await startScriptedModel([], { models: ["alpha", "beta"] });
    const client = clientFor(model.baseURL);
    const ids: string[] = [];
    for await (const entry of client.models.list()) ids.push(entry.id);
    expect(ids).toEqual(["alpha", "beta"]);
    expect((await client.models.retrieve("beta")).id).toBe("beta");
    expect(await failure(client.models.retrieve("gamma"))).toBeInstanceOf(OpenAI.NotFoundError);
    expect(model.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      "GET /v1/models",
      "GET /v1/models/beta",
      "GET /v1/models/gamma",
    ]);
  });

  test("unknown paths answer a JSON 404 and are recorded", async () => {
    await using model = await startScriptedModel();
    const response = await fetch(`${model.baseURL}/embeddings`, { method: "POST", body: "{}" });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: { message: "Invalid URL (POST /v1/embeddings)", type: "invalid_request_error", param: null, code: null },
    });
    expect(model.requests[0]?.path).toBe("/v1/embeddings");
  });

  test("a body that is not a JSON object gets a 400 and uses no reply", async () => {
    await using model = await startScriptedModel([{ content: "kept" }]);
    const response = await fetch(`${model.baseURL}/chat/completions`, { method: "POST", body: "nope" });
    expect(response.status).toBe(400);
    expect(model.requests[0]?.text).toBe("nope");
    expect(model.requests[0]?.body).toEqual({});
    expect(model.pending).toBe(1);
  });

  test("with apiKey, a wrong key gets a 401 and uses no reply", async () => {
    await using model = await startScriptedModel([{ content: "secret" }], { apiKey: "sk-right" });
    const wrong = clientFor(model.baseURL, "sk-wrong").chat.completions.create({ model: "m", messages: user });
    expect(await failure(wrong)).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(model.pending).toBe(1);
    const right = await clientFor(model.baseURL, "sk-right").chat.completions.create({ model: "m", messages: user });
    expect(right.choices[0]?.message.content).toBe("secret");
  });

  test("waitForRequests resolves once enough requests arrived", async () => {
    await using model = await startScriptedModel([{ content: "x" }]);
    const waiting = model.waitForRequests(1);
    await clientFor(model.baseURL).chat.completions.create({ model: "m", messages: user });
    expect((await waiting).length).toBe(1);
  });

  test("waitForRequests gives up after its deadline, saying how many arrived", async () => {
    await using model = await startScriptedModel();
    await expect(model.waitForRequests(2, 50)).rejects.toThrow("The scripted model received 0 of 2 requests within 50 ms");
  });

  test("close stops the server and is safe to repeat; await using closes it too", async () => {
    const model = await startScriptedModel();
    const url = `${model.baseURL}/models`;
    expect((await fetch(url)).status).toBe(200);
    const waiting = model.waitForRequests(5);
    await model.close();
    await model.close();
    await expect(waiting).rejects.toThrow("closed before 5 requests arrived");
    await expect(fetch(url)).rejects.toThrow();

    let scopedUrl = "";
    {
      await using scoped = await startScriptedModel();
      scopedUrl = `${scoped.baseURL}/models`;
    }
    await expect(fetch(scopedUrl)).rejects.toThrow();
  });
});
