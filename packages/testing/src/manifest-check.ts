/**
 * The `manifest` check, with no install and no code run: `plugboard.plugin.json` read as the
 * app reads it — its keys and their shapes, a contract range the core it is checked with
 * satisfies, tool names the model providers accept (each once), known permissions, its name and
 * version equal to package.json's, an entry file inside the folder.
 */
import { stat } from "node:fs/promises";
import { join, relative, resolve, sep } from "node:path";
import { CONTRACT_VERSION, PERMISSIONS, TOOL_NAME_PATTERN } from "@plugboard/core";
import { fieldProblems } from "@plugboard/core/internal";
import { type Static, Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { type CheckResult, failIfAny, result } from "./checks.ts";
import { readJson, readJsonFile } from "./package-check.ts";

/** The manifest's file name, at the root of every plugin package. */
export const MANIFEST_FILE = "plugboard.plugin.json";

const Permission = Type.Union(PERMISSIONS.map((name) => Type.Literal(name)));

/** What a manifest may hold (the app's rules, in TypeBox). */
const ManifestSchema = Type.Object(
  {
    $schema: Type.Optional(Type.String()),
    name: Type.String({ minLength: 1 }),
    version: Type.String({ minLength: 1 }),
    contract: Type.String({ minLength: 1 }),
    entry: Type.String({ minLength: 1 }),
    tools: Type.Array(Type.Object({ name: Type.String({ pattern: TOOL_NAME_PATTERN.source }), description: Type.String({ minLength: 1 }) }, { additionalProperties: false }), {
      minItems: 1,
    }),
    permissions: Type.Array(Permission),
    optionalPermissions: Type.Optional(Type.Array(Permission)),
    // Manifests of contract 1.0 carried the options schema; still accepted, never read.
    options: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false },
);

/** A manifest that passed. */
export type Manifest = Static<typeof ManifestSchema>;

/** The check's result, and the manifest when it passed. */
export interface ManifestCheck {
  readonly result: CheckResult;
  readonly manifest?: Manifest;
}

const CONTRACT_FIX = 'Set "contract" to a semver range that includes the contract of the Plugboard you build against (e.g. ^1.0.0).';

/** Reads and checks `root`'s manifest. */
export async function checkManifest(root: string): Promise<ManifestCheck> {
  const path = join(root, MANIFEST_FILE);
  const read = await readJsonFile(path);
  if (read.missing) return fail([`there is no ${MANIFEST_FILE} in ${root}`], `Every plugin has a manifest at its root: plugboard plugin new writes one, with each tool listed by plugboard plugin sync.`);
  if (read.problem !== undefined) return fail([`${MANIFEST_FILE} is not valid JSON: ${read.problem}`], "Fix the JSON syntax there.");
  const json = read.value;
  // The contract first: a manifest made for a newer contract may have keys this one does not know.
  if (typeof json?.contract === "string" && !Bun.semver.satisfies(CONTRACT_VERSION, json.contract)) {
    return fail([`it supports contract ${json.contract}, and the @plugboard/core it is checked with provides ${CONTRACT_VERSION}`], CONTRACT_FIX);
  }
  if (json === undefined || !Value.Check(ManifestSchema, json)) {
    return fail(fieldProblems(Value.Errors(ManifestSchema, json), "(manifest)"), `Fix these keys in ${MANIFEST_FILE}.`);
  }
  const problems = [...toolNames(json), ...(await agreesWithPackage(root, json)), ...(await entryProblems(root, json.entry))];
  return { result: failIfAny("manifest", problems), ...(problems.length === 0 ? { manifest: json } : {}) };
}

/** The permissions a manifest asks for or offers to use. */
export function declaredPermissions(manifest: Manifest): string[] {
  return [...manifest.permissions, ...(manifest.optionalPermissions ?? [])];
}

function toolNames(manifest: Manifest): string[] {
  const names = manifest.tools.map((tool) => tool.name);
  const twice = [...new Set(names.filter((name, index) => names.indexOf(name) !== index))];
  return twice.length > 0 ? [`tools: each tool name must appear once, got ${twice.join(", ")} more than once`] : [];
}

async function agreesWithPackage(root: string, manifest: Manifest): Promise<string[]> {
  const pkg = await readJson(join(root, "package.json"));
  if (pkg === undefined) return [];
  const found = `${String(pkg.name ?? "(none)")}@${String(pkg.version ?? "(none)")}`;
  const says = `${manifest.name}@${manifest.version}`;
  return found === says ? [] : [`its manifest says ${says} but its package.json says ${found}: make the manifest's "name" and "version" equal package.json's`];
}

async function entryProblems(root: string, entry: string): Promise<string[]> {
  const path = resolve(root, entry);
  const fromRoot = relative(root, path);
  const inside = fromRoot !== "" && fromRoot !== ".." && !fromRoot.startsWith(`..${sep}`) && !entry.startsWith("/");
  const info = inside ? await stat(path).catch(() => undefined) : undefined;
  return info?.isFile() ? [] : [`its entry ${entry} is not a file inside the plugin's folder: "entry" is a path relative to it, such as ./src/index.ts`];
}

function fail(problems: readonly string[], fix: string): ManifestCheck {
  return { result: result("manifest", "fail", problems, { fix }) };
}
