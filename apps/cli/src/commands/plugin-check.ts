/**
 * `plugboard plugin check DIR`: the conformance checks of `@plugboard/testing`, from the command
 * line. What needs no install is checked first; the plugin runs confined through this plugboard.
 */
import { resolve } from "node:path";
import { visible } from "@plugboard/core/internal";
import type { ParsedArgs } from "../args.ts";
import type { Io } from "../io.ts";
import { thisPlugboard, withKit } from "./plugin-kit.ts";

/** Prints each check with ✓/✗ and what to fix; 0 when none failed, 1 otherwise (2 for a missing folder). */
export async function pluginCheckCommand(parsed: ParsedArgs, io: Io): Promise<number> {
  const directory = resolve(io.cwd, parsed.args[0] ?? ".");
  return withKit(directory, async ({ checkPlugin, formatReport }) => {
    const report = await checkPlugin(directory, { plugboard: thisPlugboard() });
    io.stdout.write(parsed.flags.json ? `${JSON.stringify(report, null, 2)}\n` : `${visible(formatReport(report))}\n`);
    return report.ok ? 0 : 1;
  });
}
