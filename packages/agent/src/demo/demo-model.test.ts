import { describe, expect, test } from "bun:test";
import OpenAI from "openai";
import type {
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from "openai/resources/chat/completions";
import { DEMO_BASE_URL, demoFetch } from "./demo-fetch.ts";

function tool(name: string): ChatCompletionFunctionTool {
  return { type: "function", function: { name, description: name, parameters: { type: "object", properties: {} } } };
}
const ALL_TOOLS = ["bash", "read_file", "write_file", "edit_file", "glob"].map(tool);

const client = new OpenAI({ apiKey: "demo", baseURL: DEMO_BASE_URL, fetch: demoFetch, maxRetries: 0 });

async function ask(messages: ChatCompletionMessageParam[], tools: ChatCompletionTool[] = ALL_TOOLS) {
  const completion = await client.chat.completions.create({ model: "demo", messages, tools });
  const message = completion.choices[0]?.message;
  if (!message) throw new Error("no message");
  return message;
}

function calls(message: OpenAI.Chat.Completions.ChatCompletionMessage) {
  return (message.tool_calls ?? []).map((call) =>
    call.type === "function" ? { name: call.function.name, args: JSON.parse(call.function.arguments) } : undefined,
  );
}

describe("the demo model through the openai SDK", () => {
  test.each([
    ["read README.md", "read_file", { path: "README.md" }],
    ["please read the first 5 lines of src/index.ts.", "read_file", { path: "src/index.ts", limit: 5 }],
    ["list **/*.ts", "glob", { pattern: "**/*.ts" }],
    ["list files", "glob", { pattern: "*" }],
    ["run ls -la", "bash", { command: "ls -la" }],
    ["run echo hi!", "bash", { command: "echo hi!" }],
    ['replace "old text" with new in notes.txt', "edit_file", { path: "notes.txt", old_text: "old text", new_text: "new" }],
    ["write hello\\nworld to notes.txt", "write_file", { path: "notes.txt", content: "hello\nworld" }],
  ])("%p becomes a %s call", async (prompt, name, args) => {
    const message = await ask([{ role: "user", content: prompt }]);
    expect(calls(message)).toEqual([{ name, args }]);
  });

  test("streams the same tool call as server-sent events", async () => {
    const stream = await client.chat.completions.create({
      model: "demo",
      messages: [{ role: "user", content: "read README.md" }],
      tools: ALL_TOOLS,
      stream: true,
    });
    let name = "";
    let args = "";
    let finish: string | null = null;
    for await (const chunk of stream) {
      const choice = chunk.choices[0];
      for (const part of choice?.delta.tool_calls ?? []) {
        name += part.function?.name ?? "";
        args += part.function?.arguments ?? "";
      }
      finish = choice?.finish_reason ?? finish;
    }
    expect({ name, args: JSON.parse(args), finish }).toEqual({ name: "read_file", args: { path: "README.md" }, finish: "tool_calls" });
  });

  test("streams text answers piece by piece", async () => {
    const stream = await client.chat.completions.create({
      model: "demo",
      messages: [{ role: "user", content: "hello there" }],
      stream: true,
    });
    const pieces: string[] = [];
    for await (const chunk of stream) if (chunk.choices[0]?.delta.content) pieces.push(chunk.choices[0].delta.content);
    expect(pieces.length).toBeGreaterThan(3);
    expect(pieces.join("")).toContain("offline demo model");
  });

  test("only calls tools the request offers", async () => {
    const message = await ask([{ role: "user", content: "run ls" }], [tool("read_file")]);
    expect(message.tool_calls ?? []).toEqual([]);
    expect(message.content).toContain("needs the bash tool");
    expect(message.content).toContain("read README.md");
    expect(message.content).not.toContain("run ls -la");
  });

  test("answers anything else with the requests it understands", async () => {
    const message = await ask([{ role: "user", content: "What is the meaning of life?" }]);
    expect(message.tool_calls ?? []).toEqual([]);
    for (const example of ["read README.md", "list **/*.ts", "run ls -la", "replace OLD with NEW in FILE", "write TEXT to FILE"]) {
      expect(message.content).toContain(example);
    }
  });

  test("summarises tool results with their first lines, and failures as failures", async () => {
    const lines = Array.from({ length: 15 }, (_, i) => `line ${i + 1}`).join("\n");
    const message = await ask([
      { role: "user", content: "read a.txt" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "c1", type: "function", function: { name: "read_file", arguments: '{"path":"a.txt"}' } },
          { id: "c2", type: "function", function: { name: "bash", arguments: '{"command":"false"}' } },
        ],
      },
      { role: "tool", tool_call_id: "c1", content: lines },
      { role: "tool", tool_call_id: "c2", content: "Error: it broke" },
    ]);
    expect(message.tool_calls ?? []).toEqual([]);
    expect(message.content).toBe(
      `Read a.txt:\n${lines.split("\n").slice(0, 10).join("\n")}\n… (5 more lines of output)\n\nRan \`false\` failed: Error: it broke`,
    );
  });

  test("handles a new request after an answered one", async () => {
    const message = await ask([
      { role: "system", content: "be brief" },
      { role: "user", content: "hello" },
      { role: "assistant", content: "hi" },
      { role: "user", content: "list *.md" },
    ]);
    expect(calls(message)).toEqual([{ name: "glob", args: { pattern: "*.md" } }]);
  });

  test("an aborted request rejects with the SDK's abort error", async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await client.chat.completions
      .create({ model: "demo", messages: [{ role: "user", content: "hi" }] }, { signal: controller.signal })
      .then(() => undefined, (reason: unknown) => reason);
    expect(error).toBeInstanceOf(OpenAI.APIUserAbortError);
  });
});
