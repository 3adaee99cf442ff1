/**
 * Rules on a `bash` command judged against the parsed line, not its raw string: each simple
 * command the line runs is judged on its own (the first rule that matches it, else the
 * default); any denied one denies the line, any asked one asks, and the line is allowed only
 * when all are. A command the line does not name (`$X args`, `eval "$X"`) and a line bash
 * cannot read are asked about unless a rule denies them; a command allowed by a command
 * pattern that also writes a file with a redirection or sets variables for itself is asked.
 */
import type { PolicyAction, PolicyRule } from "./policy.ts";
import type { ShellReading } from "./shell-commands.ts";

/** How one simple command of the line was judged. */
export interface CommandVerdict {
  /** The command as rules matched it (`git log --oneline`). */
  readonly command: string;
  readonly action: PolicyAction;
  readonly rule?: PolicyRule;
  /** Why it asks though a rule or the default allowed it. */
  readonly reason?: string;
}

/** A line's action, the rule that decided it, why, and each command's verdict. */
export interface LineVerdict {
  readonly action: PolicyAction;
  readonly rule?: PolicyRule;
  readonly reason?: string;
  readonly commands: readonly CommandVerdict[];
}

/** The first rule matching a command text, `undefined` for the default; supplied by the policy. */
export type FirstRule = (command: string) => Promise<PolicyRule | undefined>;

/** The verdict on `line`, read as `reading` (`shell-lines.ts`). A line that cannot be read is judged as its raw string (only a deny counts). */
export async function judgeLine(line: string, reading: ShellReading, firstRule: FirstRule, defaultAction: PolicyAction): Promise<LineVerdict> {
  if (!reading.readable) {
    const rule = await firstRule(line);
    if (rule?.action === "deny") return { action: "deny", rule, commands: [] };
    return { action: "ask", ...(rule ? { rule } : {}), reason: reading.reason, commands: [] };
  }
  if (reading.commands.length === 0) {
    const rule = await firstRule(line);
    return { action: rule?.action ?? defaultAction, ...(rule ? { rule } : {}), commands: [] };
  }
  const verdicts: CommandVerdict[] = [];
  for (const command of reading.commands) {
    const rule = await firstRule(command.text);
    const matched = rule ? { rule } : {};
    const action = rule?.action ?? defaultAction;
    if (command.denyOnly) {
      if (action === "deny") verdicts.push({ command: command.text, action, ...matched });
    } else if (command.unknown !== undefined) {
      verdicts.push({ command: command.text, action: action === "deny" ? "deny" : "ask", ...matched, reason: command.unknown });
    } else if (action === "allow" && rule?.args?.command !== undefined && command.caveats.length > 0) {
      verdicts.push({ command: command.text, action: "ask", ...matched, reason: command.caveats.join("; ") });
    } else {
      verdicts.push({ command: command.text, action, ...matched });
    }
  }
  const decisive = verdicts.find((v) => v.action === "deny") ?? verdicts.find((v) => v.action === "ask") ?? verdicts[0];
  if (decisive === undefined) return { action: defaultAction, commands: verdicts };
  const { action, rule, reason } = decisive;
  return { action, ...(rule ? { rule } : {}), ...(reason !== undefined ? { reason } : {}), commands: verdicts };
}
