/**
 * Shows a turn as it happens. Text mode: the answer on stdout (on a terminal rendered as
 * Markdown, a block at a time as it arrives; otherwise written once at the end as it came,
 * byte for byte), a trace line per tool call and a waiting indicator on stderr, and the
 * model's reasoning, dimmed, on stderr as it arrives. What the model wrote reaches a terminal
 * with its control characters written out (`\x1b`). JSON mode: one event per line on stdout.
 */
import { lazilySync, visible } from "@plugboard/core/internal";
import type { AgentEvent, AgentLoopResult } from "@plugboard/agent";
import type { Io } from "./io.ts";
import { keepTail, jsonLine, outputTail, traceLine, usageLine } from "./output.ts";
import { createSpinner } from "./spinner.ts";

/** The spinner's label while a block of the answer is being written. */
const WRITING = "writing";

export interface Reporter {
  /** Whether it shows a running tool's output (`tool_progress` events): on a terminal's stderr, in text mode. */
  readonly showsProgress: boolean;
  event(event: AgentEvent): void;
  /** The turn ended; prints what is left of the answer. */
  finish(result: AgentLoopResult, durationMs: number): void;
  /** The turn failed; clears anything transient. */
  abandon(): void;
  /** A prompt takes the terminal: the spinner stops and trace lines wait until `resume`. */
  pause(): void;
  resume(): void;
}

/** A reporter for text or JSON output. */
export function createReporter(io: Io, json: boolean): Reporter {
  return json ? jsonReporter(io) : textReporter(io);
}

function jsonReporter(io: Io): Reporter {
  const write = (line: string) => io.stdout.write(line);
  return {
    showsProgress: false,
    event(event) {
      if (event.type === "reasoning") write(jsonLine({ type: "reasoning", step: event.step, text: event.text }));
      if (event.type === "tool_call") {
        write(jsonLine({ type: "tool_call", id: event.id, name: event.name, arguments: event.arguments }));
      }
      if (event.type === "tool_result") {
        const redactions = event.redactions === undefined ? {} : { redactions: event.redactions };
        write(jsonLine({ type: "tool_result", id: event.id, is_error: event.isError, content: event.content, ...redactions }));
      }
    },
    finish(result, durationMs) {
      write(
        jsonLine({
          type: "final",
          status: result.status,
          text: result.text,
          steps: result.steps,
          duration_ms: durationMs,
          ...(result.cutOff ? { cut_off: true } : {}),
          ...(result.usage === undefined ? {} : { usage: { prompt_tokens: result.usage.promptTokens, completion_tokens: result.usage.completionTokens } }),
        }),
      );
    },
    abandon() {},
    pause() {},
    resume() {},
  };
}

const markdown = () => lazilySync("the Markdown renderer", () => require("./markdown.ts") as typeof import("./markdown.ts"));

/**
 * An answer of the model as stdout shows it: on a terminal rendered Markdown (the renderer
 * loaded on the first answer, so piped output never pays for it), piped the text as written.
 */
export function answerRenderer(io: Io): { readonly live: boolean; readonly rendered: (text: string) => string; readonly answer: (text: string) => string } {
  const live = io.stdout.isTTY === true;
  let render: ((markdown: string) => string) | undefined;
  const rendered = (text: string) => {
    render ??= markdown().markdownRenderer({
      columns: io.stdout.columns ?? 80,
      colour: (io.env.NO_COLOR ?? "") === "",
    });
    return render(text);
  };
  return { live, rendered, answer: (text) => (live ? rendered(text) : text) };
}

function textReporter(io: Io): Reporter {
  const { live, rendered, answer } = answerRenderer(io);
  let blocks: { push(text: string): string; end(): string } | undefined;
  const realSpinner = createSpinner(io.stderr, io.style.dim);
  // While a prompt is open nothing else writes: the spinner's label and trace lines wait.
  let paused = false;
  let label: string | undefined;
  const held: string[] = [];
  // The output of running calls, by call id, for the lines under the spinner.
  const outputs = new Map<string, string>();
  const spinner = {
    start(text: string) {
      label = text;
      if (!paused) realSpinner.start(text);
    },
    tail(lines: readonly string[]) {
      if (!paused) realSpinner.tail(lines);
    },
    stop() {
      label = undefined;
      realSpinner.stop();
    },
  };
  const trace = (line: string) => {
    if (paused) held.push(line);
    else io.stderr.write(line);
  };
  const calls = new Map<string, { name: string; arguments: string }>();
  // Whether the current step's text was already streamed to the terminal.
  let streamed = false;
  // Whether reasoning was shown and its line is still open on stderr.
  let reasoningOpen = false;
  const closeReasoning = () => {
    if (reasoningOpen) io.stderr.write("\n");
    reasoningOpen = false;
  };
  let endsWithNewline = true;
  const print = (text: string) => {
    if (text === "") return;
    io.stdout.write(text);
    endsWithNewline = text.endsWith("\n");
  };
  // The rest of a streamed answer, its last block rendered now.
  const endBlocks = () => {
    if (blocks !== undefined) print(blocks.end());
    blocks = undefined;
    if (streamed && !endsWithNewline) print("\n");
  };
  return {
    showsProgress: io.stderr.isTTY === true,
    event(event) {
      switch (event.type) {
        case "model_request":
          streamed = false;
          blocks = undefined;
          spinner.start("waiting for the model");
          return;
        case "reasoning_delta":
          spinner.stop();
          io.stderr.write(io.style.dim(visible(event.text)));
          reasoningOpen = !event.text.endsWith("\n");
          return;
        case "text_delta": {
          closeReasoning();
          if (!live) {
            spinner.stop();
            return;
          }
          streamed = true;
          blocks ??= markdown().markdownStream(rendered);
          const done = blocks.push(event.text);
          if (done !== "") {
            spinner.stop();
            print(done);
          }
          // A block being written is held until it is complete: the spinner says so meanwhile.
          if (label !== WRITING) spinner.start(WRITING);
          return;
        }
        case "assistant_message":
          spinner.stop();
          closeReasoning();
          endBlocks();
          return;
        case "tool_call":
          calls.set(event.id, { name: event.name, arguments: event.arguments });
          spinner.start(`running ${event.name}`);
          return;
        case "tool_progress": {
          const output = keepTail(outputs.get(event.id) ?? "", event.text);
          outputs.set(event.id, output);
          spinner.tail(outputTail(output, io.stderr.columns ?? 80));
          return;
        }
        case "tool_result": {
          outputs.delete(event.id);
          spinner.stop();
          const call = calls.get(event.id) ?? { name: event.name, arguments: "" };
          trace(`${traceLine({ ...call, content: event.content, isError: event.isError, redactions: event.redactions }, io.style)}\n`);
        }
      }
    },
    finish(result) {
      spinner.stop();
      endBlocks();
      if (!streamed && result.text !== "") {
        const text = answer(result.text);
        print(text.endsWith("\n") ? text : `${text}\n`);
      }
      // The turn's token usage, for a person at a terminal.
      if (result.usage !== undefined && io.stderr.isTTY === true) io.stderr.write(`${io.style.dim(usageLine(result.usage))}\n`);
    },
    abandon() {
      spinner.stop();
      endBlocks();
      if (!endsWithNewline) print("\n");
    },
    pause() {
      paused = true;
      realSpinner.stop();
      // Streamed text that has not ended its line would run into the prompt.
      if (!endsWithNewline) print("\n");
    },
    resume() {
      paused = false;
      for (const line of held.splice(0)) io.stderr.write(line);
      if (label !== undefined) realSpinner.start(label);
    },
  };
}
