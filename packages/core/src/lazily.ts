/**
 * The one way Plugboard's packages load a module on first use (to keep a cold start from
 * paying for code it may not run): `lazily(what, () => import("…"))`. A module that cannot
 * be loaded fails with an error that names what was being loaded, the module's own error
 * as its cause, instead of a bare resolution error from somewhere deep in a start.
 */

/** Thrown when a module loaded on first use cannot be loaded. */
export class LazyLoadError extends Error {
  override readonly name = "LazyLoadError";
  constructor(
    readonly what: string,
    cause: unknown,
  ) {
    super(`Could not load ${what}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/**
 * The module `load` imports; a failure names `what` was loading.
 *
 * @example const { startConfinedHost } = await lazily("the confined plugin hosts", () => import("@plugboard/hosts/confined"));
 */
export async function lazily<T>(what: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    throw new LazyLoadError(what, error);
  }
}

/**
 * The module `load` requires, synchronously (for code that must not await, such as a
 * validator compiled on its first call); a failure names what was loading.
 *
 * @example const { TypeCompiler } = lazilySync("TypeBox's compiler", () => require("./compiler.ts") as typeof import("./compiler.ts"));
 */
export function lazilySync<T>(what: string, load: () => T): T {
  try {
    return load();
  } catch (error) {
    throw new LazyLoadError(what, error);
  }
}
