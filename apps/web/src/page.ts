/**
 * The chat page: `page/index.html`, `page/page.css` and one script bundled by `bun build`
 * from `page/main.ts` (minified, for the browser) once per process, when the first server
 * starts. It is served with a Content-Security-Policy that allows scripts, styles and
 * requests from this origin only: no inline script or style, no `eval`, no images.
 */
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { secureHeaders } from "hono/secure-headers";

/** The directives of a Content-Security-Policy, as Hono's `secureHeaders` takes them. */
export type ContentSecurityPolicyOptions = NonNullable<NonNullable<Parameters<typeof secureHeaders>[0]>["contentSecurityPolicy"]>;

/** The folder of the page's sources. */
export const PAGE_DIR = join(import.meta.dir, "../page");

/**
 * Where a bundle that carries this module (the CLI's `dist/`) keeps the page, built when the
 * bundle was (`writeChatPage`): a bundle is installed without the page's sources and their
 * browser libraries. Absent beside the sources, so there the page is built at start.
 */
const PREBUILT_DIR = join(import.meta.dir, "chat-page");

/** The files of a built page, by name. */
const FILES = { html: "index.html", styles: "page.css", script: "main.js" } as const;

/** The page, ready to serve. */
export interface ChatPage {
  readonly html: string;
  /** The bundle of `page/main.ts` and everything it imports. */
  readonly script: string;
  readonly styles: string;
  readonly contentSecurityPolicy: ContentSecurityPolicyOptions;
}

/** The policy of the page and its two files. */
export const PAGE_CONTENT_SECURITY_POLICY: ContentSecurityPolicyOptions = {
  defaultSrc: ["'none'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'"],
  connectSrc: ["'self'"],
  baseUri: ["'none'"],
  formAction: ["'none'"],
  frameAncestors: ["'none'"],
};

let built: Promise<ChatPage> | undefined;

/** The page, built on the first call of this process and shared afterwards. */
export function loadChatPage(): Promise<ChatPage> {
  built ??= existsSync(join(PREBUILT_DIR, FILES.script)) ? readChatPage(PREBUILT_DIR) : buildChatPage();
  built.catch(() => {
    built = undefined;
  });
  return built;
}

/** Bundles the page's script and reads its HTML and CSS. Throws when the bundle fails to build. */
export async function buildChatPage(): Promise<ChatPage> {
  const result = await Bun.build({ entrypoints: [join(PAGE_DIR, "main.ts")], target: "browser", format: "esm", minify: true });
  const bundle = result.outputs.find((output) => output.kind === "entry-point");
  if (!result.success || !bundle) throw new AggregateError(result.logs, "The chat page's script failed to build");
  const [script, html, styles] = await Promise.all([
    bundle.text(),
    Bun.file(join(PAGE_DIR, "index.html")).text(),
    Bun.file(join(PAGE_DIR, "page.css")).text(),
  ]);
  return { html, script, styles, contentSecurityPolicy: PAGE_CONTENT_SECURITY_POLICY };
}

/** Builds the page and writes its three files into `folder` (a bundle's `chat-page/`, see `PREBUILT_DIR`). */
export async function writeChatPage(folder: string): Promise<void> {
  const page = await buildChatPage();
  await mkdir(folder, { recursive: true });
  await Promise.all([
    writeFile(join(folder, FILES.html), page.html),
    writeFile(join(folder, FILES.styles), page.styles),
    writeFile(join(folder, FILES.script), page.script),
  ]);
}

async function readChatPage(folder: string): Promise<ChatPage> {
  const read = (name: string) => Bun.file(join(folder, name)).text();
  const [html, styles, script] = await Promise.all([read(FILES.html), read(FILES.styles), read(FILES.script)]);
  return { html, script, styles, contentSecurityPolicy: PAGE_CONTENT_SECURITY_POLICY };
}
