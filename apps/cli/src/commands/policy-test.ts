/** `plugboard policy test FILE`: checks cases of calls and the decisions they must get against the config's policy. */
import { resolve } from "node:path";
import { PlugboardError } from "@plugboard/errors";
import { parseJson } from "@plugboard/config/json";
import type { ParsedArgs } from "../args.ts";
import type { Io } from "../io.ts";
import { loadPolicy } from "./policy-load.ts";
import { plural } from "@plugboard/core/internal";

const ACTIONS = ["allow", "ask", "deny"] as const;
const EXAMPLE = 'Write a JSON list of cases, each { "tool": "bash", "args": { "command": "git status" }, "expect": "allow" } ("args" may be left out).';

interface Case {
  readonly tool: string;
  readonly args: Readonly<Record<string, unknown>>;
  readonly expect: (typeof ACTIONS)[number];
}

/** Prints each case with ✓ or ✗; 0 when all match, 1 when one does not (each named), 2 for a file that is not a list of cases. */
export async function policyTestCommand(parsed: ParsedArgs, io: Io): Promise<number> {
  const file = parsed.args[0] ?? "";
  const cases = await readCases(resolve(io.cwd, file), file);
  const policy = await loadPolicy(parsed, io);
  let mismatched = 0;
  for (const [index, entry] of cases.entries()) {
    const { verdict } = await policy.judge(entry.tool, entry.args);
    const call = `${index + 1}. ${entry.tool} ${JSON.stringify(entry.args)}`;
    if (verdict.action === entry.expect) {
      await io.print(`✓ ${call} → ${verdict.action}\n`);
      continue;
    }
    mismatched++;
    const why = verdict.reason === undefined ? "" : `; ${verdict.reason}`;
    await io.print(`✗ ${call}: expected ${entry.expect}, got ${verdict.action}, by ${policy.where(verdict.rule)}${why}\n`);
  }
  const total = `${cases.length} ${plural(cases.length, "case")}`;
  await io.print(mismatched === 0 ? `${total}, all match ${policy.file}'s policy\n` : `${mismatched} of ${total} do not match ${policy.file}'s policy\n`);
  return mismatched === 0 ? 0 : 1;
}

async function readCases(path: string, shown: string): Promise<Case[]> {
  const fail = (problem: string) => new PlugboardError("USAGE", `Invalid policy test file ${shown}: ${problem}\n${EXAMPLE}`);
  const text = await Bun.file(path)
    .text()
    .catch((error: unknown) => {
      throw new PlugboardError("USAGE", `Cannot read the policy test file ${shown}: ${error instanceof Error ? error.message : String(error)}\n${EXAMPLE}`);
    });
  const parsed = parseJson(text);
  if (!parsed.ok) throw fail(`line ${parsed.line}, column ${parsed.column}: ${parsed.problem}`);
  if (!Array.isArray(parsed.value)) throw fail("expected a JSON list of cases");
  return parsed.value.map((entry: unknown, index) => {
    const at = `case ${index + 1}`;
    if (typeof entry !== "object" || entry === null || Array.isArray(entry)) throw fail(`${at}: expected an object`);
    const { tool, args = {}, expect, ...rest } = entry as Record<string, unknown>;
    const unknown = Object.keys(rest);
    if (unknown.length > 0) throw fail(`${at}: unknown key ${JSON.stringify(unknown[0])}`);
    if (typeof tool !== "string" || tool === "") throw fail(`${at}: "tool" must be a tool name, such as "bash"`);
    if (typeof args !== "object" || args === null || Array.isArray(args)) throw fail(`${at}: "args" must be an object of the call's arguments`);
    if (!ACTIONS.includes(expect as Case["expect"])) throw fail(`${at}: "expect" must be "allow", "ask" or "deny", got ${JSON.stringify(expect) ?? "nothing"}`);
    return { tool, args: args as Record<string, unknown>, expect: expect as Case["expect"] };
  });
}
