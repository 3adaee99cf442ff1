/**
 * Shared pieces of the web app's tests: a temp workspace, a server in-process against a
 * scripted model, chat requests, SSE parsing and the real process.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { type App, type BuildAppOptions, buildApp, loadConfig } from "@plugboard/bootstrap";
import { type ScriptedModel, type ScriptedReply, startScriptedModel } from "@plugboard/testing";
import OpenAI from "openai";
import { startWebServer, type WebServer, type WebServerOptions } from "../src/server.ts";
import { DEFAULT_CONFIG_PATH } from "../src/web-app.ts";

/** The web app's folder. */
export const WEB_DIR = join(import.meta.dir, "..");

/** A temp folder holding `files`; `remove()` deletes it. */
export async function makeWorkspace(files: Record<string, string> = {}): Promise<{ dir: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "plugboard-web-"));
  for (const [name, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, name)), { recursive: true });
    await writeFile(join(dir, name), content);
  }
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** Builds the app from a config file (the web app's own by default) with `workspace`. */
export async function buildTestApp(workspace: string, configPath = DEFAULT_CONFIG_PATH, options: BuildAppOptions = {}): Promise<App> {
  const config = await loadConfig(configPath, { overrides: { workspace }, env: {}, cwd: workspace });
  return buildApp(config, options);
}

/** A server in-process, its scripted model, and everything to clean up. */
export interface TestServer {
  readonly server: WebServer;
  readonly model: ScriptedModel;
  readonly app: App;
  readonly client: OpenAI;
  readonly workspace: string;
  readonly logs: string[];
  close(): Promise<void>;
}

/** What `startTestServer` is given: the model's script, the workspace's files, a config, and the server's options. */
export type TestServerOptions = {
  script?: readonly ScriptedReply[];
  files?: Record<string, string>;
  configPath?: string;
} & Partial<Omit<WebServerOptions, "app" | "client" | "model">>;

/**
 * Starts a scripted model, a temp workspace and the web server on a free port. Given
 * `elicitations`, the app's mounted servers' requests for input wait there.
 */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const { script = [], files = { "notes.txt": "alpha\nbeta\n" }, configPath, ...rest } = options;
  const workspace = await makeWorkspace(files);
  const model = await startScriptedModel(script);
  const app = await buildTestApp(workspace.dir, configPath, { elicit: rest.elicitations?.elicit });
  const client = new OpenAI({ baseURL: model.baseURL, apiKey: "test-key", maxRetries: 0 });
  const logs: string[] = [];
  const server = await startWebServer({ app, client, model: "scripted-model", port: 0, log: (line) => logs.push(line), ...rest });
  return {
    server,
    model,
    app,
    client,
    workspace: workspace.dir,
    logs,
    async close() {
      await server.close();
      await app.close();
      await model.close();
      await workspace.remove();
    },
  };
}

/** POSTs a chat request; `body` is sent as is when it is a string. */
export function postChat(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${url}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** A chat request body of user messages, or of `[role, content]` pairs. */
export function chat(...messages: (string | [string, string])[]): { messages: { role: string; content: string }[] } {
  return {
    messages: messages.map((message) =>
      typeof message === "string" ? { role: "user", content: message } : { role: message[0], content: message[1] },
    ),
  };
}

/** One server-sent event. */
export interface SseEvent {
  readonly event: string;
  readonly data: Record<string, unknown>;
}

/** Reads a whole event stream. */
export async function readSse(response: Response): Promise<SseEvent[]> {
  const text = await response.text();
  return text
    .split("\n\n")
    .filter((block) => block.split("\n").some((line) => line.startsWith("data: ")))
    .map((block) => {
      const lines = block.split("\n");
      const event = lines.find((line) => line.startsWith("event: "))?.slice(7) ?? "message";
      const data = lines.filter((line) => line.startsWith("data: ")).map((line) => line.slice(6));
      return { event, data: JSON.parse(data.join("\n")) as Record<string, unknown> };
    });
}

/** The JSON body of an API answer, as the tests read it. */
export interface ApiBody {
  readonly reply?: string;
  readonly status?: string;
  readonly toolCalls?: readonly { readonly name: string; readonly arguments: string; readonly isError: boolean }[];
  readonly cutOff?: boolean;
  readonly error?: string;
  readonly endpointStatus?: number;
  readonly ok?: boolean;
}

/** Reads an API answer's JSON body. */
export async function bodyOf(response: Response): Promise<ApiBody> {
  return (await response.json()) as ApiBody;
}
