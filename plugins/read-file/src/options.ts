/** The read-file plugin's options: its TypeBox schema (the validator), its type and defaults. */
import { type Static, Type } from "@sinclair/typebox";

/** The limits a config entry may leave out. */
export const DEFAULTS = { maxFileBytes: 1048576, maxLineChars: 2000, maxOutputChars: 100000 } as const;

/** Options of `@plugboard/plugin-read-file`, each optional with its default. */
export const OptionsSchema = Type.Object(
  {
    maxFileBytes: Type.Optional(
      Type.Integer({
        minimum: 1,
        default: DEFAULTS.maxFileBytes,
        description: "The largest file, in bytes, read without a limit; larger files are read in parts.",
      }),
    ),
    maxLineChars: Type.Optional(
      Type.Integer({
        minimum: 1,
        default: DEFAULTS.maxLineChars,
        description: "Characters shown of one line; the rest of a longer line is cut and counted.",
      }),
    ),
    maxOutputChars: Type.Optional(
      Type.Integer({
        minimum: 1,
        default: DEFAULTS.maxOutputChars,
        description: "Characters of lines one read returns; the read stops at the line that would pass it.",
      }),
    ),
  },
  { additionalProperties: false },
);

/** Options of the read-file plugin, as written in the config entry. */
export type Options = Static<typeof OptionsSchema>;

/** The limits the tool runs with: the options with every default filled in. */
export type ReadLimits = Readonly<Required<Options>>;

/** Fills in the defaults of the options a config entry left out. */
export function limitsOf(options: Options): ReadLimits {
  return {
    maxFileBytes: options.maxFileBytes ?? DEFAULTS.maxFileBytes,
    maxLineChars: options.maxLineChars ?? DEFAULTS.maxLineChars,
    maxOutputChars: options.maxOutputChars ?? DEFAULTS.maxOutputChars,
  };
}
