/**
 * A refusal that can become a grant: when the sandbox refused a call for lack of a grant its
 * plugin may be given (its source tells which: `ToolSource.missingGrant`), the person is asked
 * whether to run it again with exactly that grant — once, for the session, or saved to the
 * config too (`ToolSource.callGranted`). Only an approver that asks a person every time is asked: `--yes` widens
 * no sandbox, and without anyone to ask the refusal stays as it is; nor is a tainted
 * conversation offered a network grant, which would make the call a way out. The runtime knows no
 * sandbox: the source works out the grant and starts the host that has it.
 */
import type { RegisteredTool, ToolResult } from "@plugboard/core";
import { type GrantScope, grantEntry, type MissingGrant } from "@plugboard/core/internal";
import type { Approver } from "./approval.ts";
import type { Asking } from "./asking.ts";
import type { Taint } from "./taint.ts";

/** A grant a person gave a refused call, and for how long. */
export interface GivenGrant {
  readonly grant: MissingGrant;
  readonly scope: GrantScope;
}

/** The call whose result the sandbox refused, and who may be asked. */
export interface RefusedInput {
  readonly id: string;
  readonly arguments: Readonly<Record<string, unknown>>;
  readonly asking: Asking;
  readonly approve: Approver | undefined;
  readonly signal: AbortSignal;
  /** The conversation's taint, when followed: a grant that would let the call send data out is then not offered. */
  readonly tainted?: Taint;
}

/** The grant the person gave the call that returned `result`, or undefined (nothing missing, no one asked, or refused). */
export async function askToGrant(registered: RegisteredTool, result: ToolResult, input: RefusedInput): Promise<GivenGrant | undefined> {
  const { source } = registered;
  const { approve } = input;
  if (source?.callGranted === undefined || approve === undefined || (approve.asks ?? "person") !== "person") return undefined;
  const grant = source.missingGrant?.(result);
  if (grant === undefined) return undefined;
  // In a tainted conversation the call with network would be a way out the taint never judged: the refusal stays.
  if (input.tainted !== undefined && ("hosts" in grant || ("permission" in grant && grant.permission === "network"))) return undefined;
  const request = { id: input.id, tool: registered.tool.name, arguments: input.arguments, refused: { owner: registered.owner ?? source.owner, grant } };
  const answer = await input.asking.offer(request, approve, input.signal);
  return answer.decision === "allow" && answer.grant !== undefined ? { grant, scope: answer.grant } : undefined;
}

/**
 * A grant in words, as a config entry says it.
 *
 * @example describeGrant({ hosts: ["localhost:4873"] }) // '"network": ["localhost:4873"]'
 */
export function describeGrant(grant: MissingGrant): string {
  const { key, values } = grantEntry(grant);
  return `"${key}": [${values.map((value) => JSON.stringify(value)).join(", ")}]`;
}
