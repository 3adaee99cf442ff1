/// <reference lib="dom" />
/**
 * Stop in a real headless Chromium (see test/chromium.ts) against the server in-process, a
 * scripted model and the fixture's policy (bash is asked about): a call that was running or
 * waiting when its turn was stopped (or failed) says `stopped`, and no approval card is left behind.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { waitFor } from "@plugboard/test-helpers";
import type { Page } from "playwright-core";
import { type ChatPage, openChatPage } from "../test/chat-page.ts";
import type { TestServer } from "../test/helpers.ts";

const CONFIG = join(import.meta.dir, "../test/fixtures/policy/plugboard.config.json");

let t: TestServer;
let page: Page;
let cspViolations: ChatPage["cspViolations"];
let close: ChatPage["close"] | undefined;

beforeAll(async () => {
  ({ t, page, cspViolations, close } = await openChatPage({ server: { configPath: CONFIG }, viewport: { width: 1000, height: 800 } }));
}, 60_000);

afterAll(() => close?.());

const answer = () => page.locator("#log li.msg.assistant").last();
const outcomes = () => answer().locator("details.tool .tool-outcome").allTextContents();

async function ask(question: string): Promise<void> {
  await page.getByLabel("Your message").fill(question);
  await page.getByLabel("Your message").press("Enter");
}

async function stopped(): Promise<void> {
  await page.locator("#log li.msg.assistant.stopped").last().waitFor();
  await waitFor("the stopped turn ended on the server", () => t.server.stats.inFlight === 0, { timeoutMs: 15_000 });
}

describe("Stop on the chat page", () => {
  test("a command approved and running when Stop is pressed says stopped, and its card goes; a reload keeps it so", async () => {
    t.model.enqueue({
      toolCalls: [
        { id: "call_slow", name: "bash", arguments: { command: "sleep 30" } },
        { id: "call_next", name: "bash", arguments: { command: "touch never-run.txt" } },
      ],
    });
    await ask("Wait a while, then touch a file");
    const approval = page.waitForResponse("**/api/approvals/**");
    await answer().getByRole("button", { name: "Approve bash" }).click();
    expect((await approval).status()).toBe(200);
    expect(await outcomes()).toEqual(["approved, running…"]);
    await page.getByRole("button", { name: "Stop" }).click();
    await stopped();

    expect(await outcomes()).toEqual(["stopped"]);
    expect(await answer().locator(".approval").count()).toBe(0);
    expect(existsSync(join(t.workspace, "never-run.txt"))).toBe(false);
    // Kept as it was shown: a reload draws the call stopped, not running.
    await page.reload();
    await answer().locator("details.tool").first().waitFor();
    expect(await outcomes()).toEqual(["stopped"]);
    expect(await answer().locator("details.tool.stopped").count()).toBe(1);
    expect(cspViolations).toEqual([]);
  }, 60_000);

  test("a card waiting for approval when Escape stops the turn goes, and its call says stopped and never runs", async () => {
    t.model.enqueue({ toolCalls: [{ id: "call_waiting", name: "bash", arguments: { command: "touch never-approved.txt" } }] });
    await ask("Touch a file");
    await page.waitForFunction(() => document.activeElement?.getAttribute("aria-label") === "Approve bash");
    expect(await outcomes()).toEqual(["waiting for approval"]);
    await page.keyboard.press("Escape");
    await stopped();

    expect(await outcomes()).toEqual(["stopped"]);
    expect(await answer().locator(".approval").count()).toBe(0);
    expect(await answer().getByRole("button", { name: "Approve bash" }).count()).toBe(0);
    expect(await page.locator("#announcer").textContent()).toBe("Stopped.");
    // The focus is back in the message box, not lost with the card.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("prompt");
    expect(existsSync(join(t.workspace, "never-approved.txt"))).toBe(false);
    expect(cspViolations).toEqual([]);
  }, 60_000);

  test("a turn whose answer breaks off while a card waits (the connection is cut) leaves its call stopped and no card", async () => {
    // The page reaches the server through a proxy on loopback, whose stop cuts the connection mid-answer.
    const proxy = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      idleTimeout: 0,
      fetch: (request) => {
        const { pathname, search } = new URL(request.url);
        return fetch(`${t.server.url}${pathname}${search}`, { method: request.method, headers: request.headers, body: request.body });
      },
    });
    try {
      await page.goto(`http://127.0.0.1:${proxy.port}/`);
      await page.waitForFunction(() => document.activeElement?.id === "prompt");
      t.model.enqueue({ toolCalls: [{ id: "call_cut", name: "bash", arguments: { command: "touch never-answered.txt" } }] });
      await ask("Touch another file");
      await answer().getByRole("button", { name: "Approve bash" }).waitFor();
      await proxy.stop(true);
      await answer().getByRole("alert").waitFor();
    } finally {
      await proxy.stop(true);
    }
    expect(await outcomes()).toEqual(["stopped"]);
    expect(await answer().locator(".approval").count()).toBe(0);
    await waitFor("the broken-off turn ended on the server", () => t.server.stats.inFlight === 0, { timeoutMs: 15_000 });
    expect(existsSync(join(t.workspace, "never-answered.txt"))).toBe(false);
  }, 60_000);
});
