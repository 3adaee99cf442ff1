/// <reference lib="dom" />
/**
 * The grant card in a real headless Chromium (see test/chromium.ts): bash confined without
 * `network`, the scripted model calling curl against a loopback server. The refused call is
 * offered again with exactly the missing grant; "Once" runs it again with it, "Keep refused"
 * leaves the refusal, "Save to config" writes it into the config, its comments kept.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { type ChatPage, openChatPage } from "../test/chat-page.ts";
import { makeWorkspace, type TestServer } from "../test/helpers.ts";

const PLUGIN = "@plugboard/plugin-bash";
const BASH_FOLDER = join(import.meta.dir, "../../../plugins/bash");
// The taint is off: these turns are about grants (network given makes bash an untrusted source and a
// way out, whose next call would be asked for that: runtime/grant-offer.test.ts, cli refusal-grants.test.ts).
const CONFIG_TEXT = `// grants on the page
{
  "sandbox": "required",
  "policy": { "taint": "off" },
  "plugins": [
    { "path": ${JSON.stringify(BASH_FOLDER)}, "permissions": ["process.spawn", "fs.read", "fs.write"] } // no network
  ]
}
`;

let folder: Awaited<ReturnType<typeof makeWorkspace>>;
let config = "";
let target: ReturnType<typeof Bun.serve>;
let t: TestServer;
let page: Page;
let close: ChatPage["close"] | undefined;

beforeAll(async () => {
  folder = await makeWorkspace({ "plugboard.config.json": CONFIG_TEXT });
  config = join(folder.dir, "plugboard.config.json");
  target = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("server reached\n") });
  ({ t, page, close } = await openChatPage({ server: { configPath: config, grantsSaveTo: config }, viewport: { width: 1000, height: 800 }, timeoutMs: 15_000 }));
}, 60_000);

afterAll(async () => {
  await close?.();
  target?.stop(true);
  await folder?.remove();
});

const curl = (id: string) => ({ id, name: "bash", arguments: { command: `curl -sS http://127.0.0.1:${target.port}/` } });
const toolResult = (id: string) =>
  String(t.model.requests.at(-1)?.body.messages?.find((message) => message.role === "tool" && message.tool_call_id === id)?.content ?? "");
const refusal = () => `plugboard: refused by the sandbox: ${PLUGIN} has no network access; grant "network" to it in ${config} to allow it`;

async function ask(question: string): Promise<void> {
  await page.getByLabel("Your message").fill(question);
  await page.getByLabel("Your message").press("Enter");
}

async function answered(): Promise<void> {
  await page.locator("#log li.msg.assistant").last().and(page.locator(":not([aria-busy])")).waitFor();
}

describe("the grant card", () => {
  test("a refused call offers exactly the missing grant; Once runs it again with it; the next one is offered again and kept refused", async () => {
    t.model.enqueue({ toolCalls: [curl("call_once")] }, { content: "Fetched." });
    await ask("Fetch the page");
    const card = page.getByRole("group", { name: `Grant ${PLUGIN} what it lacked?` });
    await card.waitFor();
    expect(await card.locator(".approval-question").textContent()).toBe(`The sandbox refused bash. Run it again with this grant to ${PLUGIN}?`);
    expect(await card.locator(".grant-text").textContent()).toBe('"permissions": ["network"]');
    // The card takes the focus: Enter grants once.
    await page.waitForFunction(() => document.activeElement?.getAttribute("aria-label")?.startsWith("Grant once") === true);
    await page.keyboard.press("Enter");
    await answered();
    expect(await page.locator(".grant").last().textContent()).toBe("Granted for this call: it runs again.");
    expect(toolResult("call_once")).toContain("server reached");

    t.model.enqueue({ toolCalls: [curl("call_again")] }, { content: "Refused." });
    await ask("Fetch it again");
    await page.getByRole("button", { name: "Keep bash refused" }).click();
    await answered();
    expect(toolResult("call_again").trimEnd().split("\n").at(-1)).toBe(refusal());
    expect(await readFile(config, "utf8")).toBe(CONFIG_TEXT);
  }, 60_000);

  test("Stop while a grant card waits: the card says the call stays refused, with no button left to press", async () => {
    t.model.enqueue({ toolCalls: [curl("call_stopped")] });
    await ask("Fetch the page, then stop");
    const card = page.getByRole("group", { name: `Grant ${PLUGIN} what it lacked?` }).last();
    await card.getByRole("button", { name: "Keep bash refused" }).waitFor();
    await page.getByRole("button", { name: "Stop", exact: true }).click();
    await answered();
    expect(await card.textContent()).toBe("Stopped before an answer: bash stays refused.");
    expect(await card.locator("button").count()).toBe(0);
    expect(await page.locator("#log li.msg.assistant").last().locator(".note").textContent()).toContain("Stopped.");
  }, 60_000);

  test("Save to config writes the grant into the entry, comments kept, and later calls are not asked", async () => {
    t.model.enqueue({ toolCalls: [curl("call_saved")] }, { toolCalls: [curl("call_after")] }, { content: "Fetched twice." });
    await ask("Fetch the page and keep the grant");
    await page.getByRole("button", { name: `Grant, save to ${config} and run bash again` }).click();
    await answered();
    expect(toolResult("call_saved")).toContain("server reached");
    expect(toolResult("call_after")).toContain("server reached");
    // One card in this turn: the call after the saved grant was not asked.
    expect(await page.locator("#log li.msg.assistant").last().locator(".grant").count()).toBe(1);
    expect(await readFile(config, "utf8")).toBe(CONFIG_TEXT.replace('"fs.write"]', '"fs.write", "network"]'));
  }, 60_000);
});
