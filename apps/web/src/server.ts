/**
 * The web server's lifecycle. It receives the app (runtime) and the model client, built once
 * by the caller, and shares them with every request; each request gets its own messages.
 * `close()` stops accepting, aborts every turn in flight and waits for them to end.
 */
import { type App, withheldLine } from "@plugboard/bootstrap";
import { examplePrompts } from "@plugboard/agent";
import { visible } from "@plugboard/core/internal";
import type { ToolRuntime } from "@plugboard/runtime";
import type OpenAI from "openai";
import { PendingApprovals } from "./approvals.ts";
import { checkBinding } from "./binding.ts";
import { PendingElicitations } from "./elicitations.ts";
import type { ChatHandlerContext, TurnInput } from "./chat-handler.ts";
import { DEFAULT_MAX_BODY_BYTES } from "./chat-request.ts";
import { type ChatTurnResult, runChatTurn } from "./chat-turn.ts";
import { createHttpApp, type PageInfo } from "./http-app.ts";
import { loadChatPage } from "./page.ts";

/** The port used when none is given. */
export const DEFAULT_PORT = 8787;
/** The address used when none is given: loopback only. */
export const DEFAULT_HOST = "127.0.0.1";
/** The system message used when the config sets none. */
export const DEFAULT_SYSTEM_PROMPT =
  "You are a helpful assistant in a web chat. Use the tools to look at the files of the workspace when the question needs them, and answer concisely.";

/** Options of `startWebServer`. */
export interface WebServerOptions {
  /** The built app; its runtime serves every request. */
  readonly app: App;
  /** The model client; shared by every request. */
  readonly client: OpenAI;
  /** The model name sent with each request. */
  readonly model: string;
  /** Whether an API key was set (a 401 then reads as a refused key, else as a missing one). @default true */
  readonly apiKeySet?: boolean;
  /** Whether the offline demo model answers (the page says so). @default false */
  readonly demo?: boolean;
  /** 0 picks a free port. @default 8787 */
  readonly port?: number;
  /** Any non-loopback address needs `token`. @default "127.0.0.1" */
  readonly host?: string;
  /** When set, the API requires `Authorization: Bearer TOKEN`. @default undefined */
  readonly token?: string | undefined;
  /** @default app.config.systemPrompt, else DEFAULT_SYSTEM_PROMPT */
  readonly systemPrompt?: string | undefined;
  /** @default app.config.maxSteps */
  readonly maxSteps?: number;
  /** @default 1 MiB */
  readonly maxBodyBytes?: number;
  /** Where unexpected failures are reported. @default a line on stderr */
  readonly log?: (line: string) => void;
  /** Where the app's mounted servers' requests for input wait (the app built with its `elicit`). @default none: they are declined */
  readonly elicitations?: PendingElicitations;
  /** The config file a grant given on the page after a sandbox refusal may be saved to. @default none: once or for the session only */
  readonly grantsSaveTo?: string;
}

/** What the server has done so far; live values. */
export interface WebServerStats {
  /** Chat turns started. */
  readonly turns: number;
  /** Turns running now. */
  readonly inFlight: number;
  /** Turns stopped by shutdown or by their client going away. */
  readonly aborted: number;
  /** Every runtime a turn ran with (one, when the runtime is shared). */
  readonly runtimes: ReadonlySet<ToolRuntime>;
  /** Every model client a turn used (one, when the client is shared). */
  readonly clients: ReadonlySet<OpenAI>;
  /** Tool calls waiting now for an answer from the page. */
  readonly approvalsWaiting: number;
}

/** A running web server. */
export interface WebServer {
  /** Such as `http://127.0.0.1:8787`. */
  readonly url: string;
  readonly stats: WebServerStats;
  /** Stops accepting, aborts the turns in flight and waits for them. Safe to call twice. */
  close(): Promise<void>;
}

/**
 * Starts the server. Throws `PlugboardError` (`USAGE`) for a non-loopback host without a token.
 *
 * @example const server = await startWebServer({ app, client, model: app.config.model.name, port: 0 });
 */
export async function startWebServer(options: WebServerOptions): Promise<WebServer> {
  const { app, client, model } = options;
  const host = options.host ?? DEFAULT_HOST;
  checkBinding(host, options.token);
  const page = await loadChatPage();
  const shutdown = new AbortController();
  const approvals = new PendingApprovals(options.grantsSaveTo);
  const stats = {
    turns: 0,
    inFlight: 0,
    aborted: 0,
    runtimes: new Set<ToolRuntime>(),
    clients: new Set<OpenAI>(),
    get approvalsWaiting() {
      return approvals.size;
    },
  };
  const tasks = new Set<Promise<unknown>>();
  const turn = {
    runtime: app.runtime,
    client,
    model,
    maxSteps: options.maxSteps ?? app.config.maxSteps,
    systemPrompt: options.systemPrompt ?? app.config.systemPrompt ?? DEFAULT_SYSTEM_PROMPT,
  };

  const runTurn = (input: TurnInput): Promise<ChatTurnResult> => {
    stats.turns++;
    stats.inFlight++;
    stats.runtimes.add(turn.runtime);
    stats.clients.add(turn.client);
    const task = runChatTurn({ ...turn, ...input });
    tasks.add(task);
    const settle = (aborted: boolean) => {
      stats.inFlight--;
      if (aborted) stats.aborted++;
      tasks.delete(task);
    };
    task.then((result) => settle(result.status === "aborted"), () => settle(false));
    return task;
  };
  const log = options.log ?? ((line: string) => process.stderr.write(`${visible(line)}\n`));
  const chat: ChatHandlerContext = {
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    endpoint: { baseURL: client.baseURL, model, apiKeySet: options.apiKeySet !== false },
    secrets: typeof client.apiKey === "string" ? [client.apiKey] : [],
    approvals,
    elicitations: options.elicitations ?? new PendingElicitations(),
    shutdown: shutdown.signal,
    runTurn,
    log,
  };

  // A tool its pin withholds (changed, new, or flagged by the description scan) is said on the page, as at the CLI's start.
  const withheld = app.pinning.withheld.map((change) => withheldLine(change, app.pinning.lockPath));
  const info: PageInfo = { model, demo: options.demo === true, examples: examplePrompts(app.registry.names()), withheld };
  const http = createHttpApp({ page, token: options.token, chat, info, log });
  const server = Bun.serve({
    hostname: host,
    port: options.port ?? DEFAULT_PORT,
    // A turn may think for minutes before its first byte; the SDK's own timeout bounds it.
    idleTimeout: 0,
    fetch: http.fetch,
  });

  let closing: Promise<void> | undefined;
  const close = async (): Promise<void> => {
    const stopped = server.stop();
    shutdown.abort();
    await Promise.allSettled([...tasks]);
    await stopped;
  };
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${server.port}`,
    stats,
    close: () => {
      closing ??= close();
      return closing;
    },
  };
}
