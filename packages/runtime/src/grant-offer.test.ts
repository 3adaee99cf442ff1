import { expect, test } from "bun:test";
import { tmpdir } from "node:os";
import { Type } from "@sinclair/typebox";
import { defineTool, errorResult, textResult, type ToolContext, ToolRegistry, type ToolResult, Workspace } from "@plugboard/core";
import type { GrantScope, MissingGrant, RegistryEntry, ToolSource } from "@plugboard/core/internal";
import { type ApprovalAnswer, type ApprovalRequest, type Approver, approveAll } from "./approval.ts";
import type { AuditRecord } from "./audit.ts";
import { describeGrant } from "./grant-offer.ts";
import { ToolRuntime } from "./runtime.ts";

/** A source whose calls are refused for lack of network unless run with it, as a confined host's are. */
class RefusingSource implements ToolSource {
  readonly owner = "fetcher";
  readonly entries: RegistryEntry[];
  readonly granted: { grant: MissingGrant; scope: GrantScope }[] = [];
  readonly #refused = new WeakSet<ToolResult>();

  constructor() {
    const tool = defineTool({ name: "fetch", description: "Fetch.", parameters: Type.Object({ url: Type.String() }), handler: async () => textResult("never run here") });
    this.entries = [{ tool, owner: "fetcher", source: this }];
  }

  async call(): Promise<ToolResult> {
    const result = errorResult("could not resolve host");
    this.#refused.add(result);
    return result;
  }

  missingGrant(result: ToolResult): MissingGrant | undefined {
    return this.#refused.has(result) ? { permission: "network" } : undefined;
  }

  async callGranted(_tool: string, args: Record<string, unknown>, _ctx: ToolContext, grant: MissingGrant, scope: GrantScope): Promise<ToolResult> {
    this.granted.push({ grant, scope });
    return textResult(`fetched ${String(args.url)}`);
  }

  warm(): void {}
  async close(): Promise<void> {}
}

async function setup() {
  const source = new RefusingSource();
  const records: AuditRecord[] = [];
  const runtime = new ToolRuntime(new ToolRegistry(source.entries), { workspace: await Workspace.open(tmpdir()), audit: (record) => records.push(record) });
  return { source, records, runtime };
}

test("a refused call is offered to the person with the grant it lacked; the answer's scope runs it again with it, and the audit says so", async () => {
  const { source, records, runtime } = await setup();
  const asked: ApprovalRequest[] = [];
  const approve: Approver = async (request) => {
    asked.push(request);
    return { decision: "allow", grant: "session" };
  };
  const result = await runtime.execute("fetch", '{"url":"https://example.com"}', { callId: "c1", approve });
  expect(result).toEqual(textResult("fetched https://example.com"));
  expect(asked).toEqual([{ id: "c1", tool: "fetch", arguments: { url: "https://example.com" }, refused: { owner: "fetcher", grant: { permission: "network" } } }]);
  expect(source.granted).toEqual([{ grant: { permission: "network" }, scope: "session" }]);
  expect(records.map(({ granted }) => granted)).toEqual([{ permission: "network", scope: "session" }]);
});

test("no one to ask, --yes, an answer without a grant or a denial: the refusal stays and nothing runs again", async () => {
  const { source, records, runtime } = await setup();
  const refused = errorResult("could not resolve host");
  // --yes at a terminal asks a person about tainted calls only: it is not offered a grant either, though it would give one.
  const yesAtATerminal = Object.assign(async (): Promise<ApprovalAnswer> => ({ decision: "allow", grant: "session" }), { asks: "person if tainted" as const });
  const answers: Approver[] = [approveAll, yesAtATerminal, async () => ({ decision: "allow" }), async () => ({ decision: "deny" })];
  expect(await runtime.execute("fetch", '{"url":"x"}', {})).toEqual(refused);
  for (const approve of answers) expect(await runtime.execute("fetch", '{"url":"x"}', { approve })).toEqual(refused);
  expect(source.granted).toEqual([]);
  expect(records.map(({ granted }) => granted)).toEqual([undefined, undefined, undefined, undefined, undefined]);
});

test("describeGrant says a grant as the config entry would", () => {
  expect(describeGrant({ permission: "network" })).toBe('"permissions": ["network"]');
  expect(describeGrant({ hosts: ["a.example:80", "b.example"] })).toBe('"network": ["a.example:80", "b.example"]');
  expect(describeGrant({ read: "/opt/x" })).toBe('"read": ["/opt/x"]');
});

test("network given at a refusal makes the plugin an untrusted source and a way out, as if granted at start", async () => {
  for (const scope of ["once", "session"] as const) {
    const { runtime } = await setup();
    const asked: ApprovalRequest[] = [];
    const approve: Approver = async (request) => {
      asked.push(request);
      return { decision: "allow", grant: scope };
    };
    // Its first result, fetched with the grant, came from the outside world: it taints the conversation.
    await runtime.execute("fetch", '{"url":"https://example.com"}', { callId: "c1", approve });
    runtime.resultsEntered(runtime.session);
    expect(runtime.taint()).toEqual({ by: "fetch" });
    // From then on, a plugin with network for the session can send data out: its next call is asked under the taint.
    await runtime.execute("fetch", '{"url":"https://example.com/?secret"}', { callId: "c2", approve });
    const second = asked.filter(({ id }) => id === "c2");
    expect(second.some(({ tainted }) => tainted !== undefined)).toBe(scope === "session");
  }
});

test("a tainted conversation is not offered network for a refused call: it would be a way out the taint never judged", async () => {
  const { source, runtime } = await setup();
  const asked: ApprovalRequest[] = [];
  const approve: Approver = async (request) => {
    asked.push(request);
    return { decision: "allow", grant: "once" };
  };
  runtime.restoreTaint({ by: "echo" });
  expect(await runtime.execute("fetch", '{"url":"https://example.com/?secret"}', { callId: "c1", approve })).toEqual(errorResult("could not resolve host"));
  expect(asked).toEqual([]);
  expect(source.granted).toEqual([]);
  // The twin: the same call once the taint is ended is offered the grant.
  runtime.restoreTaint(undefined);
  expect(await runtime.execute("fetch", '{"url":"https://example.com/"}', { callId: "c2", approve })).toEqual(textResult("fetched https://example.com/"));
  expect(asked.map(({ id }) => id)).toEqual(["c2"]);
});
