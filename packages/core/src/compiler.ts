/**
 * TypeBox's compiler, behind a module of ours so that the registry can load it on first use
 * with `require("./compiler.ts")`: required by a relative path, it is TypeBox's ESM build
 * (the one every `import` gets), and a bundle makes it a chunk of its own, loaded by the
 * first registry that compiles a schema.
 */
export { type TypeCheck, TypeCompiler } from "@sinclair/typebox/compiler";
