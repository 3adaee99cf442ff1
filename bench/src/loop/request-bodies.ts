/**
 * The request bodies a loop on the `openai` SDK sends in one run, encoded without any loop:
 * how much of a step is serializing the growing history, with a plain `JSON.stringify` and
 * with a replacer function, the way `chat.completions.create` encodes its body (the SDK
 * watches the `stream` key through the replacer).
 */
import { do_not_optimize } from "mitata";
import { PROMPT, type ScriptStep } from "./script.ts";

/** One request body per step, sharing the message objects as a real loop's history does. */
export function requestBodies(script: readonly ScriptStep[]): object[] {
  const messages: object[] = [{ role: "user", content: PROMPT }];
  const bodies: object[] = [];
  for (const step of script) {
    // The loop sends the history so far: freeze its length in a copy of the array.
    bodies.push({ model: "bench-model", messages: messages.slice(), tools: [], tool_choice: "auto" });
    if (step.kind === "answer") break;
    const call = { id: step.id, type: "function", function: { name: step.name, arguments: step.arguments } };
    messages.push({ role: "assistant", content: null, tool_calls: [call] }, { role: "tool", tool_call_id: step.id, content: step.id });
  }
  return bodies;
}

/** Encodes every body, plain or through a replacer that looks at each key. */
export function encodeAll(bodies: readonly object[], withReplacer: boolean): void {
  let streamSeen = false;
  const replacer = (key: string, value: unknown) => {
    if (key === "stream") streamSeen = value === true;
    return value;
  };
  for (const body of bodies) do_not_optimize(withReplacer ? JSON.stringify(body, replacer) : JSON.stringify(body));
  do_not_optimize(streamSeen);
}
