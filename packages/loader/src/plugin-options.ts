/**
 * A plugin's options from the config, checked against the plugin's own TypeBox schema:
 * defaults filled in first, then every problem reported with its key path.
 */
import { formatSchemaErrors, pointerProblems } from "@plugboard/core/internal";
import { Kind, type TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import type { EntryLocation } from "@plugboard/errors";
import { pluginErrors } from "./messages.ts";

/**
 * Returns the options with the schema's defaults applied (the config's value is not
 * changed), so the plugin receives every option a default exists for. Keys the schema does
 * not declare are refused unless it allows extra properties, so a misspelt option never
 * passes silently. Throws `PLUGIN_OPTIONS`.
 */
export function checkOptions(schema: TSchema, input: unknown, plugin: string, where: EntryLocation): unknown {
  const value = Value.Default(schema, Value.Clone(input));
  const prefix = ["plugins", where.index, "options"];
  const problems = formatSchemaErrors(
    [
      ...unknownKeys(schema, value).map((key) => ({ path: [key], message: `unknown option (${known(schema)})` })),
      // Value.Check answers first: Value.Errors, a generator that builds every error, is several
      // times slower cold and runs at every plugin's load (a host's included), so only for options that fail.
      ...(Value.Check(schema, value) ? [] : pointerProblems(Value.Errors(schema, value))),
    ],
    { prefix },
  );
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
