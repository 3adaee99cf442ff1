/// <reference lib="dom" />
/**
 * The chat page in a real headless Chromium (see test/chromium.ts for which one) against the
 * server in-process and a scripted model.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { launchChromium, type TestBrowser } from "../test/chromium.ts";
import { startTestServer, type TestServer } from "../test/helpers.ts";

/** The committed screenshot is rewritten only on request, so a test run leaves the tree clean. */
const COMMITTED_SCREENSHOT = join(import.meta.dir, "../test/screenshots/chat.png");

let t: TestServer;
let browser: TestBrowser;
let page: Page;
const cspViolations: string[] = [];

beforeAll(async () => {
  t = await startTestServer({ files: { "notes.txt": "alpha\nbeta\n" } });
  browser = await launchChromium({ width: 900, height: 820 });
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
  page.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe("the chat page", () => {
  test("a question gets a streamed answer with a collapsible tool call; the stop button aborts a long one", async () => {
    t.model.enqueue(
      { toolCalls: [{ id: "call_notes", name: "read_file", arguments: { path: "notes.txt" } }] },
      { content: "The notes list <b>alpha</b> and beta." },
    );
    await page.goto(t.server.url);
    await expect(page.title()).resolves.toBe("Plugboard chat");

    // Typing and Enter sends; Shift+Enter only adds a line.
    const prompt = page.getByLabel("Your message");
    await prompt.fill("What is in notes.txt?");
    await prompt.press("Shift+Enter");
    expect(await prompt.inputValue()).toBe("What is in notes.txt?\n");
    await prompt.press("Enter");

    const answer = page.locator("#log li.msg.assistant").first();
    await answer.locator("p.text").filter({ hasText: "and beta." }).waitFor({ timeout: 10_000 });
    // Model text is shown as text, never as markup.
    expect(await answer.locator("p.text").textContent()).toBe("The notes list <b>alpha</b> and beta.");
    expect(await answer.locator("b").count()).toBe(0);
    expect(await page.locator("#log li.msg.user").first().textContent()).toContain("What is in notes.txt?");

    // The tool call is collapsed until opened; then it shows its arguments and result.
    const tool = answer.locator("details.tool");
    expect(await tool.count()).toBe(1);
    expect(await tool.evaluate((node) => (node as HTMLDetailsElement).open)).toBe(false);
    expect(await tool.locator("summary").textContent()).toContain("read_file");
    expect(await tool.locator("summary .state").textContent()).toBe("done");
    await tool.locator("summary").click();
    expect(await tool.evaluate((node) => (node as HTMLDetailsElement).open)).toBe(true);
    expect(await tool.locator("pre.arguments").textContent()).toContain('"path": "notes.txt"');
    expect(await tool.locator("pre.result").textContent()).toContain("alpha");
    expect(await page.locator("#announcer").textContent()).toContain("The notes list");

    // The second request carries the history; the model hangs until the user stops it.
    t.model.enqueue({ hang: true });
    const before = t.model.requests.length;
    await prompt.fill("Now think about it for a long time.");
    await prompt.press("Enter");
    await t.model.waitForRequests(before + 1);
    const sent = t.model.requests[before]?.body.messages?.map((m) => [m.role, m.content]);
    expect(sent?.slice(1)).toEqual([
      ["user", "What is in notes.txt?"],
      ["assistant", "The notes list <b>alpha</b> and beta."],
      ["user", "Now think about it for a long time."],
    ]);
    const stop = page.getByRole("button", { name: "Stop" });
    expect(await stop.isEnabled()).toBe(true);
    expect(await page.getByRole("button", { name: "Send" }).isDisabled()).toBe(true);
    await stop.click();

    const stopped = page.locator("#log li.msg.assistant.stopped");
    await stopped.waitFor({ timeout: 10_000 });
    expect(await stopped.locator(".note").textContent()).toContain("Stopped.");
    expect(await stop.isDisabled()).toBe(true);
    while (t.server.stats.inFlight > 0) await Bun.sleep(10);
    expect(t.server.stats.aborted).toBe(1);
    // Focus returns to the message box, ready for the next question.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("prompt");

    expect(cspViolations).toEqual([]);
    const screenshot = process.env.UPDATE_SCREENSHOTS === "1" ? COMMITTED_SCREENSHOT : join(browser.profile, "chat.png");
    await page.screenshot({ path: screenshot, fullPage: true });
    expect(Bun.file(screenshot).size).toBeGreaterThan(10_000);
  }, 30_000);

  test("an error from the server is shown in the conversation", async () => {
    t.model.enqueue({ status: 401, body: { error: { message: "Incorrect API key provided" } } });
    const prompt = page.getByLabel("Your message");
    await prompt.fill("Hello?");
    await prompt.press("Enter");
    const alert = page.getByRole("alert");
    await alert.waitFor({ timeout: 10_000 });
    expect(await alert.textContent()).toContain("answered 401 (Incorrect API key provided)");
  }, 15_000);

  test("on a narrow screen the page fits without sideways scrolling", async () => {
    await page.setViewportSize({ width: 360, height: 740 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBe(0);
    const box = await page.getByLabel("Your message").boundingBox();
    expect(box?.width ?? 0).toBeGreaterThan(300);
  }, 15_000);
});
