/**
 * A plugin's own inputs for the conformance checks (its options, arguments that keep a tool
 * busy, more unfit arguments), kept in `plugboard.check.json` in its package folder, so that
 * its `bun test` (the suite) and `plugboard plugin check` read the same ones.
 */
import { join } from "node:path";
import { type Static, Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { KitError } from "./errors.ts";

/** The file, in the plugin's package folder (beside plugboard.plugin.json). */
export const CHECK_INPUTS_FILE = "plugboard.check.json";

const Args = Type.Record(Type.String(), Type.Unknown());

/** What `plugboard.check.json` may hold; every field is optional. */
export const CheckInputsSchema = Type.Object(
  {
    /** The plugin's options, as a config entry would give them. */
    options: Type.Optional(Type.Unknown()),
    /** More schema-valid arguments per tool that it should answer without throwing (an `Error:` result is fine). */
    unfitInputs: Type.Optional(Type.Record(Type.String(), Type.Array(Args))),
    /** Arguments per tool that keep it busy for a while, so the `abort` check sees it stop. */
    slowInputs: Type.Optional(Type.Record(Type.String(), Args)),
    /** How long a call may take to settle once its signal aborts (ms). */
    abortWithinMs: Type.Optional(Type.Integer({ minimum: 1 })),
    /** How long a call with unfit input may take (ms). */
    callTimeoutMs: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: false },
);

/** The contents of `plugboard.check.json`. */
export type CheckInputs = Static<typeof CheckInputsSchema>;

/**
 * The inputs in `root`'s `plugboard.check.json`, or none when there is no such file. A file
 * that is not JSON, or not of that shape, is a `KitError` (`PLUGIN_MANIFEST`) naming it.
 */
export async function readCheckInputs(root: string): Promise<CheckInputs> {
  const path = join(root, CHECK_INPUTS_FILE);
  const file = Bun.file(path);
  if (!(await file.exists())) return {};
  let json: unknown;
  try {
    json = JSON.parse(await file.text());
  } catch (error) {
    throw new KitError("PLUGIN_MANIFEST", `${path} is not JSON: ${(error as Error).message}`);
  }
  const problems = [...Value.Errors(CheckInputsSchema, json)].map((error) => `${error.path || "/"}: ${error.message}`);
  if (problems.length > 0) {
    throw new KitError("PLUGIN_MANIFEST", `${path} is not valid:\n  ${problems.join("\n  ")}\nIt may hold options, unfitInputs, slowInputs, abortWithinMs and callTimeoutMs.`);
  }
  return json as CheckInputs;
}
