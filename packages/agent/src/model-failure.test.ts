import { describe, expect, test } from "bun:test";
import { type FaultReply, startScriptedModel } from "@plugboard/scripted-model";
import OpenAI from "openai";
import { ModelResponseError } from "./model-response-error.ts";
import { describeModelFailure } from "./model-failure.ts";

const endpoint = { baseURL: "http://127.0.0.1:9/v1", model: "some-model" };

/** The real SDK error for a fault the endpoint keeps answering (retries included). */
async function failureFor(reply: FaultReply): Promise<unknown> {
  await using model = await startScriptedModel([reply, reply, reply]);
  const client = new OpenAI({ baseURL: model.baseURL, apiKey: "k", maxRetries: 2, logLevel: "off" });
  return await client.chat.completions.create({ model: "some-model", messages: [{ role: "user", content: "hi" }] }).then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe("describeModelFailure", () => {
  test.each([
    [401, "answered 401 (Incorrect API key", "MODEL_API_KEY"],
    [403, "answered 403", "may use model some-model"],
    [404, "answered 404", "check the model name (some-model; MODEL or --model)"],
    [429, "answered 429", "after 2 retries"],
    [503, "answered 503", "after 2 retries"],
    [400, "answered 400", "supports tool calls"],
  ])("HTTP %d is one line naming the endpoint and what to check", async (status, head, hint) => {
    const body = { error: { message: status === 401 ? "Incorrect API key provided." : "nope", type: "x" } };
    const error = await failureFor({ status, body, headers: { "retry-after-ms": "1" } });
    const failure = describeModelFailure(error, endpoint, true);
    expect(failure?.status).toBe(status);
    const line = failure?.message ?? "";
    expect(line).toContain(`Model endpoint ${endpoint.baseURL} ${head}`);
    expect(line).toContain(hint);
    expect(line).not.toContain("\n");
  });

  test("an endpoint that says not to retry (x-should-retry: false) is asked once, and the line says no retries", async () => {
    await using model = await startScriptedModel([{ status: 503, headers: { "x-should-retry": "false" } }, { content: "never sent" }]);
    const client = new OpenAI({ baseURL: model.baseURL, apiKey: "k", maxRetries: 2, logLevel: "off" });
    const error = await client.chat.completions.create({ model: "some-model", messages: [{ role: "user", content: "hi" }] }).catch((e: unknown) => e);
    expect(model.requests).toHaveLength(1);
    const line = describeModelFailure(error, endpoint, true)?.message ?? "";
    expect(line).toStartWith(`Model endpoint ${endpoint.baseURL} answered 503`);
    expect(line).toContain(": the server failed; try again later");
    expect(line).not.toContain("retries");
  });

  test("a SyntaxError is a malformed response only while a model request runs", () => {
    const error = new SyntaxError("Unexpected token");
    expect(describeModelFailure(error, endpoint, true)).toEqual({
      message: `Malformed model response: Unexpected token (from ${endpoint.baseURL}); check that BASE_URL or --base-url points at an OpenAI-compatible chat-completions endpoint`,
    });
    expect(describeModelFailure(error, endpoint, false)).toBeUndefined();
  });

  test("an error object sent with status 200 is the endpoint's error, not a malformed response", () => {
    const error = new ModelResponseError("the response has no choices", "Provider returned error");
    expect(describeModelFailure(error, endpoint, true)).toEqual({
      message: `Model endpoint ${endpoint.baseURL} answered an error instead of a completion: Provider returned error`,
    });
  });

  test("a 401 with no key set says none is set and how to set one", async () => {
    await using model = await startScriptedModel([], { apiKey: "right-key" });
    const client = new OpenAI({ baseURL: model.baseURL, apiKey: "no-api-key", maxRetries: 0, logLevel: "off" });
    const error = await client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "hi" }] }).catch((e: unknown) => e);
    const at = { baseURL: model.baseURL, model: "m" };
    expect(describeModelFailure(error, { ...at, apiKeySet: false })?.message).toBe(
      `Model endpoint ${model.baseURL} answered 401 (Incorrect API key provided.): the endpoint needs an API key and none is set; set MODEL_API_KEY (or OPENAI_API_KEY) in the environment or in the .env file beside the config`,
    );
    expect(describeModelFailure(error, { ...at, apiKeySet: true })?.message).toContain("the API key was refused; check MODEL_API_KEY");
  });

  test.each([
    ["without /v1", "", "/v1"],
    ["ending in /chat/completions", "/v1/chat/completions", "/v1"],
  ])("a BASE_URL %s gets the corrected URL on a 404", async (_name, path, meant) => {
    await using model = await startScriptedModel();
    const root = model.baseURL.replace(/\/v1$/, "");
    const baseURL = `${root}${path}`;
    const client = new OpenAI({ baseURL, apiKey: "k", maxRetries: 0, logLevel: "off" });
    const error = await client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "hi" }] }).catch((e: unknown) => e);
    expect(describeModelFailure(error, { baseURL, model: "m" })?.message).toBe(
      `Model endpoint ${baseURL} answered 404 (Invalid URL (POST ${path === "" ? "" : "/v1/chat/completions"}/chat/completions)): did you mean ${root}${meant}? (BASE_URL or --base-url; most endpoints end in /v1) Else check the model name (m; MODEL or --model)`,
    );
  });

  test("a 404 at a base URL with a version segment names the model, with no corrected URL", async () => {
    const error = await failureFor({ status: 404 });
    const line = describeModelFailure(error, { baseURL: "https://generativelanguage.googleapis.com/v1beta/openai", model: "m" })?.message ?? "";
    expect(line).toContain(": check the model name (m; MODEL or --model) and that BASE_URL ends in /v1");
    expect(line).not.toContain("did you mean");
  });

  test("other errors are not model failures", () => {
    expect(describeModelFailure(new TypeError("bug"), endpoint, true)).toBeUndefined();
  });
});
