/**
 * The confining step as one program, for a bundle of it (one ES module file: at its size it
 * starts as fast as a CommonJS bundle with bytecode, and faster than confine-main.ts from its
 * sources): see `ConfineOptions.confineProgram`. Not an API.
 *
 * A program run in place that exports `finished` (the plugin host's: its run, which ends only
 * with the process) is awaited here, so that this entry module stays unfinished while it runs:
 * Bun collects the whole heap once its entry module has finished and the process goes on, and
 * that collection (4 to 7 ms in a host just started, with the threads it starts) came between
 * the host's `ready` and its first call. A program that exports none runs as before.
 */
import { confineAndExec } from "./confine-main.ts";

const program = confineAndExec(process.argv.slice(2), process.env);
const finished = typeof program === "object" && program !== null ? Reflect.get(program, "finished") : undefined;
if (finished instanceof Promise) await finished;
