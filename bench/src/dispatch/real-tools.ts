/**
 * The five first-party tools, built from their plugins with default options (filled in from
 * each schema, as the bootstrap does), and a registry of them: its compiled TypeBox checks
 * are the ones the runtime uses.
 */
import { type AnyToolDefinition, silentLogger, type Workspace, ToolRegistry } from "@plugboard/core";
import bash from "@plugboard/plugin-bash";
import editFile from "@plugboard/plugin-edit-file";
import glob from "@plugboard/plugin-glob";
import readFile from "@plugboard/plugin-read-file";
import writeFile from "@plugboard/plugin-write-file";
import { Value } from "@sinclair/typebox/value";

/** The five tools, in the CLI's order, as their plugins make them with default options. */
export function realTools(workspace: Workspace): AnyToolDefinition[] {
  const context = { workspace, logger: silentLogger };
  return [
    ...bash.tools(Value.Parse(bash.options, {}), context),
    ...readFile.tools(Value.Parse(readFile.options, {}), context),
    ...writeFile.tools(Value.Parse(writeFile.options, {}), context),
    ...editFile.tools(Value.Parse(editFile.options, {}), context),
    ...glob.tools(Value.Parse(glob.options, {}), context),
  ];
}

/** A registry of the five tools. */
export function realRegistry(workspace: Workspace): ToolRegistry {
  return new ToolRegistry(realTools(workspace));
}

/** For each tool: one valid and one invalid argument string, as a model would send them. */
export const ARGUMENTS: Readonly<Record<string, { readonly valid: string; readonly invalid: string }>> = {
  bash: { valid: '{"command":"ls -la src","timeout_ms":5000}', invalid: '{"command":42,"timeout_ms":0,"cwd":"/"}' },
  read_file: { valid: '{"path":"src/index.ts","offset":10,"limit":40}', invalid: '{"path":"src/index.ts","offset":0,"limit":"all"}' },
  write_file: { valid: '{"path":"notes/todo.md","content":"# Todo\\n\\n- write the benchmarks\\n"}', invalid: '{"path":["notes"],"text":"x"}' },
  edit_file: {
    valid: '{"path":"src/a.ts","old_text":"const a = 1;","new_text":"const a = 2;","replace_all":false}',
    invalid: '{"path":"src/a.ts","old_text":"","new_text":2,"replace_all":"yes"}',
  },
  glob: { valid: '{"pattern":"**/*.ts","path":"src"}', invalid: '{"pattern":"","path":7}' },
};
