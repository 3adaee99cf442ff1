/// <reference lib="dom" />
/**
 * A server started with a token, in a real headless Chromium (see test/chromium.ts): the page
 * learns at load that a token is needed and asks for it before the first message; a wrong one
 * is said to be wrong, and nothing is sent until the server takes one.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { type ChatPage, openChatPage } from "../test/chat-page.ts";
import type { TestServer } from "../test/helpers.ts";

const TOKEN = "correct-horse";

let t: TestServer;
let page: Page;
let cspViolations: ChatPage["cspViolations"];
let close: ChatPage["close"] | undefined;

beforeAll(async () => {
  // Not loaded: the first test loads it, to see what the page asks at load.
  ({ t, page, cspViolations, close } = await openChatPage({ server: { token: TOKEN }, viewport: { width: 1000, height: 800 }, load: false }));
}, 60_000);

afterAll(() => close?.());

const prompt = () => page.getByLabel("Your message");
const tokenField = () => page.getByLabel("Access token (this server requires one)");
const status = () => page.locator("#token-status");
const focusedId = () => page.evaluate(() => document.activeElement?.id);

describe("a server that requires a token", () => {
  test("the page asks for the token at load, and a message typed first waits for it", async () => {
    await page.goto(t.server.url);
    await page.waitForFunction(() => document.activeElement?.id === "token");
    expect(await tokenField().isVisible()).toBe(true);
    expect(await status().textContent()).toBe("This server requires an access token: enter it before your first message.");
    // The field says why to a screen reader too.
    expect(await tokenField().getAttribute("aria-describedby")).toBe("token-status");

    await prompt().fill("Hello?");
    await prompt().press("Enter");
    await page.waitForFunction(() => document.activeElement?.id === "token");
    expect(await page.locator("#announcer").textContent()).toBe("Enter the access token first: this server refuses messages without it.");
    // Nothing was sent, nothing failed: the question is still in the box.
    expect(await page.locator("#log li").count()).toBe(0);
    expect(await prompt().inputValue()).toBe("Hello?");
    expect(t.model.requests).toHaveLength(0);
    expect(cspViolations).toEqual([]);
  }, 30_000);

  test("a wrong token is said to be wrong; the right one is taken and the waiting message goes", async () => {
    await tokenField().fill("wrong-horse");
    await tokenField().press("Enter");
    await status().filter({ hasText: "refused" }).waitFor();
    expect(await status().textContent()).toBe("The server refused this token: check it (the one the server was started with, --token or PLUGBOARD_WEB_TOKEN).");
    expect(await tokenField().getAttribute("aria-invalid")).toBe("true");
    expect(await focusedId()).toBe("token");
    await prompt().press("Enter");
    await page.waitForFunction(() => document.activeElement?.id === "token");
    expect(t.model.requests).toHaveLength(0);

    await tokenField().fill(TOKEN);
    await tokenField().press("Enter");
    await page.waitForFunction(() => document.activeElement?.id === "prompt");
    expect(await status().textContent()).toBe("Token accepted.");
    expect(await tokenField().getAttribute("aria-invalid")).toBe("false");
    // What the server would not say without the token: the model in use.
    expect(await page.locator("#model-info").textContent()).toBe("Model: scripted-model");
    t.model.enqueue({ content: "Hello." });
    await page.keyboard.press("Enter");
    await page.locator("#log li.msg.assistant:not([aria-busy])").waitFor();
    expect((await page.locator("#log li.msg.assistant .markdown").textContent())?.trim()).toBe("Hello.");
    expect(t.model.requests[0]?.body.messages?.at(-1)?.content).toBe("Hello?");
    expect(t.model.requests).toHaveLength(1);
    expect(cspViolations).toEqual([]);
  }, 30_000);

  test("a reload keeps the token for the tab: nothing is asked again", async () => {
    await page.reload();
    await page.waitForFunction(() => document.activeElement?.id === "prompt");
    await page.locator("#model-info").filter({ hasText: "Model: scripted-model" }).waitFor();
    expect(await status().textContent()).toBe("");
    expect(await tokenField().inputValue()).toBe(TOKEN);
  }, 30_000);
});
