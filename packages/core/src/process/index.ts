/**
 * `@plugboard/core/process`: running a command as a tree that ends with it — a PID
 * namespace whose init is ours (signals the command sends itself work, orphans are reaped,
 * its exact ending is reported), ending a process group or everything else a namespace
 * holds, `unshare`'s flags and probe, which the sandbox uses too, and writing a whole text to
 * a descriptor.
 */
export { type Ending, readEnding } from "./ending.ts";
export { drainPipes, endOtherProcesses, type GroupEnding, type GroupSupervisor, isAlive, killGroup, killGroupOnExit, PIPE_GRACE_MS, settlesWithin, superviseGroup } from "./group.ts";
export { type ProgramOptions, type ProgramOutcome, runProgram } from "./run-program.ts";
export { CONFINED_VARIABLE, coreFolder, pidNamespacePrefix, underInit } from "./pid-namespace.ts";
export { findUnshare, type Namespaces, refusedBySystem, unshareFlags, whyUnshareFails, whyUnshareFailsAsync } from "./unshare.ts";
export { writeAll } from "./write-all.ts";
