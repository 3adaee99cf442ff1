/**
 * A mounted MCP server's request for input, asked at the terminal: the server's message,
 * then one line per field of its form (its title, what it takes, its default), each answer
 * checked against the requested schema and asked again when it does not fit. Through the
 * approvals' terminal reads, so Ctrl-C cancels the turn and a hangup ends the process as
 * at an approval. Without a terminal there is no one to ask, and the request is declined.
 */
import type { ElicitationAnswer, ElicitationRequest, Elicitor, FieldValue, FormField } from "@plugboard/mcp";
import { lazily, visible } from "@plugboard/core/internal";
import type { Screen } from "./approvals.ts";
import type { Io } from "./io.ts";

/** Who answers the servers' requests in this process, and the turn they interrupt. */
export interface Elicitation {
  /** Declines without a terminal: there is no one to ask. */
  readonly elicit: Elicitor;
  /** While a turn runs: its screen pauses for a question, and its end (Ctrl-C) cancels one. */
  during(screen: Screen, signal: AbortSignal): Disposable;
}

const QUIET: Screen = { pause() {}, resume() {} };

/** Asks at the terminal when stdin and stderr are one; else declines. */
export function createElicitation(io: Io): Elicitation {
  let turn: { screen: Screen; signal: AbortSignal } | undefined;
  let queue: Promise<unknown> = Promise.resolve();
  // Looked at when a server first asks: reading stdin's kind loads Node's terminal and stream modules, which most commands never need.
  let terminal: boolean | undefined;
  const elicit: Elicitor = (request, serverSignal) => {
    terminal ??= io.stdin.isTTY === true && io.stderr.isTTY === true;
    if (!terminal) return Promise.resolve({ action: "decline" as const });
    // One question at a time, in the order the servers asked.
    const answer = queue.then(async () => {
      const screen = turn?.screen ?? QUIET;
      const signal = turn === undefined ? serverSignal : AbortSignal.any([serverSignal, turn.signal]);
      if (signal.aborted) return { action: "cancel" as const };
      screen.pause();
      try {
        return await askForm(request, io, signal);
      } catch (error) {
        if (signal.aborted) return { action: "cancel" as const };
        throw error;
      } finally {
        screen.resume();
      }
    });
    queue = answer.catch(() => {});
    return answer;
  };
  return {
    elicit,
    during(screen, signal) {
      turn = { screen, signal };
      return {
        [Symbol.dispose]() {
          turn = undefined;
        },
      };
    },
  };
}

async function askForm(request: ElicitationRequest, io: Io, signal: AbortSignal): Promise<ElicitationAnswer> {
  // Loaded when a server asks: a command no server asks anything (most) loads neither.
  const [elicitation, terminal] = await Promise.all([
    lazily("the MCP elicitation forms", () => import("@plugboard/mcp/elicitation")),
    lazily("the terminal's prompts", () => import("./terminal-input.ts")),
  ]);
  // One keyboard for the whole form: an answer typed as the next field's prompt comes is that field's, whatever the timing.
  return terminal.withKeyboard(io.stdin, io.stderr, () => askFields(request, io, signal, elicitation, terminal));
}

async function askFields(
  request: ElicitationRequest,
  io: Io,
  signal: AbortSignal,
  { parseField, fieldProblems, answerProblems }: typeof import("@plugboard/mcp/elicitation"),
  { readKey, readLine }: typeof import("./terminal-input.ts"),
): Promise<ElicitationAnswer> {
  const { style } = io;
  const key = await readKey(io.stdin, ["a", "d", "c"], signal, () => {
    io.stderr.write(`${style.tool(`MCP server ${visible(request.server)} asks:`)} ${visible(request.message)}\n`);
    io.stderr.write(`${style.dim("[a] answer  [d] decline  [c] cancel")} › `);
  }).catch((error: unknown) => {
    io.stderr.write("cancelled\n");
    throw error;
  });
  if (key === "d" || key === "c") {
    io.stderr.write(key === "d" ? "declined\n" : "cancelled\n");
    return { action: key === "d" ? "decline" : "cancel" };
  }
  io.stderr.write("answer\n");
  for (;;) {
    const content: Record<string, FieldValue> = {};
    for (const field of request.fields) {
      if (field.description !== undefined) io.stderr.write(`  ${style.dim(visible(field.description))}\n`);
      for (;;) {
        const parsed = parseField(field, await readLine(io.stdin, io.stderr, `  ${visible(field.title)} ${style.dim(`(${visible(hint(field))})`)} › `, signal));
        const problems = "problem" in parsed ? [`${field.name}: ${parsed.problem}`] : fieldProblems(request, field, parsed.value);
        if (problems.length === 0) {
          if ("value" in parsed && parsed.value !== undefined) content[field.name] = parsed.value;
          break;
        }
        io.stderr.write(`  ${style.dim(`${problems.map(visible).join("; ")}; try again`)}\n`);
      }
    }
    // Each field fits on its own; a schema may still say more about them together.
    const problems = answerProblems(request, content);
    if (problems.length === 0) return { action: "accept", content };
    io.stderr.write(`  ${style.dim(`${problems.map(visible).join("; ")}; once more`)}\n`);
  }
}

/** What a field takes, in the prompt: `required, integer`, `1 red, 2 green`, `y/n, default n` (the server's labels, format and default as it wrote them). */
function hint(field: FormField): string {
  const parts: string[] = [];
  if (field.required) parts.push("required");
  if (field.type === "choice" || field.type === "choices") {
    parts.push((field.options ?? []).map((option, index) => `${index + 1} ${option.label}`).join(", "));
    if (field.type === "choices") parts.push("several, with commas");
  } else if (field.type === "boolean") {
    parts.push("y/n");
  } else if (field.type !== "string" || field.format !== undefined) {
    parts.push(field.format ?? field.type);
  }
  if (field.default !== undefined) parts.push(`default ${field.type === "boolean" ? (field.default === true ? "y" : "n") : String(field.default)}`);
  return parts.length === 0 ? "text" : parts.join(", ");
}
