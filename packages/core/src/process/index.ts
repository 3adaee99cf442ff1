/**
 * `@plugboard/core/process`: running a command as a tree that ends with it — a PID
 * namespace whose init is ours (signals the command sends itself work, orphans are reaped,
 * its exact ending is reported), and ending a process group.
 */
export { type Ending, readEnding } from "./ending.ts";
export { killGroup, settlesWithin } from "./group.ts";
export { CORE_FOLDER, pidNamespacePrefix, underInit } from "./pid-namespace.ts";
