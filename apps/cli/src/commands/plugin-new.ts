/** `plugboard plugin new NAME [--dir DIR]`: scaffold a plugin package in a new (or empty) folder. */
import { mkdir, readdir, stat, writeFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { PlugboardError } from "@plugboard/bootstrap";
import type { ParsedArgs } from "../args.ts";
import type { Io } from "../io.ts";
import { pluginNames } from "../plugin-names.ts";
import { pluginTemplate } from "../plugin-template.ts";

/** Writes the package and says what to do next; a folder that is not empty is refused (exit 2). */
export async function pluginNewCommand(parsed: ParsedArgs, io: Io): Promise<number> {
  const names = pluginNames(parsed.args[0] ?? "");
  const folder = resolve(io.cwd, parsed.flags.dir ?? names.folder);
  await checkFolder(folder);
  const files = await pluginTemplate(names);
  try {
    for (const [path, content] of files) {
      await mkdir(dirname(join(folder, path)), { recursive: true });
      // "wx": never overwrite, even if something appeared since the check.
      await writeFile(join(folder, path), content, { flag: "wx" });
    }
  } catch (error) {
    const code = error instanceof Error ? Reflect.get(error, "code") : undefined;
    if (typeof code !== "string") throw error;
    throw new PlugboardError("USAGE", `Cannot write the plugin into ${folder} (${code}). Pick a folder you can write with --dir DIR.`);
  }
  const { permissions } = JSON.parse(files.get("plugboard.plugin.json") ?? "{}") as { permissions: string[] };
  const shown = relative(io.cwd, folder) || ".";
  const entry = `{ "package": "${names.packageName}", "permissions": [${permissions.map((name) => `"${name}"`).join(", ")}] }`;
  io.stdout.write(
    [
      `Created ${names.packageName} in ${folder}:`,
      ...[...files.keys()].map((path) => `  ${path}`),
      "",
      "Next:",
      `  cd ${shown.includes(" ") ? JSON.stringify(shown) : shown}`,
      "  bun install",
      "  bun test",
      "",
      `An app enables it with this entry in its config's "plugins": ${entry}`,
      "",
    ].join("\n"),
  );
  return 0;
}

async function checkFolder(folder: string): Promise<void> {
  const info = await stat(folder).catch(() => undefined);
  if (info === undefined) return;
  if (!info.isDirectory()) {
    throw new PlugboardError("USAGE", `${folder} is a file. Pick a new folder for the plugin with --dir DIR.`);
  }
  if ((await readdir(folder)).length > 0) {
    throw new PlugboardError(
      "USAGE",
      `${folder} is not empty, and plugboard plugin new writes only into a new or empty folder. Pick another with --dir DIR, or empty it first.`,
    );
  }
}
