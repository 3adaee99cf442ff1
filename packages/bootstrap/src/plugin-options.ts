/**
 * A plugin's options from the config, checked against the plugin's own TypeBox schema:
 * defaults filled in first, then every problem reported with its key path.
 */
import { Kind, type TSchema } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { Value } from "@sinclair/typebox/value";
import { type EntryLocation, pluginErrors } from "./messages.ts";
import { formatPath } from "./schema-kit.ts";

/**
 * Returns the options with the schema's defaults applied (the config's value is not
 * changed), so the plugin receives every option a default exists for. Keys the schema does
 * not declare are refused unless it allows extra properties, so a misspelt option never
 * passes silently. Throws `PLUGIN_OPTIONS`.
 */
export function checkOptions(schema: TSchema, input: unknown, plugin: string, where: EntryLocation): unknown {
  const value = Value.Default(schema, Value.Clone(input));
  const at = (segments: readonly (string | number)[]) => formatPath(["plugins", where.index, "options", ...segments]);
  const unknown = unknownKeys(schema, value).map((key) => at([key]));
  const problems = unknown.map((path) => `${path}: unknown option (${known(schema)})`);

  // An undeclared key is reported once, as an unknown option, not again as TypeBox's "unexpected property".
  const seen = new Set<string>(unknown);
  for (const error of TypeCompiler.Compile(schema).Errors(value)) {
    const path = at(pointerSegments(error.path));
    if (seen.has(path)) continue;
    seen.add(path);
    problems.push(`${path}: ${error.message.charAt(0).toLowerCase()}${error.message.slice(1)}`);
  }
  if (problems.length > 0) throw pluginErrors.options(plugin, problems, where);
  return value;
}

function unknownKeys(schema: TSchema, value: unknown): string[] {
  if (schema[Kind] !== "Object" || (schema.additionalProperties !== undefined && schema.additionalProperties !== false)) return [];
  if (typeof value !== "object" || value === null || Array.isArray(value)) return [];
  const declared = Object.keys(schema.properties ?? {});
  return Object.keys(value).filter((key) => !declared.includes(key));
}

function known(schema: TSchema): string {
  const declared = Object.keys(schema.properties ?? {});
  return declared.length === 0 ? "this plugin takes no options" : `known options: ${declared.join(", ")}`;
}

/** `/limits/0/max` → `["limits", 0, "max"]` (JSON Pointer, `~1` and `~0` decoded). */
function pointerSegments(pointer: string): (string | number)[] {
  if (pointer === "") return [];
  return pointer
    .slice(1)
    .split("/")
    .map((segment) => segment.replaceAll("~1", "/").replaceAll("~0", "~"))
    .map((segment) => (/^\d+$/.test(segment) ? Number(segment) : segment));
}
