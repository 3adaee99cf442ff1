/**
 * The ELF program interpreter (`/lib64/ld-linux-x86-64.so.2`) of an executable: the kernel
 * opens it for execution too, so a confined process that may run Bun must also be allowed
 * to execute Bun's dynamic loader.
 */
import { closeSync, openSync, readSync } from "node:fs";

const PT_INTERP = 3;

/** The interpreter path of a 64-bit little-endian ELF file, or undefined (static, or not ELF). */
export function elfInterpreter(file: string): string | undefined {
  const fd = openSync(file, "r");
  try {
    const header = Buffer.alloc(64);
    readSync(fd, header, 0, 64, 0);
    if (header.readUInt32BE(0) !== 0x7f454c46 || header[4] !== 2 || header[5] !== 1) return undefined;
    const phoff = Number(header.readBigUInt64LE(32));
    const phentsize = header.readUInt16LE(54);
    const phnum = header.readUInt16LE(56);
    const table = Buffer.alloc(phentsize * phnum);
    readSync(fd, table, 0, table.length, phoff);
    for (let index = 0; index < phnum; index++) {
      const entry = index * phentsize;
      if (table.readUInt32LE(entry) !== PT_INTERP) continue;
      const offset = Number(table.readBigUInt64LE(entry + 8));
      const size = Number(table.readBigUInt64LE(entry + 32));
      const path = Buffer.alloc(size);
      readSync(fd, path, 0, size, offset);
      return path.toString("utf8").replace(/\0+$/, "");
    }
    return undefined;
  } finally {
    closeSync(fd);
  }
}
