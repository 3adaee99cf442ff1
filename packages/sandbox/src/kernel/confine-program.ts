/**
 * The confining step as one program, for a bundle of it (a CommonJS bundle with bytecode,
 * which starts faster than confine-main.ts from its sources): see `ConfineOptions.confineProgram`.
 * Not an API.
 */
import { confineAndExec } from "./confine-main.ts";

confineAndExec(process.argv.slice(2), process.env);
