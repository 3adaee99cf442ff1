/**
 * Valibot twins of the five tools' parameter schemas, written for this comparison only:
 * the same fields, constraints and closedness (extra keys refused) as the registry's
 * TypeBox checks. Checked against them on every benchmark payload before timing.
 */
import * as v from "valibot";

const integerAtLeast = (minimum: number) => v.pipe(v.number(), v.integer(), v.minValue(minimum));

/** One twin per tool name. */
export const VALIBOT_TWINS = {
  bash: v.strictObject({
    command: v.string(),
    timeout_ms: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(600000))),
  }),
  read_file: v.strictObject({
    path: v.string(),
    offset: v.optional(integerAtLeast(1)),
    limit: v.optional(integerAtLeast(1)),
  }),
  write_file: v.strictObject({ path: v.string(), content: v.string() }),
  edit_file: v.strictObject({
    path: v.string(),
    old_text: v.pipe(v.string(), v.minLength(1)),
    new_text: v.string(),
    replace_all: v.optional(v.boolean()),
  }),
  glob: v.strictObject({ pattern: v.pipe(v.string(), v.minLength(1)), path: v.optional(v.string()) }),
} as const;

/** The twin of `name`; throws for a tool without one. */
export function twinOf(name: string): v.GenericSchema {
  const twin = (VALIBOT_TWINS as Record<string, v.GenericSchema>)[name];
  if (!twin) throw new Error(`no valibot twin for ${name}`);
  return twin;
}
