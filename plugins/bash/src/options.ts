/** The bash plugin's options: its TypeBox schema (the validator), its type and defaults. */
import { type Static, Type } from "@sinclair/typebox";

/** The limits a config entry may leave out. */
export const DEFAULTS = { timeoutMs: 120000, maxTimeoutMs: 600000, maxOutputChars: 50000 } as const;

/** Options of `@plugboard/plugin-bash`, each optional with its default. */
export const OptionsSchema = Type.Object(
  {
    timeoutMs: Type.Optional(
      Type.Integer({
        minimum: 1,
        default: DEFAULTS.timeoutMs,
        description: "Timeout of a command that does not pass timeout_ms, in milliseconds.",
      }),
    ),
    maxTimeoutMs: Type.Optional(
      Type.Integer({
        minimum: 1,
        default: DEFAULTS.maxTimeoutMs,
        description: "Largest timeout_ms the model may ask for, in milliseconds.",
      }),
    ),
    maxOutputChars: Type.Optional(
      Type.Integer({
        minimum: 1,
        default: DEFAULTS.maxOutputChars,
        description: "Characters of output kept (the first and last halves); the rest is cut and counted.",
      }),
    ),
  },
  { additionalProperties: false },
);

/** Options of the bash plugin, as written in the config entry. */
export type Options = Static<typeof OptionsSchema>;

/** The limits the tool runs with: the options with every default filled in. */
export type BashLimits = Readonly<Required<Options>>;

/** Fills in the defaults of the options a config entry left out. */
export function limitsOf(options: Options): BashLimits {
  return {
    timeoutMs: options.timeoutMs ?? DEFAULTS.timeoutMs,
    maxTimeoutMs: options.maxTimeoutMs ?? DEFAULTS.maxTimeoutMs,
    maxOutputChars: options.maxOutputChars ?? DEFAULTS.maxOutputChars,
  };
}
