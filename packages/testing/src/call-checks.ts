/**
 * The checks that call a plugin's tools through the contract, run inside the harness process:
 * invalid arguments never reach a handler (each handler is wrapped to count its calls), unfit
 * input gives results rather than exceptions, and calls stop when aborted.
 */
import { type RegisteredTool, silentLogger, type ToolResult } from "@plugboard/core";
import { type CallOutcome, describeOutcome, settle } from "./call-outcome.ts";
import { callTool } from "./contract-call.ts";
import type { AppInput, Finding, ToolCall } from "./harness-protocol.ts";
import type { Loaded } from "./load-plugin.ts";
import type { Observer } from "./observe.ts";
import { invalidArguments, unfitArguments } from "./sample-arguments.ts";

/** A tool under test: its name, its registration and the parameter schema the model sees. */
interface Subject {
  readonly name: string;
  readonly registered: RegisteredTool;
  readonly parameters: unknown;
}

/** One call of a tool by name, with its raw JSON arguments, as a model makes it. */
type Call = (name: string, rawArguments: string, signal?: AbortSignal) => Promise<ToolResult>;

const NEVER = new AbortController().signal;

/**
 * Runs the three call-based checks over every tool of the loaded plugin, in turn; also
 * returns the unfit calls made (those its parameters accept), for the confined run.
 */
export async function runCallChecks(loaded: Loaded, input: AppInput, observer: Observer) {
  const calls = new Map<string, number>();
  const subjects: Subject[] = [];
  for (const name of loaded.registry.names()) {
    const registered = loaded.registry.get(name);
    if (registered) subjects.push({ name, registered, parameters: registered.schema.function.parameters });
  }
  const counted = subjects.map(({ name, registered }) => ({
    tool: { ...registered.tool, handler: countCalls(registered, () => calls.set(name, (calls.get(name) ?? 0) + 1)) },
    owner: registered.owner,
  }));
  // The plugin's own core builds the registry, as an app's would: its compiled checks and its closing of schemas.
  const registry = new loaded.core.ToolRegistry(counted);
  const { workspace } = loaded;
  const call: Call = (name, raw, signal = NEVER) => callTool(registry, name, raw, { workspace, signal, callId: "check", logger: silentLogger });
  const findings = { invalidArguments: finding(), foreseeableErrors: finding(), abort: finding() };
  const unfitCalls: ToolCall[] = [];
  for (const subject of subjects) {
    observer.during = `calling ${subject.name}`;
    await invalidCalls(call, subject, () => calls.get(subject.name) ?? 0, input, findings.invalidArguments);
    unfitCalls.push(...(await unfitCallsOf(call, subject, input, findings.foreseeableErrors)));
    await abortedCall(call, subject, input, findings.abort);
  }
  return { findings, unfitCalls };
}

async function invalidCalls(call: Call, subject: Subject, count: () => number, input: AppInput, out: Finding) {
  for (const { label, raw } of invalidArguments(subject.parameters)) {
    const before = count();
    const outcome = await settle(call(subject.name, raw), input.callTimeoutMs);
    if (count() > before) {
      out.problems.push(`${subject.name}: its handler ran for arguments with ${label}: ${raw}`);
    } else if (!(outcome.kind === "result" && outcome.value.content.startsWith("Error: Invalid arguments"))) {
      out.problems.push(`${subject.name}: arguments with ${label} (${raw}) gave ${describeOutcome(outcome)}, not an "Error: Invalid arguments…" result`);
    }
  }
}

/** The foreseeable-errors calls of one tool; returns the calls made. */
async function unfitCallsOf(call: Call, subject: Subject, input: AppInput, out: Finding): Promise<ToolCall[]> {
  const { name, registered } = subject;
  const given = input.unfitInputs[name] ?? [];
  for (const [index, args] of given.entries()) {
    if (registered.validate(args).length > 0) out.problems.push(`${name}: unfitInputs.${name}[${index}] does not match the tool's parameters, so it cannot reach the handler: ${JSON.stringify(args)}`);
  }
  const cases = unfitCases(registered, given);
  if (cases.length === 0) out.notes.push(`${name}: no generated input fits its parameters; pass unfitInputs to exercise it`);
  const made: ToolCall[] = [];
  for (const args of cases) {
    const json = JSON.stringify(args);
    const outcome = await timedCall(call, name, json, input.callTimeoutMs);
    const problem = unfitProblem(outcome, input.callTimeoutMs);
    if (problem) out.problems.push(`${name} ${json}: ${problem}`);
    made.push({ tool: name, arguments: json });
  }
  return made;
}

/** The arguments the foreseeable-errors check calls a tool with: the generated ones and `given`, those its parameters accept. */
function unfitCases(registered: RegisteredTool, given: readonly unknown[]): unknown[] {
  return [...unfitArguments(registered.schema.function.parameters), ...given].filter((args) => registered.validate(args).length === 0);
}

/** One call whose signal aborts after `timeoutMs`, given a second more to settle. */
function timedCall(call: Call, name: string, json: string, timeoutMs: number): Promise<CallOutcome> {
  return settle(call(name, json, AbortSignal.timeout(timeoutMs)), timeoutMs + 1000);
}

function unfitProblem(outcome: CallOutcome, timeoutMs: number): string | undefined {
  if (outcome.kind === "timeout") return `did not finish within ${timeoutMs} ms, even after its signal aborted`;
  if (outcome.kind === "threw") {
    const copy = outcome.name === "ToolError" ? " (a ToolError from a second copy of @plugboard/core: make core a peerDependency)" : "";
    return `threw ${outcome.name}: ${outcome.message}${copy}`;
  }
  const { content, isError } = outcome.value;
  if (isError && !content.startsWith("Error: ")) return `returned an error result that does not start with "Error: ": ${content.slice(0, 120)}`;
  return undefined;
}

async function abortedCall(call: Call, subject: Subject, input: AppInput, out: Finding) {
  const { name, registered } = subject;
  const slow = input.slowInputs[name];
  if (slow !== undefined && registered.validate(slow).length > 0) {
    out.problems.push(`${name}: slowInputs.${name} does not match the tool's parameters: ${JSON.stringify(slow)}`);
    return;
  }
  const args = slow ?? unfitArguments(subject.parameters).find((candidate) => registered.validate(candidate).length === 0);
  if (args === undefined) {
    out.notes.push(`${name}: no input to call it with; give slowInputs in plugboard.check.json to check that it stops when aborted`);
    return;
  }
  const json = JSON.stringify(args);
  const controller = new AbortController();
  const running = call(name, json, controller.signal);
  const early = await settle(running, input.abortAfterMs);
  if (early.kind !== "timeout") {
    if (slow === undefined) out.notes.push(`${name} finished before its signal aborted; give slowInputs (arguments that keep it busy) in plugboard.check.json to see it stop`);
    else out.notes.push(`${name}: slowInputs.${name} finished within ${input.abortAfterMs} ms, before the signal aborted`);
    return;
  }
  controller.abort();
  const late = await settle(running, input.abortWithinMs);
  if (late.kind === "timeout") {
    out.problems.push(`${name} ${json}: still running ${input.abortWithinMs} ms after its signal aborted`);
  } else if (late.kind === "threw" && late.error !== controller.signal.reason && late.name !== "AbortError") {
    out.problems.push(`${name} ${json}: threw ${late.name} when aborted (${late.message}); return a result, or rethrow the signal's reason`);
  }
}

/** The handler, counting each call first; `this` stays the definition. */
function countCalls(registered: RegisteredTool, onCall: () => void): RegisteredTool["tool"]["handler"] {
  const { tool } = registered;
  return (args, ctx) => {
    onCall();
    return tool.handler(args, ctx);
  };
}

function finding(): Finding {
  return { problems: [], notes: [] };
}
