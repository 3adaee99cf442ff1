/// <reference lib="dom" />
/**
 * The page tests' start: the web app in-process against a scripted model (`startTestServer`),
 * Chromium's page (`launchPage`), and the chat page loaded in it and ready.
 */
import type { Page } from "playwright-core";
import { launchPage, type TestBrowser } from "./chromium.ts";
import { startTestServer, type TestServer, type TestServerOptions } from "./helpers.ts";

/** How to start the server and open its page. */
export interface ChatPageOptions {
  /** What `startTestServer` is given. @default its defaults */
  readonly server?: TestServerOptions;
  readonly viewport: { width: number; height: number };
  /** Browser permissions granted to the server's origin (e.g. the clipboard's). @default none */
  readonly permissions?: readonly string[];
  /** How long each of the page's actions may wait, in ms. @default 10_000 */
  readonly timeoutMs?: number;
  /** Whether the page is loaded (and ready) before the tests; false leaves it blank. @default true */
  readonly load?: boolean;
}

/** The server, the browser and its page; `close()` ends the browser, then the server. */
export interface ChatPage {
  readonly t: TestServer;
  readonly browser: TestBrowser;
  readonly page: Page;
  /** The Content-Security-Policy violations the page's console reported. */
  readonly cspViolations: readonly string[];
  close(): Promise<void>;
}

/** Starts the server and opens the chat page on it in Chromium. */
export async function openChatPage(options: ChatPageOptions): Promise<ChatPage> {
  const { server, viewport, permissions = [], timeoutMs = 10_000, load = true } = options;
  const t = await startTestServer(server);
  try {
    const { browser, page, cspViolations } = await launchPage(viewport);
    const close = async () => {
      await browser.close();
      await t.close();
    };
    try {
      page.setDefaultTimeout(timeoutMs);
      if (permissions.length > 0) await browser.context.grantPermissions([...permissions], { origin: t.server.url });
      if (load) {
        await page.goto(t.server.url);
        // The page is ready once its start (the kept conversation loaded, the list drawn) has put the
        // focus in the message box; a message sent before would be drawn over, and lose a card's focus.
        await page.waitForFunction(() => document.activeElement?.id === "prompt");
      }
    } catch (error) {
      await browser.close();
      throw error;
    }
    return { t, browser, page, cspViolations, close };
  } catch (error) {
    await t.close();
    throw error;
  }
}
