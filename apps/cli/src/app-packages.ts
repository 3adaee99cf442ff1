/**
 * Installing and removing plugin packages in an app's folder with `bun add` / `bun remove`,
 * run by the same Bun that runs this CLI.
 */
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { PlugboardError } from "@plugboard/bootstrap";

const PACKAGE_NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/;

/** A package argument split into its name and the version or range after `@`, if any. */
export function packageSpec(spec: string): { name: string; version: string | undefined } {
  if (!isPackageSpec(spec)) {
    throw new PlugboardError("USAGE", `'${spec}' is not an npm package name (such as @acme/plugboard-plugin-notes, optionally with @VERSION).`);
  }
  return split(spec);
}

/** Whether `spec` is a package name, optionally with `@VERSION`. */
export function isPackageSpec(spec: string): boolean {
  const { name, version } = split(spec);
  return PACKAGE_NAME.test(name) && version !== "";
}

function split(spec: string): { name: string; version: string | undefined } {
  const at = spec.lastIndexOf("@");
  return at > 0 ? { name: spec.slice(0, at), version: spec.slice(at + 1) } : { name: spec, version: undefined };
}

/** Whether `folder`'s package.json lists `name` among its dependencies. */
export async function dependsOn(folder: string, name: string): Promise<boolean> {
  return Object.hasOwn(await dependencies(folder), name);
}

/** The dependencies `folder`'s package.json lists (none without one), by name. */
export async function dependencies(folder: string): Promise<Readonly<Record<string, string>>> {
  return (await readPackageJson(folder))?.dependencies ?? {};
}

/**
 * `bun add SPEC` in `folder` (a private package.json is created first when there is none,
 * so bun never edits a parent folder's). Throws `PLUGIN_NOT_FOUND` with bun's own message.
 */
export async function addPackage(folder: string, spec: string, registry: string | undefined): Promise<void> {
  if (!existsSync(join(folder, "package.json"))) {
    await writeFile(join(folder, "package.json"), `${JSON.stringify({ private: true, dependencies: {} }, null, 2)}\n`);
  }
  const failed = await bun(["add", spec, ...(registry ? ["--registry", registry] : [])], folder);
  if (failed !== undefined) {
    throw new PlugboardError("PLUGIN_NOT_FOUND", `Could not install ${spec} in ${folder}:\n${failed}\nCheck the package name${registry ? " and the registry" : ""}.`);
  }
}

/** The name of the package `folder`'s package.json installs from the file `tarball` (as `bun add` wrote it), or undefined. */
export async function installedFrom(folder: string, tarball: string): Promise<string | undefined> {
  const listed = Object.entries(await dependencies(folder));
  return listed.find(([, spec]) => resolve(folder, spec.replace(/^file:/, "")) === tarball)?.[0];
}

/** `bun remove NAME` in `folder`. */
export async function removePackage(folder: string, name: string): Promise<void> {
  const failed = await bun(["remove", name], folder);
  if (failed !== undefined) throw new PlugboardError("USAGE", `Could not uninstall ${name} from ${folder}:\n${failed}`);
}

/** Runs bun with `args`; returns its output when it fails. */
async function bun(args: readonly string[], cwd: string): Promise<string | undefined> {
  const child = Bun.spawn([process.execPath, ...args], { cwd, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return code === 0 ? undefined : `${stdout}${stderr}`.trim();
}

async function readPackageJson(folder: string): Promise<{ dependencies?: Record<string, string> } | undefined> {
  const text = await readFile(join(folder, "package.json"), "utf8").catch(() => undefined);
  return text === undefined ? undefined : (JSON.parse(text) as { dependencies?: Record<string, string> });
}
