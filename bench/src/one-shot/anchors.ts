/**
 * The anchors of the one-shot suite, at pinned versions: Anthropic's sandbox runtime
 * (`@anthropic-ai/sandbox-runtime`, its `srt` command, which confines with bubblewrap on
 * Linux) and Codex's sandbox (`@openai/codex`, whose npm package is a Node launcher for a
 * native binary shipped in a platform package, `@openai/codex-linux-x64` on this machine).
 * Installed from the npm registry with npm into `bench/.anchors/` (not a workspace
 * dependency: Codex's platform package alone is about 400 MB), once, and kept between runs.
 * What cannot be had (no npm, no answer from the registry, no bubblewrap) is said, not
 * guessed around: the suite reports that anchor as not measured, with the reason. Nothing is
 * installed on the machine itself: `bwrap`, `socat` and `rg` (which srt needs on Linux) are
 * Debian's packages `bubblewrap`, `socat` and `ripgrep`.
 */
import { existsSync, readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { coldEnv } from "../cold-start.ts";
import type { RunMode } from "../harness/mode.ts";
import { BENCH_DIR } from "../harness/paths.ts";

/** The pinned versions. */
export const SRT_VERSION = "0.0.78";
export const CODEX_VERSION = "0.171.0";
const SRT = "@anthropic-ai/sandbox-runtime";
const CODEX = "@openai/codex";

/** Where the anchors are installed, and kept (ignored by git). */
export const ANCHORS_DIR = join(BENCH_DIR, ".anchors");
/** How long the one install may take. */
const INSTALL_TIMEOUT_MS = 10 * 60_000;

/** An anchor that can run, or why it cannot. */
export type Anchor = { readonly ok: true; readonly argv: readonly string[] } | { readonly ok: false; readonly why: string };

/** The commands that run each anchor, before the command it confines. */
export interface Anchors {
  /** `node srt --settings FILE` (its built-in defaults, written out). */
  readonly srt: Anchor;
  /** `codex sandbox`, the native binary itself. */
  readonly codexNative: Anchor;
  /** `node bin/codex.js sandbox`: the npm launcher, which finds and spawns the native binary. */
  readonly codexLauncher: Anchor;
  /** `CODEX_HOME` for both Codex commands: an empty one of the bench's, so no person's config applies. */
  readonly codexHome: string;
}

/** srt's built-in defaults (its `getDefaultConfig`), written to a file so that no `~/.srt-settings.json` applies. */
const SRT_DEFAULTS = { network: { allowedDomains: [], deniedDomains: [] }, filesystem: { denyRead: [], allowRead: [], allowWrite: [], denyWrite: [] } };

/** Codex's native package for this machine, as its launcher (bin/codex.js) names it. */
function codexPlatform(): { readonly name: string; readonly triple: string } | undefined {
  if (process.platform !== "linux") return undefined;
  if (process.arch === "x64") return { name: "@openai/codex-linux-x64", triple: "x86_64-unknown-linux-musl" };
  if (process.arch === "arm64") return { name: "@openai/codex-linux-arm64", triple: "aarch64-unknown-linux-musl" };
  return undefined;
}

/** Installs the anchors when they are missing (or at other versions), then says how to run each. */
export async function anchors(mode: RunMode): Promise<Anchors> {
  const codexHome = join(ANCHORS_DIR, "codex-home");
  await mkdir(codexHome, { recursive: true });
  const installed = await install(mode);
  const node = Bun.which("node");
  const missing = (why: string): Anchor => ({ ok: false, why });
  if (installed !== undefined) return { srt: missing(installed), codexNative: missing(installed), codexLauncher: missing(installed), codexHome };
  const modules = join(ANCHORS_DIR, "node_modules");
  const settings = join(ANCHORS_DIR, "srt-settings.json");
  await writeFile(settings, `${JSON.stringify(SRT_DEFAULTS, null, 2)}\n`);
  const platform = codexPlatform();
  const native = platform === undefined ? undefined : join(modules, platform.name, "vendor", platform.triple, "bin", "codex");
  const codexNative: Anchor =
    native === undefined
      ? missing(`Codex ships no native binary for ${process.platform}-${process.arch}`)
      : existsSync(native)
        ? { ok: true, argv: [native, "sandbox"] }
        : missing(`npm did not install Codex's optional platform package ${platform?.name} (no ${native})`);
  const launcher = join(modules, CODEX, "bin", "codex.js");
  const codexLauncher: Anchor = node === null ? missing("node is not installed") : !codexNative.ok ? codexNative : { ok: true, argv: [node, launcher, "sandbox"] };
  return { srt: srtAnchor(node, join(modules, SRT, "dist", "cli.js"), settings), codexNative, codexLauncher, codexHome };
}

/** srt, when this machine has what it needs on Linux (bubblewrap, and socat and ripgrep besides). */
function srtAnchor(node: string | null, cli: string, settings: string): Anchor {
  if (node === null) return { ok: false, why: "node is not installed" };
  if (process.platform !== "linux") return { ok: true, argv: [node, cli, "--settings", settings] };
  const lacking = [
    ["bwrap", "bubblewrap"],
    ["socat", "socat"],
    ["rg", "ripgrep"],
  ].filter(([program = ""]) => Bun.which(program) === null);
  if (lacking.length > 0) {
    return { ok: false, why: `srt needs ${lacking.map(([program, debian]) => `${program} (Debian's package ${debian})`).join(" and ")} on Linux, which this machine lacks; the bench installs nothing on the machine` };
  }
  return { ok: true, argv: [node, cli, "--settings", settings] };
}

/** npm's install of the pinned versions into ANCHORS_DIR, unless they are there; the reason when it fails. */
async function install(mode: RunMode): Promise<string | undefined> {
  const version = (name: string) => {
    try {
      return (JSON.parse(readFileSync(join(ANCHORS_DIR, "node_modules", name, "package.json"), "utf8")) as { version?: string }).version;
    } catch {
      return undefined;
    }
  };
  if (version(SRT) === SRT_VERSION && version(CODEX) === CODEX_VERSION) return undefined;
  const npm = Bun.which("npm");
  if (npm === null) return "npm is not installed, so the anchors cannot be installed";
  mode.progress(`one-shot: installing ${SRT}@${SRT_VERSION} and ${CODEX}@${CODEX_VERSION} into bench/.anchors with npm (once; Codex's native package is about 400 MB)`);
  await writeFile(join(ANCHORS_DIR, "package.json"), `${JSON.stringify({ private: true, description: "The one-shot suite's anchors, installed by the bench (bench/src/one-shot/anchors.ts).", dependencies: { [SRT]: SRT_VERSION, [CODEX]: CODEX_VERSION } }, null, 2)}\n`);
  const child = Bun.spawn([npm, "install", "--no-audit", "--no-fund", "--prefix", ANCHORS_DIR], {
    cwd: ANCHORS_DIR,
    env: coldEnv(),
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
    timeout: INSTALL_TIMEOUT_MS,
  });
  const [stderr, code] = await Promise.all([new Response(child.stderr).text(), child.exited]);
  if (code === 0 && version(SRT) === SRT_VERSION && version(CODEX) === CODEX_VERSION) return undefined;
  const last = stderr.trim().split("\n").at(-1) ?? "";
  return `npm install of the anchors failed (exit ${code ?? child.signalCode}${last === "" ? "" : `: ${last}`})`;
}
