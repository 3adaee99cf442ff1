/**
 * A conversation with the model: one messages array (system message first) that every turn
 * extends, and `runTurn`, which runs the agent loop for one user request and reports it.
 */
import { type App, type ModelClient, PlugboardError } from "@plugboard/bootstrap";
import { describeModelFailure, type AgentLoopResult, runAgentLoop } from "@plugboard/agent";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { type Approvals, approverFor } from "./approvals.ts";
import type { ConversationFile } from "./conversations.ts";
import type { Elicitation } from "./elicitation.ts";
import { SHIPPED_CONFIG } from "./load-app.ts";
import type { Io } from "./io.ts";

/** The events after which the conversation may hold a message more: the user's before a request, the model's, a tool's. */
const KEPT_AT: ReadonlySet<string> = new Set(["model_request", "assistant_message", "tool_result"]);
import { createReporter } from "./reporter.ts";

/** What `run` and the interactive session say when the model answered nothing usable (`run` exits 3). */
export const EMPTY_ANSWER =
  "the model answered with neither text nor a tool call; check that the model and endpoint support tool calls (MODEL or --model, BASE_URL or --base-url)";

/** What `run` and the interactive session say after an answer the model's output limit cut off (the text is printed as it came). */
export const CUT_OFF =
  'the answer was cut off at the model\'s output limit (finish_reason "length"); ask for a shorter answer, or raise the limit where the endpoint allows it';

export interface Session {
  readonly app: App;
  readonly model: ModelClient;
  /** Who answers the policy's asks (what "always" answers allow, the runtime remembers). */
  readonly approvals: Approvals;
  /** The whole conversation, kept across turns. */
  readonly messages: ChatCompletionMessageParam[];
  /** Who answers the mounted servers' requests for input during a turn. */
  readonly elicitation?: Elicitation;
  /** The model asked, when the session switched from the config's (`/model NAME`). */
  readonly modelName?: string;
  /** Where the conversation is kept as it grows (the interactive session's). */
  readonly kept?: ConversationFile;
}

/** Writes what the conversation gained (messages, its taint) to its kept file, when it has one. */
export function keepConversation(session: Session, io: Io): void {
  session.kept?.keep(session.messages, session.app.runtime.taint(), (message) => io.note(message));
}

/** A new conversation, opened by the config's `systemPrompt` or a default naming the workspace. */
export function createSession(app: App, model: ModelClient, approvals: Approvals, elicitation?: Elicitation): Session {
  const system =
    app.config.systemPrompt ??
    `You are a coding agent working in the folder ${app.workspace.root}. Use the tools to inspect and change files there; act rather than explain, and answer briefly.`;
  return { app, model, approvals, messages: [{ role: "system", content: system }], ...(elicitation ? { elicitation } : {}) };
}

/** How a turn reports: text (answer on stdout, trace on stderr) or JSON events. */
export interface TurnOptions {
  readonly signal: AbortSignal;
  readonly json: boolean;
}

/**
 * Runs one turn. A failing model endpoint becomes a `PlugboardError` (`MODEL_ENDPOINT`) whose
 * message is one line; any other error propagates unchanged.
 */
export async function runTurn(session: Session, prompt: string, io: Io, options: TurnOptions): Promise<AgentLoopResult> {
  const { app, model, messages, approvals } = session;
  messages.push({ role: "user", content: prompt });
  const reporter = createReporter(io, options.json);
  const started = performance.now();
  let inRequest = false;
  const editable = app.config.configPath !== SHIPPED_CONFIG;
  const approve = approverFor(approvals, io, reporter, editable ? { config: { path: app.config.configPath, policy: app.config.policy } } : {});
  using _asking = session.elicitation?.during(reporter, options.signal);
  try {
    const result = await runAgentLoop({
      messages,
      runtime: app.runtime,
      client: model.client,
      model: session.modelName ?? app.config.model.name,
      maxSteps: app.config.maxSteps,
      signal: options.signal,
      // Always streamed: the answer shows as it arrives, and there is one code path to test.
      stream: true,
      toolProgress: reporter.showsProgress,
      ...(approve ? { approve } : {}),
      onEvent(event) {
        if (event.type === "model_request") inRequest = true;
        if (event.type === "assistant_message") inRequest = false;
        reporter.event(event);
        // Each message is kept as it enters the conversation, so a crash loses nothing before it
        // (not at each streamed piece of text: those add no message).
        if (KEPT_AT.has(event.type)) keepConversation(session, io);
      },
    });
    keepConversation(session, io);
    reporter.finish(result, Math.round(performance.now() - started));
    return result;
  } catch (error) {
    reporter.abandon();
    const failure = describeModelFailure(error, { ...model.endpoint, apiKeySet: model.apiKeySet }, inRequest);
    if (failure === undefined) throw error;
    throw new PlugboardError("MODEL_ENDPOINT", failure.message, { cause: error });
  }
}
