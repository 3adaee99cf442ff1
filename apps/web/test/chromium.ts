/**
 * The Chromium the browser test drives: `CHROMIUM_PATH` when set, else Debian's
 * `/usr/bin/chromium` when installed, else the binary inside the `@sparticuz/chromium` npm
 * package, so `bun install` brings everything the tests need.
 */
import { createReadStream, createWriteStream, existsSync } from "node:fs";
import { mkdtemp, rename, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pipeline } from "node:stream/promises";
import { createBrotliDecompress } from "node:zlib";
import { type BrowserContext, chromium, type Page } from "playwright-core";

/** Flags for a closed network: no background connections, no sandbox as root, no GPU. */
export const CHROMIUM_ARGS: readonly string[] = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

const SYSTEM_CHROMIUM = "/usr/bin/chromium";

/** The executable to launch, inflating the npm package's browser on first use. */
export async function chromiumExecutable(env: Record<string, string | undefined> = process.env): Promise<string> {
  const fromEnv = env.CHROMIUM_PATH;
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new Error(`CHROMIUM_PATH is set to ${fromEnv}, which does not exist.`);
    return fromEnv;
  }
  if (existsSync(SYSTEM_CHROMIUM)) return SYSTEM_CHROMIUM;
  return inflatePackagedChromium();
}

/** A running browser with a new empty profile; `close()` ends it and deletes the profile. */
export interface TestBrowser {
  readonly context: BrowserContext;
  readonly profile: string;
  close(): Promise<void>;
}

/** Launches Chromium with `CHROMIUM_ARGS` and a fresh `--user-data-dir`. */
export async function launchChromium(viewport: { width: number; height: number }): Promise<TestBrowser> {
  const executablePath = await chromiumExecutable();
  const profile = await mkdtemp(join(tmpdir(), "plugboard-chromium-"));
  const context = await chromium.launchPersistentContext(profile, { executablePath, headless: true, args: [...CHROMIUM_ARGS], viewport });
  return {
    context,
    profile,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** A browser, its page, and the Content-Security-Policy violations the page's console reported. */
export interface TestPage {
  readonly browser: TestBrowser;
  readonly page: Page;
  readonly cspViolations: readonly string[];
}

/** Launches Chromium (`launchChromium`) and takes its page, with a 10 s timeout and its CSP violations recorded. */
export async function launchPage(viewport: { width: number; height: number }): Promise<TestPage> {
  const browser = await launchChromium(viewport);
  const page = browser.context.pages()[0] ?? (await browser.context.newPage());
  const cspViolations: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) cspViolations.push(message.text());
  });
  page.setDefaultTimeout(10_000);
  return { browser, page, cspViolations };
}

/**
 * Inflates the package's `bin/chromium.br` once per package version into the temp folder.
 * The package's own `executablePath()` writes `/tmp/chromium` in place and trusts any file
 * already there, so two test runs starting at once could launch a half-written binary; here
 * the file is written under a private name and renamed into place, which is atomic.
 */
async function inflatePackagedChromium(): Promise<string> {
  const packageDir = join(dirname(Bun.resolveSync("@sparticuz/chromium", import.meta.dir)), "..");
  const { version } = (await Bun.file(join(packageDir, "package.json")).json()) as { version: string };
  const target = join(tmpdir(), `plugboard-chromium-${version}`);
  if (existsSync(target)) return target;
  const partial = `${target}.${process.pid}.partial`;
  try {
    await pipeline(
      createReadStream(join(packageDir, "bin", "chromium.br")),
      createBrotliDecompress(),
      createWriteStream(partial, { mode: 0o755 }),
    );
    await rename(partial, target);
  } finally {
    await rm(partial, { force: true });
  }
  return target;
}
