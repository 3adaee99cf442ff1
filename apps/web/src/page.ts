/**
 * The chat page: one HTML file with inline CSS and JS, served with a Content-Security-Policy
 * that allows exactly its own inline script and style (by hash) and requests to this origin.
 */
import { createHash } from "node:crypto";

/** The page, ready to serve. */
export interface ChatPage {
  readonly html: string;
  readonly contentSecurityPolicy: string;
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
export function contentSecurityPolicy(html: string): string {
  const scripts = hashes(html, "script");
  const styles = hashes(html, "style");
  return [
    "default-src 'none'",
    `script-src ${scripts}`,
    `style-src ${styles}`,
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** The answer to `GET /`. */
export function pageResponse(page: ChatPage, method: string): Response {
  return new Response(method === "HEAD" ? null : page.html, {
    headers: {
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": page.contentSecurityPolicy,
      "cache-control": "no-store",
      "referrer-policy": "no-referrer",
      "x-content-type-options": "nosniff",
      "x-frame-options": "DENY",
    },
  });
}

function hashes(html: string, tag: "script" | "style"): string {
  const blocks = [...html.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, "g"))].map((match) => match[1] ?? "");
  if (blocks.length === 0) return "'none'";
  return blocks.map((block) => `'sha256-${createHash("sha256").update(block, "utf8").digest("base64")}'`).join(" ");
}
