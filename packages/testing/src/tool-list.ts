/**
 * A manifest's tool list as the code makes it: each tool's name, and the first sentence of its
 * description as the manifest's one-line description; and how a manifest's list differs from
 * that, in the words `plugboard plugin sync` prints and `plugin check` reports.
 */

/** A tool as a manifest lists it. */
export interface ToolLine {
  readonly name: string;
  readonly description: string;
}

/** One difference between a manifest's tools and the code's, from the manifest's side. */
export type ToolChange =
  | { readonly kind: "added"; readonly name: string; readonly description: string }
  | { readonly kind: "removed"; readonly name: string }
  | { readonly kind: "changed"; readonly name: string; readonly before: string; readonly after: string }
  | { readonly kind: "reordered"; readonly before: readonly string[]; readonly after: readonly string[] };

/**
 * The manifest's one-line description of a tool whose code says `description`: whitespace
 * (line breaks included) collapsed to single spaces, then the first sentence, which ends at
 * the first `.`, `!` or `?` followed by a space, except the dots of an abbreviation such as
 * `e.g.` or `i.e.` and of an ellipsis (`...`); else the whole text. A manifest description is
 * one line with no length limit, so the first sentence is all it needs to say.
 *
 * @example manifestDescription("Find files by glob pattern. Returns paths relative to the workspace.") // "Find files by glob pattern."
 */
export function manifestDescription(description: string): string {
  const text = description.replace(/\s+/g, " ").trim();
  for (const end of text.matchAll(/[.!?](?= )/g)) {
    const before = text.slice(0, end.index + 1);
    if (!/(?:\.\.|\b(?:[A-Za-z]\.){2,})$/.test(before)) return before;
  }
  return text;
}

/** What changes when `manifest`'s tools become `code`'s: additions, removals, descriptions, then the order. */
export function toolChanges(manifest: readonly ToolLine[], code: readonly ToolLine[]): ToolChange[] {
  const listed = new Map(manifest.map((tool) => [tool.name, tool.description]));
  const made = new Set(code.map((tool) => tool.name));
  const changes: ToolChange[] = [];
  for (const tool of code) {
    const before = listed.get(tool.name);
    if (before === undefined) changes.push({ kind: "added", name: tool.name, description: tool.description });
    else if (before !== tool.description) changes.push({ kind: "changed", name: tool.name, before, after: tool.description });
  }
  for (const tool of manifest) if (!made.has(tool.name)) changes.push({ kind: "removed", name: tool.name });
  const kept = manifest.map((tool) => tool.name).filter((name) => made.has(name));
  const order = code.map((tool) => tool.name).filter((name) => listed.has(name));
  if (kept.join("\n") !== order.join("\n")) changes.push({ kind: "reordered", before: kept, after: order });
  return changes;
}

/** A change as one line: `added NAME: "…"`, `removed NAME`, `changed the description of NAME: "…" → "…"`, `reordered: …`. */
export function changeLine(change: ToolChange): string {
  switch (change.kind) {
    case "added":
      return `added ${change.name}: ${JSON.stringify(change.description)}`;
    case "removed":
      return `removed ${change.name}`;
    case "changed":
      return `changed the description of ${change.name}: ${JSON.stringify(change.before)} → ${JSON.stringify(change.after)}`;
    case "reordered":
      return `reordered: ${change.after.join(", ")} (was ${change.before.join(", ")})`;
  }
}

/** A manifest's `tools` value as lines, leaving out what is not a `{ name, description }` of strings. */
export function listedTools(tools: unknown): ToolLine[] {
  if (!Array.isArray(tools)) return [];
  return tools.flatMap((tool: unknown) => {
    if (typeof tool !== "object" || tool === null) return [];
    const { name, description } = tool as Record<string, unknown>;
    return typeof name === "string" && typeof description === "string" ? [{ name, description }] : [];
  });
}
