/** `plugboard policy explain TOOL [JSON]`: how the config's policy decides one call, and why. */
import { visible } from "@plugboard/core/internal";
import type { ParsedArgs } from "../args.ts";
import type { Io } from "../io.ts";
import { argumentsOf, loadPolicy } from "./policy-load.ts";
import { taintLines } from "./policy-taint.ts";

/**
 * Prints the decision, the rule that made it as the config writes it (file and line) or the
 * default, each command of a bash line with its own verdict, the hooks that would run, and
 * the session's taint: the setting, the untrusted sources and the tools that can send data out.
 */
export async function policyExplainCommand(parsed: ParsedArgs, io: Io): Promise<number> {
  const [tool = "", json = "{}"] = parsed.args;
  const args = argumentsOf(json, parsed.command);
  const policy = await loadPolicy(parsed, io);
  const { verdict, hooks } = await policy.judge(tool, args);
  const lines = [`${tool} ${JSON.stringify(args)}`, `decision: ${verdict.action}`, `rule:     ${policy.where(verdict.rule)}`];
  if (verdict.reason !== undefined) lines.push(`why:      ${verdict.reason}`);
  if (verdict.commands !== undefined && verdict.commands.length > 0) {
    lines.push("commands:");
    for (const command of verdict.commands) {
      const why = command.reason === undefined ? "" : ` — ${command.reason}`;
      lines.push(`  ${command.action.padEnd(5)}  ${command.command}${why}`, `         by ${policy.where(command.rule)}`);
    }
  }
  if (verdict.action === "deny") lines.push("hooks:    none run (a call the policy denies runs no hook)");
  else if (hooks.length === 0) lines.push("hooks:    none");
  else lines.push(`hooks:    ${hooks.join("\n          ")}`);
  lines.push(...(await taintLines(policy, tool)));
  // The arguments may be pasted from a model's call.
  await io.print(`${visible(lines.join("\n"))}\n`);
  return 0;
}
