/**
 * Atomic file replacement shared by every tool that writes: the content goes to a temp
 * file in the target's folder, is flushed, then renamed over the target, so a crash leaves
 * the old file or the new one, never half of either.
 */
import { constants } from "node:fs";
import { access, mkdir, open, rename, stat, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/**
 * Writes `content` to `target` atomically, creating parent folders. An existing file keeps
 * its permission bits; a new one gets 0o666 minus the umask. Returns the bytes written.
 * An existing file the process may not write fails with `EACCES` and is left as it was:
 * the rename would replace it, since renaming needs only the folder's write permission.
 */
export async function writeFileAtomic(target: string, content: string | Uint8Array): Promise<number> {
  const folder = dirname(target);
  await mkdir(folder, { recursive: true });
  const mode = await stat(target).then(
    (s) => s.mode & 0o7777,
    () => undefined,
  );
  if (mode !== undefined) await access(target, constants.W_OK);
  const temp = join(folder, `.${basename(target)}.${randomHex(6)}.tmp`);
  const bytes = typeof content === "string" ? Buffer.from(content, "utf8") : content;
  const handle = await open(temp, "wx", mode ?? 0o666);
  try {
    await handle.writeFile(bytes);
    if (mode !== undefined) await handle.chmod(mode);
    await handle.sync();
    await handle.close();
    await rename(temp, target);
  } catch (error) {
    await handle.close().catch(() => {});
    await unlink(temp).catch(() => {});
    throw error;
  }
  return bytes.byteLength;
}

/**
 * `bytes` random bytes in hex. The Web Crypto global, not `node:crypto`: loading that module
 * (and the Node streams it pulls in) costs every process that imports core several ms.
 */
function randomHex(bytes: number): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("hex");
}
