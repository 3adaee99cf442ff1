/**
 * Every command of the CLI, in the order `plugboard --help` lists them. Each is a module of its
 * own exporting { spec, run } (see `command.ts`); the parser, `--help` and `main` read this
 * list, and a command's code is imported only when it runs.
 */
import type { Command, CommandSpec } from "./command.ts";
import call from "./call.command.ts";
import check from "./check.command.ts";
import interactive from "./interactive.command.ts";
import mcp from "./mcp.command.ts";
import mcpLogin from "./mcp-login.command.ts";
import mcpLogout from "./mcp-logout.command.ts";
import pluginAccept from "./plugin-accept.command.ts";
import pluginAdd from "./plugin-add.command.ts";
import pluginCheck from "./plugin-check.command.ts";
import pluginNew from "./plugin-new.command.ts";
import pluginRemove from "./plugin-remove.command.ts";
import pluginSync from "./plugin-sync.command.ts";
import plugins from "./plugins.command.ts";
import policyExplain from "./policy-explain.command.ts";
import policyTest from "./policy-test.command.ts";
import resume from "./resume.command.ts";
import run from "./run.command.ts";
import tools from "./tools.command.ts";
import trust from "./trust.command.ts";
import web from "./web.command.ts";

export const COMMANDS = [interactive, resume, run, tools, plugins, call, check, mcp, mcpLogin, mcpLogout, web, trust, pluginNew, pluginCheck, pluginSync, pluginAdd, pluginRemove, policyExplain, policyTest, pluginAccept] as const;

/** A command's name, such as `tools` or `plugin new`. */
export type CommandName = (typeof COMMANDS)[number]["spec"]["name"];

/** Every command's spec, in the same order. */
export const SPECS: readonly CommandSpec<CommandName>[] = COMMANDS.map((command) => command.spec);

/** The first word of the two-word commands (`plugboard plugin new`). */
export const COMMAND_GROUPS = ["plugin", "policy"] as const;

/** The command of that name. */
export function commandOf(name: CommandName): Command<CommandName> {
  const command = COMMANDS.find((candidate) => candidate.spec.name === name);
  if (!command) throw new Error(`No command ${name}`);
  return command;
}

/** The spec of a command. */
export function commandSpec(name: CommandName): CommandSpec<CommandName> {
  return commandOf(name).spec;
}
