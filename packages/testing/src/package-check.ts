/**
 * The `package` check: what a stranger installs is what Plugboard needs. It reads
 * package.json and asks `bun pm pack --dry-run` which files would be published; nothing needs
 * to be installed, and no plugin code runs.
 */
import { readFile } from "node:fs/promises";
import { join, normalize } from "node:path";
import core from "@plugboard/core/package.json" with { type: "json" };
import { type CheckResult, failIfAny, result } from "./checks.ts";

const MANIFEST = "plugboard.plugin.json";
const CORE = "@plugboard/core";

/** Checks `directory`'s package.json and its packed file list. */
export async function checkPackage(directory: string): Promise<CheckResult> {
  const pkg = await readJson(join(directory, "package.json"));
  if (pkg === undefined) {
    return result("package", "fail", ["package.json is missing or not valid JSON: a plugin is published as an npm package"]);
  }
  const manifest = await readJson(join(directory, MANIFEST));
  const entry = typeof manifest?.entry === "string" ? manifest.entry : undefined;
  const problems: string[] = [];
  if (typeof pkg.name !== "string" || typeof pkg.version !== "string") problems.push('package.json needs a "name" and a "version"');

  const exports = isRecord(pkg.exports) ? pkg.exports : {};
  if (exports[`./${MANIFEST}`] !== `./${MANIFEST}`) problems.push(`"exports" lacks "./${MANIFEST}": "./${MANIFEST}"`);
  const main = exports["."];
  if (main === undefined) problems.push(`"exports" lacks ".", the module whose default export is the plugin`);
  else if (typeof main === "string" && entry !== undefined && !samePath(main, entry)) {
    problems.push(`"exports"["."] is ${main} but the manifest's entry is ${entry}: point both at the module that default-exports the plugin`);
  }

  const packed = await packedFiles(directory);
  if (typeof packed === "string") problems.push(packed);
  else {
    if (!packed.has(MANIFEST)) problems.push(`the published package would not contain ${MANIFEST}: add it to "files"`);
    if (entry !== undefined && !packed.has(normalize(entry))) problems.push(`the published package would not contain the entry ${entry}: add its folder to "files"`);
  }

  const peers = isRecord(pkg.peerDependencies) ? pkg.peerDependencies : {};
  const dependencies = isRecord(pkg.dependencies) ? pkg.dependencies : {};
  if (dependencies[CORE] !== undefined) {
    problems.push(`${CORE} is in "dependencies": an app would load a second copy of core; move it to "peerDependencies" (a package manager installs it for the plugin's own tests too)`);
  } else if (peers[CORE] === undefined) {
    problems.push(`${CORE} is missing from "peerDependencies": the plugin must use the app's core`);
  } else if (!coreFits(peers[CORE])) {
    problems.push(
      `"peerDependencies"["${CORE}"] is ${String(peers[CORE])}, which leaves out ${CORE} ${core.version}, the one it is checked with: make the range include it (e.g. ^${core.version}), or check it with the Plugboard it names`,
    );
  }
  return failIfAny("package", problems);
}

/** Whether the core the check runs with satisfies `range`; a range of another protocol (`workspace:*`, `file:…`) is not judged. */
function coreFits(range: unknown): boolean {
  if (typeof range !== "string" || range.includes(":")) return true;
  return Bun.semver.satisfies(core.version, range);
}

/** The paths `bun pm pack` would publish, or what went wrong asking it. */
async function packedFiles(directory: string): Promise<Set<string> | string> {
  const child = Bun.spawn([process.execPath, "pm", "pack", "--dry-run", "--ignore-scripts"], {
    cwd: directory,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  if (code !== 0) return `bun pm pack --dry-run failed: ${(stderr || stdout).trim().split("\n")[0] ?? ""}`;
  // Lines look like "packed 1.1KB src/index.ts".
  const files = [...`${stdout}\n${stderr}`.matchAll(/^packed \S+ (.+)$/gm)].map((match) => normalize(match[1] ?? ""));
  return new Set(files);
}

function samePath(a: string, b: string): boolean {
  return normalize(a) === normalize(b);
}

/** The JSON object in the file at `path`; undefined when it is missing, not JSON or not an object. */
export async function readJson(path: string): Promise<Record<string, unknown> | undefined> {
  return (await readJsonFile(path)).value;
}

/** The file at `path` read as JSON: its object (`value`), or that it is `missing`, or the parser's `problem`. */
export async function readJsonFile(path: string): Promise<{ readonly value?: Record<string, unknown>; readonly missing?: true; readonly problem?: string }> {
  const text = await readFile(path, "utf8").catch(() => undefined);
  if (text === undefined) return { missing: true };
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? { value } : { problem: "it is not a JSON object" };
  } catch (error) {
    return { problem: error instanceof Error ? error.message : String(error) };
  }
}

/** A JSON object: not null, not an array. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
