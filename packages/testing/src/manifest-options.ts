/**
 * Part of the `manifest` check: a manifest's `options` document the plugin's options for
 * people and tools that read it without running code, so when present they must be exactly
 * the JSON of the options schema the entry exports, which is what the bootstrap validates with.
 */

/** The fix when the manifest's `options` and the entry's schema differ. */
export const OPTIONS_FIX =
  'Make "options" in plugboard.plugin.json the JSON of the options schema the entry exports (JSON.stringify(plugin.options)), or leave "options" out.';

/** How many differences a problem lists before it counts the rest. */
const SHOWN = 5;

/** The problems, when the manifest's `options` differ from the JSON of the entry's options schema; none when equal. */
export function manifestOptionsProblems(manifest: unknown, schema: unknown): string[] {
  const found = differences(manifest, schema, "options");
  if (found.length === 0) return [];
  const more = found.length > SHOWN ? [`and ${found.length - SHOWN} more`] : [];
  return [`its manifest's options differ from the options schema its entry exports: ${[...found.slice(0, SHOWN), ...more].join("; ")}`];
}

/** Where two JSON values differ, by key path, each saying what the manifest and the schema have there. */
function differences(manifest: unknown, schema: unknown, path: string): string[] {
  if (isObject(manifest) && isObject(schema)) {
    const keys = [...new Set([...Object.keys(schema), ...Object.keys(manifest)])];
    return keys.flatMap((key) => differences(manifest[key], schema[key], `${path}.${key}`));
  }
  if (Array.isArray(manifest) && Array.isArray(schema) && manifest.length === schema.length) {
    return manifest.flatMap((item, index) => differences(item, schema[index], `${path}[${index}]`));
  }
  if (JSON.stringify(manifest) === JSON.stringify(schema)) return [];
  return [`${path}: the manifest has ${shown(manifest)}, the schema has ${shown(schema)}`];
}

function shown(value: unknown): string {
  if (value === undefined) return "nothing";
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
