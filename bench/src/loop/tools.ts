/**
 * The two tools every loop runs, as plain functions, and as Plugboard definitions. The
 * peers define the same two with their own schema libraries (zod) in their own files.
 */
import { defineTool, textResult } from "@plugboard/core";
import { Type } from "@sinclair/typebox";

/** What `echo` does. */
export function echoText(text: string): string {
  return text;
}

/** What `add` does. */
export function addNumbers(a: number, b: number): string {
  return String(a + b);
}

export const ECHO_DESCRIPTION = "Repeat the text.";
export const ADD_DESCRIPTION = "Add two numbers.";

/** The two tools as Plugboard tool definitions (TypeBox schemas, validated by the runtime). */
export const plugboardTools = [
  defineTool({
    name: "echo",
    description: ECHO_DESCRIPTION,
    parameters: Type.Object({ text: Type.String() }),
    handler: async ({ text }) => textResult(echoText(text)),
  }),
  defineTool({
    name: "add",
    description: ADD_DESCRIPTION,
    parameters: Type.Object({ a: Type.Number(), b: Type.Number() }),
    handler: async ({ a, b }) => textResult(addNumbers(a, b)),
  }),
];
