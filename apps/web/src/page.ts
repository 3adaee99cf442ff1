/**
 * The chat page: one HTML file with inline CSS and JS, served with a Content-Security-Policy
 * that allows exactly its own inline script and style (by hash) and requests to this origin.
 */
import { createHash } from "node:crypto";
import type { secureHeaders } from "hono/secure-headers";

/** The directives of a Content-Security-Policy, as Hono's `secureHeaders` takes them. */
export type ContentSecurityPolicyOptions = NonNullable<NonNullable<Parameters<typeof secureHeaders>[0]>["contentSecurityPolicy"]>;

/** The page, ready to serve. */
export interface ChatPage {
  readonly html: string;
  readonly contentSecurityPolicy: ContentSecurityPolicyOptions;
}

/** Reads `page.html` beside this file and computes its policy. */
export async function loadChatPage(): Promise<ChatPage> {
  const html = await Bun.file(new URL("./page.html", import.meta.url)).text();
  return { html, contentSecurityPolicy: contentSecurityPolicy(html) };
}

/**
 * The policy for `html`: nothing is allowed but the hashes of its inline `<script>` and
 * `<style>` blocks and `fetch` to the same origin.
 */
export function contentSecurityPolicy(html: string): ContentSecurityPolicyOptions {
  return {
    defaultSrc: ["'none'"],
    scriptSrc: hashes(html, "script"),
    styleSrc: hashes(html, "style"),
    connectSrc: ["'self'"],
    baseUri: ["'none'"],
    formAction: ["'none'"],
    frameAncestors: ["'none'"],
  };
}

function hashes(html: string, tag: "script" | "style"): string[] {
  const blocks = [...html.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, "g"))].map((match) => match[1] ?? "");
  if (blocks.length === 0) return ["'none'"];
  return blocks.map((block) => `'sha256-${createHash("sha256").update(block, "utf8").digest("base64")}'`);
}
