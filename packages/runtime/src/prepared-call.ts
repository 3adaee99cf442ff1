/**
 * A call made ready to run, once: its tool looked up (a name off only by case or `-`/`_` is
 * mapped, `repair.ts`), its raw arguments read (repaired when almost JSON) and validated
 * against the tool's schema. The agent's scheduler prepares each call to see what it writes,
 * and `ToolRuntime.execute` runs that same prepared call.
 */
import type { RegisteredTool, ToolRegistry, ToolResult } from "@plugboard/core";
import { toolErrors } from "@plugboard/core/internal";
import { type ArgumentsReading, readCallArguments, toolNamed } from "./repair.ts";

/** What every prepared call carries: the call as the model made it. */
interface CallAsMade {
  /** The tool's name as the model called it. */
  readonly name: string;
  readonly rawArguments: string;
  /** What reading `rawArguments` found, JSON's complaint included. */
  readonly reading: ArgumentsReading;
}

/** A call that may run: its tool and its validated arguments. */
export interface ValidCall extends CallAsMade {
  readonly ok: true;
  readonly registered: RegisteredTool;
  /** Validated against the tool's schema. */
  readonly arguments: Readonly<Record<string, unknown>>;
  /** The arguments had to be repaired to be read. */
  readonly repaired: boolean;
}

/** A call that cannot run: the error result the model reads. */
export interface RefusedCall extends CallAsMade {
  readonly ok: false;
  /** Its tool, when the name is one. */
  readonly registered?: RegisteredTool;
  readonly error: ToolResult;
}

/** A call made ready to run (`ToolRuntime.prepare`). */
export type PreparedCall = ValidCall | RefusedCall;

/**
 * Prepares the call of tool `name` with `rawArguments` against `registry`. `reading` is the
 * arguments already read (by another runtime's `prepare`), so that they are read once.
 *
 * @example prepareCall(registry, "read_file", '{"path":"a.txt",}') // { ok: true, arguments: { path: "a.txt" }, repaired: true, … }
 */
export function prepareCall(registry: ToolRegistry, name: string, rawArguments: string, reading = readCallArguments(rawArguments)): PreparedCall {
  const asMade = { name, rawArguments, reading };
  const registered = lookUp(registry, name);
  if (!registered) return { ...asMade, ok: false, error: toolErrors.unknownTool(name, registry.names()) };
  const { read, notJson } = reading;
  if (read === undefined) return { ...asMade, ok: false, registered, error: toolErrors.invalidJson(notJson ?? "not JSON") };
  const { value, repaired } = read;
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { ...asMade, ok: false, registered, error: toolErrors.notAnObject() };
  // As the tool's schema reads them (the dialect's rewrite may have let the model send nulls for absent properties).
  const args = registered.fromModel(value as Record<string, unknown>);
  const problems = registered.validate(args);
  if (problems.length > 0) return { ...asMade, ok: false, registered, error: toolErrors.invalidArguments(registered.tool.name, problems) };
  // Validated against the tool's own schema.
  return { ...asMade, ok: true, registered, arguments: args, repaired };
}

/** The tool `name` names: its own, or the one tool it differs from only by case or `-`/`_`. */
function lookUp(registry: ToolRegistry, name: string): RegisteredTool | undefined {
  const exact = registry.get(name);
  if (exact) return exact;
  const meant = toolNamed(name, registry.names());
  return meant === undefined ? undefined : registry.get(meant);
}
