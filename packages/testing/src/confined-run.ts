/**
 * The confined run: the plugin served by a `plugboard` (`plugboard mcp --yes`, on stdio) from a
 * config that lists only it, with `"sandbox": "required"` and exactly the grants its manifest
 * declares, so that an app's sandbox and plugin host run it; each unfit call is made again,
 * and the calls the sandbox refused are collected. The kit speaks the few JSON-RPC messages
 * this takes itself (initialize, tools/call, cancel), so it needs no MCP library.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { FoundPlugboard } from "./find-plugboard.ts";
import type { ToolCall } from "./harness-protocol.ts";

/** What a confined host answers for an operation the kernel refused (see @plugboard/hosts). */
export const REFUSED = "Error: Refused by the sandbox";

/** A confined call answered `Error: Refused by the sandbox …`: the call, and the result's text. */
export interface Refusal extends ToolCall {
  readonly content: string;
}

/** How the run went: the refusals; or the sandbox this system lacks; or why plugboard did not serve the plugin. */
export type ConfinedOutcome = { readonly refusals: readonly Refusal[] } | { readonly unavailable: string } | { readonly failed: string };

/** Where and how to run the plugin confined. */
export interface ConfinedPlace {
  /** The plugin's folder. */
  readonly root: string;
  readonly workspace: string;
  /** A folder for the config and plugboard's records. */
  readonly ioDir: string;
  /** The grants: what its manifest asks for or offers to use. */
  readonly permissions: readonly string[];
  readonly options: unknown;
  readonly calls: readonly ToolCall[];
  readonly callTimeoutMs: number;
  /** For the whole run; then plugboard is killed. */
  readonly timeoutMs: number;
}

/** Runs the plugin confined with `plugboard` and makes `place.calls`. */
export async function runConfined(plugboard: FoundPlugboard, place: ConfinedPlace): Promise<ConfinedOutcome> {
  const configPath = join(place.ioDir, "plugboard.confined.json");
  const entry = { path: place.root, permissions: place.permissions, options: place.options };
  await writeFile(configPath, JSON.stringify({ workspace: place.workspace, sandbox: "required", plugins: [entry] }));
  const child = Bun.spawn([...plugboard.command, "mcp", "--yes", "--config", configPath], {
    cwd: place.workspace,
    // The app's own records (the files plugins may write, in its state folder) stay in the check's folder.
    env: { ...process.env, NO_COLOR: "1", XDG_STATE_HOME: join(place.ioDir, "state") },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  const deadline = setTimeout(() => child.kill("SIGKILL"), place.timeoutMs);
  const stderr = textOf(child.stderr);
  const server = new JsonRpc(child);
  try {
    const started = await server.request("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "@plugboard/testing", version: "1" } }, 60_000);
    if (started === undefined) {
      // No answer: it ended (most often), or it does not serve; either way, nothing will be served.
      if (child.exitCode === null) child.kill("SIGKILL");
      return notServed(await child.exited, await stderr.done());
    }
    server.notify("notifications/initialized", {});
    const refusals: Refusal[] = [];
    for (const call of place.calls) {
      const answer = await server.request("tools/call", { name: call.tool, arguments: JSON.parse(call.arguments) }, place.callTimeoutMs + 1000);
      const content = textContent(answer);
      if (content?.startsWith(REFUSED)) refusals.push({ ...call, content });
    }
    return { refusals };
  } finally {
    clearTimeout(deadline);
    server.end();
    const exited = await Promise.race([child.exited.then(() => true), Bun.sleep(5000).then(() => false)]);
    if (!exited) child.kill("SIGKILL");
  }
}

/** Why plugboard ended before serving: this system's missing sandbox, or its own message. */
function notServed(code: number, stderr: string): ConfinedOutcome {
  const lacks = /\bthis system lacks (.+?)\.?$/m.exec(stderr);
  if (lacks) return { unavailable: `this system lacks ${lacks[1]}` };
  // Its own message, without the lines that name the check's temp config.
  const lines = stderr.replace(/^plugboard: /, "").trim().split("\n").filter((line) => !line.trimStart().startsWith("config: "));
  const message = lines.slice(0, 3).map((line) => line.trim()).join(" ");
  return { failed: message === "" ? `plugboard mcp ended (exit code ${code}) before it served the plugin` : message };
}

/** A result's text, when `answer` is a tools/call result. */
function textContent(answer: unknown): string | undefined {
  const content = isObject(answer) && Array.isArray(answer.content) ? answer.content[0] : undefined;
  return isObject(content) && typeof content.text === "string" ? content.text : undefined;
}

/** Requests and notifications over a child's stdin and stdout, one JSON message a line. */
class JsonRpc {
  readonly #child: Bun.Subprocess<"pipe", "pipe", "pipe">;
  readonly #waiting = new Map<number, (result: unknown) => void>();
  #next = 1;

  constructor(child: Bun.Subprocess<"pipe", "pipe", "pipe">) {
    this.#child = child;
    void this.#read();
  }

  /** Sends a request; its result, or undefined when there is none in `ms` (it is then cancelled) or the process ended. */
  request(method: string, params: unknown, ms: number): Promise<unknown> {
    const id = this.#next++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(id);
        this.notify("notifications/cancelled", { requestId: id, reason: `no answer within ${ms} ms` });
        resolve(undefined);
      }, ms);
      this.#waiting.set(id, (result) => {
        clearTimeout(timer);
        resolve(result);
      });
      this.#send({ jsonrpc: "2.0", id, method, params });
    });
  }

  notify(method: string, params: unknown): void {
    this.#send({ jsonrpc: "2.0", method, params });
  }

  /** Closes its stdin: plugboard mcp then stops serving. */
  end(): void {
    try {
      this.#child.stdin.end();
    } catch {
      // Already closed: the process ended.
    }
  }

  #send(message: unknown): void {
    try {
      this.#child.stdin.write(`${JSON.stringify(message)}\n`);
      this.#child.stdin.flush();
    } catch {
      // The process ended: what waits is answered when its output ends.
    }
  }

  async #read(): Promise<void> {
    const decoder = new TextDecoder();
    let buffered = "";
    try {
      for await (const chunk of this.#child.stdout) {
        buffered += decoder.decode(chunk, { stream: true });
        for (let end = buffered.indexOf("\n"); end !== -1; end = buffered.indexOf("\n")) {
          this.#answer(buffered.slice(0, end));
          buffered = buffered.slice(end + 1);
        }
      }
    } finally {
      // Its output ended: nothing more will be answered.
      for (const resolve of this.#waiting.values()) resolve(undefined);
      this.#waiting.clear();
    }
  }

  #answer(line: string): void {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      return;
    }
    // Only answers: a request of the server's own (it has a method) is not one, whatever its id.
    if (!isObject(message) || typeof message.id !== "number" || "method" in message) return;
    const resolve = this.#waiting.get(message.id);
    this.#waiting.delete(message.id);
    resolve?.(message.result);
  }
}

/** The whole text of a stream, once it ends. */
function textOf(stream: ReadableStream<Uint8Array>): { done(): Promise<string> } {
  const text = new Response(stream).text().catch(() => "");
  return { done: () => text };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}
