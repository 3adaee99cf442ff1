/** `plugboard plugin accept NAME`: pin the changed tools of a plugin, an MCP server or one tool again, so the model is offered them. */
import { acceptedLine, PlugboardError } from "@plugboard/bootstrap";
import { visible } from "@plugboard/core/internal";
import type { ParsedArgs } from "../args.ts";
import type { Io } from "../io.ts";
import { loadApp } from "../load-app.ts";

/** Returns 0 with what was accepted (or that nothing had changed); a name nothing pinned has is an error (exit 2). */
export async function pluginAcceptCommand(parsed: ParsedArgs, io: Io): Promise<number> {
  const name = parsed.args[0] ?? "";
  const app = await loadApp(parsed, io, { announceWorkspace: false, freshHosts: true, changedTools: { accept: name } });
  const { pinning, codePinning, registry } = app;
  await app.close();
  const owner = registry.get(name)?.owner;
  const pinnedTool = owner !== undefined && pinning.sources.includes(owner);
  const pinnedCode = codePinning.sources.includes(name);
  if (!pinning.sources.includes(name) && !pinnedTool && !pinnedCode && pinning.accepted.length === 0) {
    const pinned = pinning.sources.length === 0 ? "this config pins nothing" : `pinned: ${pinning.sources.join(", ")}`;
    throw new PlugboardError(
      "USAGE",
      `Nothing pinned in ${pinning.lockPath} is named ${name} (${pinned}).\nName a mounted MCP server (its "name"), a plugin whose code or tools are pinned (its package name) or one of their tools.`,
    );
  }
  const lines = [
    ...codePinning.accepted.map((change) => `Accepted the code of ${change.source} (${[...change.changed, ...change.added, ...change.removed].join(", ")}).`),
    ...pinning.accepted.map(acceptedLine),
    ...pinning.dropped.map(({ source, tool }) => `Dropped ${source}'s tool ${tool}, which it no longer has.`),
  ];
  if (lines.length === 0) lines.push(`Nothing to accept: ${name} is as ${pinning.lockPath} pins it.`);
  else lines.push(`Pinned in ${pinning.lockPath}.`);
  await io.print(`${visible(lines.join("\n"))}\n`);
  return 0;
}
