/**
 * The programs of a confined host's start that a build ships beside its own code (the bundled
 * CLI's `dist/`): the host program and the confining step, each one CommonJS file with its
 * bytecode, built with the app (`writeProgramBundles` in program.ts), never at run time. An
 * app that has them starts its hosts from there, so it neither checks nor builds the bundles
 * program.ts keeps in the user's cache, and they are as read-only to confined processes as
 * the rest of the app's code. Kept apart from program.ts so that asking costs no module load.
 */
import { statSync } from "node:fs";
import { join } from "node:path";

/** The programs of a host's start. */
export interface HostPrograms {
  /** The host: a bundle, or the host program's sources (`HOST_SOURCE`). */
  readonly host: string;
  /** A bundle of the confining step; none: the sandbox's sources. */
  readonly confine: string | undefined;
}

/**
 * The file names of the shipped programs: the host's, the confining step's, and TypeBox's
 * compiler, which the host's bundle leaves apart (program.ts) and requires from beside it on a
 * plugin's first compile.
 */
export const SHIPPED_PROGRAMS = { host: "host-program.js", confine: "confine-program.js", compiler: "host-compiler.js" } as const;

/** The programs shipped in `folder`, when all three are there. */
export function shippedPrograms(folder: string): HostPrograms | undefined {
  const there = (name: string) => statSync(join(folder, name), { throwIfNoEntry: false })?.isFile() === true;
  if (!Object.values(SHIPPED_PROGRAMS).every(there)) return undefined;
  return { host: join(folder, SHIPPED_PROGRAMS.host), confine: join(folder, SHIPPED_PROGRAMS.confine) };
}
