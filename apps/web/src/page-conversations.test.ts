/// <reference lib="dom" />
/**
 * The kept conversations in a real headless Chromium (see test/chromium.ts), on a phone's
 * screen, against the server in-process and a scripted model: a reload or a conversation
 * opened from the list shows its latest answer; a deleted one comes back with Undo, from the
 * keyboard, until the next action.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Locator, Page } from "playwright-core";
import { type ChatPage, openChatPage } from "../test/chat-page.ts";
import type { TestServer } from "../test/helpers.ts";

const LONG_ANSWER = [...Array.from({ length: 40 }, (_, i) => `- point ${i + 1}`), "", "The end of the long answer."].join("\n");

let t: TestServer;
let page: Page;
let cspViolations: ChatPage["cspViolations"];
let close: ChatPage["close"] | undefined;

beforeAll(async () => {
  ({ t, page, cspViolations, close } = await openChatPage({ viewport: { width: 375, height: 640 } }));
}, 60_000);

afterAll(() => close?.());

const answers = () => page.locator("#log li.msg.assistant");
const titles = () => page.locator("#conversations button.open").allTextContents();
/** The focused element's accessible name (its label, else its text), or its id. */
const focused = () => page.evaluate(() => document.activeElement?.getAttribute("aria-label") || document.activeElement?.id || document.activeElement?.textContent);

async function ask(question: string): Promise<void> {
  await page.getByLabel("Your message").fill(question);
  await page.getByLabel("Your message").press("Enter");
  await answers().last().and(page.locator(":not([aria-busy])")).waitFor();
}

/** Whether a person sees `locator`: its middle is on the screen and not under the message box. */
function seen(locator: Locator): Promise<boolean> {
  return locator.evaluate((node) => {
    const box = node.getBoundingClientRect();
    const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
    return hit !== null && node.contains(hit);
  });
}

describe("kept conversations on a phone", () => {
  test("a reload, and a conversation opened from the list, show the latest answer", async () => {
    t.model.enqueue({ content: LONG_ANSWER });
    await ask("Give me the long list");
    const end = answers().last().locator("p", { hasText: "The end of the long answer." });
    expect(await seen(end)).toBe(true);

    // Opened from the list after a short conversation, which left the page at its top.
    await page.getByRole("button", { name: "Chats" }).click();
    await page.getByRole("button", { name: "New chat" }).click();
    t.model.enqueue({ content: "Short." });
    await ask("Something short");
    expect(await page.evaluate(() => window.scrollY)).toBe(0);
    await page.getByRole("button", { name: "Chats" }).click();
    await page.getByRole("button", { name: "Give me the long list", exact: true }).click();
    // Opened once the message box has the focus, the last thing opening does.
    await page.waitForFunction(() => document.activeElement?.id === "prompt");
    expect(await seen(end)).toBe(true);

    // Reloaded from its top: it opens at the latest answer all the same.
    await page.evaluate(() => window.scrollTo({ top: 0 }));
    await page.reload();
    await end.waitFor();
    await page.waitForFunction(() => document.activeElement?.id === "prompt");
    expect(await seen(end)).toBe(true);
    expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(0);
    expect(cspViolations).toEqual([]);
  }, 60_000);

  test("Delete offers Undo, from the keyboard, until the next action", async () => {
    await page.getByRole("button", { name: "Chats" }).click();
    expect(await titles()).toEqual(["Something short", "Give me the long list"]);

    // Another conversation than the open one: gone at once, Undo has the focus, Enter brings it back in its place.
    await page.getByRole("button", { name: "Delete “Something short”" }).focus();
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => document.activeElement?.id === "undo");
    expect(await titles()).toEqual(["Give me the long list"]);
    expect(await focused()).toBe("Undo deleting “Something short”");
    expect(await page.locator("#undo-text").textContent()).toBe("Deleted “Something short”.");
    expect(await page.locator("#announcer").textContent()).toBe("Deleted “Something short”. Undo brings it back.");
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => document.activeElement?.textContent === "Something short");
    expect(await titles()).toEqual(["Something short", "Give me the long list"]);
    expect(await page.locator("#announcer").textContent()).toBe("Restored “Something short”.");
    expect(await page.locator("#undo-bar").isVisible()).toBe(false);

    // The open conversation: a new one takes its place; Undo reopens it with its answers.
    await page.getByRole("button", { name: "Delete “Give me the long list”" }).focus();
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => document.activeElement?.id === "undo");
    expect(await page.locator("#log li").count()).toBe(0);
    expect(await titles()).toEqual(["Something short"]);
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => document.activeElement?.id === "prompt");
    expect(await answers().last().locator("p", { hasText: "The end of the long answer." }).count()).toBe(1);
    expect(await page.locator("#conversations button.open[aria-current]").textContent()).toBe("Give me the long list");
    await page.reload();
    await page.locator("#conversations li").nth(1).waitFor({ state: "attached" });
    expect(await titles()).toEqual(["Something short", "Give me the long list"]);

    // The next action (here New chat) ends the offer: the conversation stays deleted.
    await page.getByRole("button", { name: "Chats" }).click();
    await page.getByRole("button", { name: "Delete “Something short”" }).click();
    await page.locator("#undo-bar").waitFor();
    await page.getByRole("button", { name: "New chat" }).click();
    expect(await page.locator("#undo-bar").isVisible()).toBe(false);
    await page.reload();
    await page.locator("#conversations li").first().waitFor({ state: "attached" });
    expect(await titles()).toEqual(["Give me the long list"]);
    expect(cspViolations).toEqual([]);
  }, 60_000);
});
