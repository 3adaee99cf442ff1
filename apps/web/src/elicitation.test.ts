/// <reference lib="dom" />
/**
 * A mounted MCP server (on the current SDK, newest revision) asks the person for input
 * mid-call: in a real headless Chromium the page shows a card with the form, an answer that
 * does not fit is refused with the problem and corrected, and the answer reaches the server;
 * a turn without a page (a JSON request) has no one to ask, so the request is declined.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { waitFor } from "@plugboard/test-helpers";
import type { ScriptedModel } from "@plugboard/testing";
import type { Page } from "playwright-core";
import { type ChatPage, openChatPage } from "../test/chat-page.ts";
import { makeWorkspace, postChat } from "../test/helpers.ts";
import { PendingElicitations } from "./elicitations.ts";
import type { WebServer } from "./server.ts";

const MODERN = join(import.meta.dir, "../../../packages/mcp/test/modern-server.ts");

let folder: Awaited<ReturnType<typeof makeWorkspace>>;
let model: ScriptedModel;
let server: WebServer;
let page: Page;
let close: ChatPage["close"] | undefined;
const elicitations = new PendingElicitations();

beforeAll(async () => {
  folder = await makeWorkspace();
  const configPath = join(folder.dir, "plugboard.config.json");
  // Trusted: these turns are about the server's questions, not the taint its results would bring (taint.test.ts).
  await writeFile(configPath, JSON.stringify({ sandbox: "off", plugins: [{ mcp: { command: process.execPath, args: [MODERN] }, name: "modern", trust: "trusted" }] }));
  let t: ChatPage["t"];
  ({ t, page, close } = await openChatPage({ server: { configPath, elicitations }, viewport: { width: 1000, height: 900 } }));
  ({ model, server } = t);
}, 60_000);

afterAll(async () => {
  await close?.();
  await folder?.remove();
});

const toolResult = (request: number) => model.requests[request]?.body.messages?.find((message) => message.role === "tool")?.content;

describe("a mounted server's request for input on the web page", () => {
  test("a card with the form; a bad answer is refused and corrected; the answer reaches the server", async () => {
    model.enqueue({ toolCalls: [{ id: "call_ask", name: "ask", arguments: {} }] }, { content: "Thanks, Ada." });
    await page.getByLabel("Your message").fill("Ask me something");
    await page.getByLabel("Your message").press("Enter");
    const card = page.locator("form.elicitation");
    await card.waitFor();
    expect(await card.locator(".approval-question").textContent()).toBe("MCP server modern asks: Tell us about yourself");
    // The first field has the focus.
    expect(await page.evaluate(() => document.activeElement?.id)).toMatch(/-name$/);
    await page.keyboard.type("Ada");
    await card.getByLabel("Age").fill("-3");
    await card.getByLabel("Favourite colour (required)").selectOption("green");
    await card.getByLabel("Subscribe").check();
    await card.getByRole("button", { name: "Send the answer to modern" }).click();
    const problems = card.locator(".elicitation-problems");
    await problems.waitFor();
    expect(await problems.textContent()).toBe("The answer does not fit the form: age: must be >= 0");
    await card.getByLabel("Age").fill("36");
    await card.getByRole("button", { name: "Send the answer to modern" }).click();
    await card.locator(".elicitation-sent", { hasText: "Answer sent." }).waitFor();
    await page.locator("#log li.msg.assistant:not([aria-busy])").last().waitFor();
    expect(toolResult(model.requests.length - 1)).toBe('accept {"name":"Ada","age":36,"color":"green","subscribe":true}');
    expect(server.stats.turns).toBe(1);
  }, 30_000);

  test("the person declines on the card", async () => {
    model.enqueue({ toolCalls: [{ id: "call_ask2", name: "ask", arguments: {} }] }, { content: "Fine." });
    await page.getByLabel("Your message").fill("Ask me again");
    await page.getByLabel("Your message").press("Enter");
    const card = page.locator("form.elicitation").last();
    await card.getByRole("button", { name: "Decline modern's request" }).click();
    await card.locator(".elicitation-sent", { hasText: "Declined." }).waitFor();
    await page.locator("#log li.msg.assistant:not([aria-busy])").nth(1).waitFor();
    expect(toolResult(model.requests.length - 1)).toBe("decline");
  }, 30_000);

  test("Stop while the card waits: the card says nothing was sent, with no field or button left", async () => {
    model.enqueue({ toolCalls: [{ id: "call_ask_stop", name: "ask", arguments: {} }] });
    await page.getByLabel("Your message").fill("Ask me, then stop");
    await page.getByLabel("Your message").press("Enter");
    const card = page.locator("form.elicitation").last();
    await card.getByRole("button", { name: "Decline modern's request" }).waitFor();
    await page.keyboard.press("Escape");
    await page.locator("#log li.msg.assistant.stopped").last().waitFor();
    expect(await card.textContent()).toBe("Stopped before an answer: nothing was sent to modern.");
    expect(await card.locator("button, input, select").count()).toBe(0);
  }, 30_000);

  test("a turn without a page to show it (a JSON request) declines the request", async () => {
    // The stopped turn ends on the server once it sees its stream closed: until then its page is still shown the requests.
    await waitFor("the stopped turn's page is no longer shown requests", () => elicitations.showing === 0, { timeoutMs: 10_000 });
    expect(elicitations.showing).toBe(0);
    model.enqueue({ toolCalls: [{ id: "call_ask3", name: "ask", arguments: {} }] }, { content: "Nobody answered." });
    const response = await postChat(server.url, { messages: [{ role: "user", content: "Ask me" }] });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { reply: string }).reply).toBe("Nobody answered.");
    expect(toolResult(model.requests.length - 1)).toBe("decline");
  }, 30_000);
});
