/**
 * The conversation every loop runs: `steps` model requests; each but the last proposes one
 * tool call (alternating between the two tools), the last answers. The same script drives
 * Plugboard, the hand-written floor and both peers, each through its own model interface.
 */

/** One scripted model reply. */
export type ScriptStep =
  | { readonly kind: "call"; readonly id: string; readonly name: "echo" | "add"; readonly arguments: string }
  | { readonly kind: "answer"; readonly text: string };

/** The text of the final answer. */
export const ANSWER = "All steps done.";

/** The first (user) message of every run. */
export const PROMPT = "Run the steps.";

/** The script of a run of `steps` model requests (`steps - 1` tool calls, then the answer). */
export function conversation(steps: number): ScriptStep[] {
  const script: ScriptStep[] = [];
  for (let step = 1; step < steps; step++) {
    const id = `call_${step}`;
    script.push(
      step % 2 === 1
        ? { kind: "call", id, name: "echo", arguments: JSON.stringify({ text: `step ${step}` }) }
        : { kind: "call", id, name: "add", arguments: JSON.stringify({ a: step, b: 1 }) },
    );
  }
  script.push({ kind: "answer", text: ANSWER });
  return script;
}

/** The result the tool of `step` must return, to check a loop ran the tools for real. */
export function expectedResult(step: ScriptStep): string | undefined {
  if (step.kind === "answer") return undefined;
  const args = JSON.parse(step.arguments) as { text?: string; a?: number; b?: number };
  return step.name === "echo" ? String(args.text) : String(Number(args.a) + Number(args.b));
}

/** What a loop reports after a run, checked once per loop against the script. */
export interface LoopOutcome {
  readonly requests: number;
  readonly toolResults: number;
  readonly lastToolResult: string | undefined;
  readonly answer: string;
}

/** Throws unless `outcome` is what running `script` must produce. */
export function checkOutcome(label: string, script: readonly ScriptStep[], outcome: LoopOutcome): void {
  const calls = script.filter((step) => step.kind === "call");
  const last = calls.at(-1);
  const expected: LoopOutcome = {
    requests: script.length,
    toolResults: calls.length,
    lastToolResult: last ? expectedResult(last) : undefined,
    answer: ANSWER,
  };
  if (JSON.stringify(outcome) !== JSON.stringify(expected)) {
    throw new Error(`${label} did not run the script: got ${JSON.stringify(outcome)}, expected ${JSON.stringify(expected)}`);
  }
}
