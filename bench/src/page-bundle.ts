/**
 * The web chat page's size: the `/page.js` bundle exactly as the server builds it (`bun build`,
 * minified, for the browser), raw and gzipped, and its stylesheet. Sizes do not depend on the
 * machine or its load, so `bun run --cwd bench page-bundle` may refresh them alone.
 */
import { buildChatPage } from "@plugboard/web";
import type { FigureLog } from "./harness/figures.ts";
import type { RunMode } from "./harness/mode.ts";

export const PAGE_BUNDLE_GROUP = "Web chat page";

/** Builds the page once and records its sizes in KiB. */
export async function pageBundle(mode: RunMode, log: FigureLog): Promise<void> {
  mode.progress("web chat page: bundle sizes");
  const page = await buildChatPage();
  const kib = (bytes: number) => Math.round((bytes / 1024) * 10) / 10;
  const script = new TextEncoder().encode(page.script);
  const styles = new TextEncoder().encode(page.styles);
  const add = (name: string, bytes: number, note: string) => log.add({ group: PAGE_BUNDLE_GROUP, name, value: kib(bytes), unit: "KiB", note });
  add("page.js", script.byteLength, "minified bundle of page/main.ts and its libraries");
  add("page.js, gzip", Bun.gzipSync(script).byteLength, "what a compressing proxy would send");
  add("page.css", styles.byteLength, "not minified");
  add("page.css, gzip", Bun.gzipSync(styles).byteLength, "");
}
