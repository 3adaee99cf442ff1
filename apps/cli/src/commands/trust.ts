/** `plugboard trust FILE...`: read again files that appeared while plugins could write their folder. */
import { resolve } from "node:path";
import { plantedRecordFile, trustFile } from "@plugboard/bootstrap";
import type { ParsedArgs } from "../args.ts";
import type { Io } from "../io.ts";

/** Trusts each file as it is now; returns the exit code (a missing file is a usage error, exit 2). */
export async function trustCommand(parsed: ParsedArgs, io: Io): Promise<number> {
  const record = plantedRecordFile(io.env);
  for (const file of parsed.args) {
    const path = resolve(io.cwd, file);
    trustFile(record, path);
    await io.print(`Trusted ${path}: plugboard reads it again (a new file at that path is checked again).\n`);
  }
  return 0;
}
