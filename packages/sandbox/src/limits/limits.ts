/**
 * The bounds of a confined tree (the config's `"limits"`): how many tasks it may hold, how
 * much memory it may use and how large each of its private memory file systems may grow,
 * with their defaults and the sizes' spelling (`"2 GiB"`, `"256 MiB"`, or a number of bytes).
 * Enforced by the kernel: see cgroups.ts and the confining step.
 */

/** A confined tree's bounds. */
export interface Limits {
  /** Tasks (processes and their threads) at once. @default 512 */
  readonly processes: number;
  /** Bytes of memory (where the kernel offers a way). @default 2 GiB */
  readonly memory: number;
  /** Bytes each private memory file system (`/tmp`, `/var/tmp`, `/dev/shm`, `/run`, a private `HOME`) may hold. @default 256 MiB */
  readonly tmp: number;
}

const UNITS = {
  B: 1,
  KiB: 1024,
  MiB: 1024 ** 2,
  GiB: 1024 ** 3,
  TiB: 1024 ** 4,
  KB: 1000,
  MB: 1000 ** 2,
  GB: 1000 ** 3,
  TB: 1000 ** 4,
} as const satisfies Record<string, number>;

export const DEFAULT_LIMITS: Limits = { processes: 512, memory: 2 * UNITS.GiB, tmp: 256 * UNITS.MiB };

/** What a size is written as, for messages. */
export const SIZE_SPELLING = `a size such as "256 MiB" or "2 GiB" (units ${Object.keys(UNITS).join(", ")}), or a number of bytes`;

/**
 * The bytes `size` means: a whole number of bytes, or a number and a unit (`"2 GiB"`,
 * `"1.5GB"`); undefined when it means none.
 *
 * @example parseSize("256 MiB") // 268435456
 */
export function parseSize(size: string | number): number | undefined {
  if (typeof size === "number") return Number.isSafeInteger(size) && size > 0 ? size : undefined;
  const match = /^\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*$/.exec(size);
  if (match === null) return undefined;
  const unit = (UNITS as Readonly<Record<string, number>>)[match[2] || "B"];
  if (unit === undefined) return undefined;
  const bytes = Math.floor(Number(match[1]) * unit);
  return Number.isSafeInteger(bytes) && bytes > 0 ? bytes : undefined;
}

/**
 * `bytes` as a person reads it: in the largest binary unit that divides it, else in bytes.
 *
 * @example formatSize(268435456) // "256 MiB"
 */
export function formatSize(bytes: number): string {
  for (const unit of ["TiB", "GiB", "MiB", "KiB"] as const) {
    const size = UNITS[unit];
    if (bytes >= size && bytes % size === 0) return `${bytes / size} ${unit}`;
  }
  return `${bytes} bytes`;
}
