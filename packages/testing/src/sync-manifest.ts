/**
 * `syncManifest`: the manifest's tool list written from the code, so a plugin's author names
 * each tool and describes it once, in `defineTool`. The plugin's code runs in a child process
 * (the harness, in `tools` mode), as for the conformance checks; only the manifest's `"tools"`
 * is rewritten, the rest of the file is left as it is, byte for byte.
 */
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { KitError } from "./errors.ts";
import type { ToolListing } from "./harness-protocol.ts";
import { installFix, missingDependencies } from "./installed.ts";
import { withTools } from "./manifest-text.ts";
import { isRecord } from "./package-check.ts";
import { pluginFolder } from "./plugin-folder.ts";
import { runHarness } from "./run-harness.ts";
import { manifestDescription, type ToolChange, type ToolLine, listedTools, toolChanges } from "./tool-list.ts";

/** What `syncManifest` found, and whether it wrote the manifest. */
export interface ManifestSync {
  /** The manifest's path, absolute. */
  readonly manifestPath: string;
  /** The tools as the code makes them: what the manifest lists once synced. */
  readonly tools: readonly ToolLine[];
  /** What differs between the manifest's tools and those; empty when it is up to date. */
  readonly changes: readonly ToolChange[];
  /** True when the manifest was rewritten (changes were found, and `write` was not false). */
  readonly written: boolean;
}

/**
 * Builds the tools of the plugin in `directory` with its default options and makes the
 * manifest's `"tools"` list them: each name, and the first sentence of its description
 * (`manifestDescription`). With `{ write: false }` only compares. Throws a `KitError`
 * with a one-line message when the folder, its manifest or its code cannot be read.
 *
 * @example
 * const { changes } = await syncManifest(".");
 * for (const change of changes) console.log(changeLine(change));
 */
export async function syncManifest(directory: string, { write = true }: { readonly write?: boolean } = {}): Promise<ManifestSync> {
  const root = await pluginFolder(directory);
  const manifestPath = join(root, "plugboard.plugin.json");
  const text = await readFile(manifestPath, "utf8").catch(() => undefined);
  if (text === undefined) throw new KitError("PLUGIN_MANIFEST", `There is no plugboard.plugin.json in ${root}; plugboard plugin sync updates the tools of an existing manifest.`);
  const manifest = parseManifest(text, manifestPath);
  const label = typeof manifest.name === "string" ? `Plugin ${manifest.name}` : `The plugin in ${root}`;
  const listing = await listTools(root);
  if (!listing.ok) {
    const missing = await missingDependencies(root);
    const why = missing.length > 0 ? `its dependencies are not installed (${missing.join(", ")}). ${installFix(root, "run plugboard plugin sync again")}` : `${listing.problem}. Fix that, then run plugboard plugin sync again.`;
    throw new KitError("PLUGIN_TOOLS", `${label} could not be loaded to list its tools: ${why}`);
  }
  const tools = listing.tools.map(({ name, description }) => ({ name, description: manifestDescription(description) }));
  const undescribed = tools.filter((tool) => tool.description === "").map((tool) => tool.name);
  if (tools.length === 0) throw new KitError("PLUGIN_TOOLS", `${label} returns no tools, and a manifest lists at least one: return a tool from its tools function.`);
  if (undescribed.length > 0) throw new KitError("PLUGIN_TOOLS", `${label} has tools with an empty description (${undescribed.join(", ")}): describe each in defineTool.`);
  const changes = toolChanges(listedTools(manifest.tools), tools);
  const written = write && changes.length > 0;
  if (written) {
    await writeFile(manifestPath, withTools(text, tools.map(({ name, description }) => ({ name, description })))).catch((error: unknown) => {
      throw new KitError("PLUGIN_MANIFEST", `Could not write ${manifestPath} (${error instanceof Error ? error.message : String(error)}): make it writable, then run plugboard plugin sync again.`);
    });
  }
  return { manifestPath, tools, changes, written };
}

/** The tools the plugin's code returns, from the harness. */
async function listTools(root: string): Promise<ToolListing> {
  const temp = await realpath(await mkdtemp(join(tmpdir(), "plugboard-sync-")));
  try {
    const workspace = join(temp, "workspace");
    await mkdir(workspace);
    const input = { mode: "tools", pluginDir: root, options: {}, reportPath: join(temp, "tools.json") } as const;
    const run = await runHarness<ToolListing>(input, { cwd: workspace, ioDir: temp, timeoutMs: 60_000 });
    if (run.report !== undefined) return run.report;
    if (run.timedOut) return { ok: false, problem: "loading it did not finish within 60 s (something blocks the event loop or never settles)" };
    // The error line only: never the stack under it.
    const error = run.stderr.split("\n").find((line) => /^(error|\w*Error): /.test(line));
    return { ok: false, problem: `the process ended (exit code ${run.exitCode}) while loading it${error === undefined ? "" : ` (${error})`}` };
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
}

function parseManifest(text: string, path: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new KitError("PLUGIN_MANIFEST", `${path} is not valid JSON (${error instanceof Error ? error.message : String(error)}): fix it, then run plugboard plugin sync again.`);
  }
  if (!isRecord(value)) throw new KitError("PLUGIN_MANIFEST", `${path} is not a JSON object: a manifest is { "name", "version", "contract", "entry", "tools", "permissions" }.`);
  return value;
}
