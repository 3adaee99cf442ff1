/**
 * `execve` through `bun:ffi`: replaces this process with `argv[0]`, keeping its pid, its
 * namespaces and the calling thread's Landlock domain. Returns only on failure.
 */
import { libc, lastErrno } from "./libc.ts";

/** Executes `file` with `argv` and `env`; throws when the kernel refuses. */
export function execve(file: string, argv: readonly string[], env: Readonly<Record<string, string>>): never {
  const strings: Buffer[] = [];
  const pointers = (items: readonly string[]) => {
    const array = new BigUint64Array(items.length + 1);
    items.forEach((item, index) => {
      const bytes = Buffer.from(`${item}\0`);
      strings.push(bytes);
      array[index] = libc.pointer(bytes);
    });
    return array;
  };
  const argvArray = pointers(argv);
  const envArray = pointers(Object.entries(env).map(([name, value]) => `${name}=${value}`));
  libc.execve(Buffer.from(`${file}\0`), argvArray, envArray);
  // Keep the strings alive until execve has read them.
  strings.length = 0;
  throw new Error(`execve(${file}) failed: errno ${lastErrno()}`);
}
