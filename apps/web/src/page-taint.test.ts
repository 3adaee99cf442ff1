/// <reference lib="dom" />
/**
 * The conversation's taint in the chat page, in a real headless Chromium: bash, granted
 * network and allowed by the config, reads from outside and can send out. After its first
 * result, its next call waits on a card that says why and offers only yes or no; the
 * conversation keeps its taint through a reload, and New chat starts clean.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { type ChatPage, openChatPage } from "../test/chat-page.ts";
import type { TestServer } from "../test/helpers.ts";

const CONFIG = join(import.meta.dir, "../test/fixtures/taint/plugboard.config.json");
const WHY = "Asked because untrusted content from bash entered the conversation, and bash can send data out.";

let t: TestServer;
let page: Page;
let close: ChatPage["close"] | undefined;

beforeAll(async () => {
  ({ t, page, close } = await openChatPage({ server: { configPath: CONFIG }, viewport: { width: 1100, height: 900 } }));
}, 60_000);

afterAll(() => close?.());

const answers = () => page.locator("#log li.msg.assistant");

/** Asks `question` while the model calls bash with `echo TEXT`, then answers. */
async function askEcho(question: string, text: string): Promise<void> {
  t.model.enqueue({ toolCalls: [{ id: `call_${text}`, name: "bash", arguments: { command: `echo ${text}` } }] }, { content: `Ran echo ${text}.` });
  await page.getByLabel("Your message").fill(question);
  await page.getByLabel("Your message").press("Enter");
}

const answered = () => answers().last().and(page.locator(":not([aria-busy])")).waitFor({ timeout: 10_000 });
const lastResult = () => t.model.requests.at(-1)?.body.messages?.filter((m) => m.role === "tool").at(-1)?.content;

describe("the chat page and the conversation's taint", () => {
  test("after an untrusted result the next call out waits on a card saying why, Approve or Deny only; a reload keeps it; New chat ends it", async () => {
    await askEcho("Fetch the page", "page");
    await answered();
    expect(await page.locator(".approval").count()).toBe(0);

    await askEcho("Send it", "sent");
    const card = answers().last().locator(".approval");
    await card.waitFor();
    expect(await card.locator(".approval-why").textContent()).toBe(WHY);
    // Yes or no only: no remembered answer passes the taint, so no "always" is offered.
    expect(await card.getByRole("button").allTextContents()).toEqual(["Approve", "Deny"]);
    expect(await card.locator(".approval-always").count()).toBe(0);
    await page.getByRole("button", { name: "Approve bash" }).click();
    await answered();
    expect(lastResult()).toStartWith("sent\n");

    // The conversation, its taint with it, comes back from the browser's storage.
    await page.reload();
    await answers().first().waitFor();
    await askEcho("Send it again", "again");
    await answers().last().locator(".approval-why").waitFor();
    await page.getByRole("button", { name: "Deny bash" }).click();
    await answered();
    expect(lastResult()).toBe("Error: Denied by the user");

    await page.getByRole("button", { name: "New chat" }).click();
    await askEcho("Send it", "fresh");
    await answered();
    expect(await page.locator(".approval").count()).toBe(0);
    expect(lastResult()).toStartWith("fresh\n");
  }, 60_000);
});
