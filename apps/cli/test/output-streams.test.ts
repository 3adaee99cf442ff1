/**
 * What the CLI writes arrives whole, whatever stdout and stderr are, or the CLI says why it
 * could not (exit 2), or, for a reader gone, ends as it would have. Its notes (`plugboard: …`
 * on stderr) are written at once, without Node's stderr stream, until a command makes that
 * stream: dim on a terminal, plain elsewhere (the notes here are `call`'s, which names the
 * workspace when it is the current folder). What goes through Node's streams is out before
 * the process exits, even into a full pipe its reader made non-blocking (as a Node parent's
 * inherited stdout is) and reads only later.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { closeSync, existsSync, openSync, readSync, writeSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { lazyLibc } from "@plugboard/core/libc";
import { MAIN, cleanEnv, spawnInTerminal, tempFolder } from "./helpers.ts";

setDefaultTimeout(60_000);

const libc = lazyLibc({ pipe2: { args: ["ptr", "i32"], returns: "i32" } });
const READ_FILE = fileURLToPath(new URL("../../../plugins/read-file", import.meta.url));
const CALL = ["call", "read_file", '{"path": "notes.txt"}', "--config", "../config.json"];

let dir = "";
let workspace = "";
let remove = async () => {};
beforeAll(async () => {
  // No workspace in the config: the current folder is it, and call says so.
  ({ dir, remove } = await tempFolder({
    "config.json": JSON.stringify({ sandbox: "off", plugins: [{ path: READ_FILE, permissions: ["fs.read"] }] }),
    "workspace/notes.txt": "hello\n",
  }));
  workspace = join(dir, "workspace");
});
afterAll(() => remove());

const note = () => `plugboard: workspace: ${workspace} (the current folder; --workspace DIR picks another)\n`;

describe("call's note", () => {
  test("on a terminal it is dim, unless NO_COLOR is set", async () => {
    for (const [noColor, shown] of [["", `\u001b[2mplugboard:\u001b[0m workspace: ${workspace} `], ["1", `plugboard: workspace: ${workspace} `]] as const) {
      const cli = spawnInTerminal(CALL, { cwd: workspace, env: { NO_COLOR: noColor } });
      expect(await cli.exited()).toBe(0);
      expect(cli.screen()).toStartWith(shown);
      expect(cli.screen()).toEndWith("\r\nhello\r\n");
    }
  });

  test("piped, it is plain, and comes whole", async () => {
    const child = Bun.spawn(["bun", MAIN, ...CALL], { cwd: workspace, env: cleanEnv(), stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    expect({ code, stdout, stderr }).toEqual({ code: 0, stdout: "hello\n", stderr: note() });
  });

  test("with the readers of stdout and stderr gone, the call ends as it would have (exit 0)", async () => {
    const child = Bun.spawn(["bun", MAIN, ...CALL], { cwd: workspace, env: cleanEnv(), stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    await Promise.all([child.stdout.cancel(), child.stderr.cancel()]);
    expect(await child.exited).toBe(0);
  });

  // Through Node's stream, the note was lost here: the stream's drain (an empty write) was
  // called back at once, and the process exited with the note still unwritten.
  test.skipIf(libc() === null)("into a full pipe that does not block, nothing of it is lost", async () => {
    const pipe = fullPipe();
    const child = Bun.spawn(["bun", MAIN, ...CALL], { cwd: workspace, env: cleanEnv(), stdio: ["ignore", "pipe", pipe.write] });
    const written = await pipe.readLater();
    expect(await child.exited).toBe(0);
    expect(await new Response(child.stdout).text()).toBe("hello\n");
    expect(written).toBe(note());
  });
});

describe("output through Node's stream", () => {
  // plugin new writes its list through process.stdout; the old drain lost all of it here.
  test.skipIf(libc() === null)("into a full pipe that does not block, nothing of it is lost", async () => {
    const pipe = fullPipe();
    const child = Bun.spawn(["bun", MAIN, "plugin", "new", "notes", "--dir", join(dir, "scaffold")], { cwd: dir, env: cleanEnv(), stdio: ["ignore", pipe.write, "pipe"] });
    const written = await pipe.readLater();
    expect(await child.exited).toBe(0);
    expect(await new Response(child.stderr).text()).toBe("");
    expect(written).toStartWith(`Created plugboard-plugin-notes in ${join(dir, "scaffold")}:\n`);
    expect(written).toEndWith("\n");
    // All of it: what the same command prints into a pipe read as it goes.
    const plain = Bun.spawn(["bun", MAIN, "plugin", "new", "notes", "--dir", join(dir, "scaffold-2")], { cwd: dir, env: cleanEnv(), stdout: "pipe", stderr: "pipe" });
    expect(await plain.exited).toBe(0);
    expect(written).toBe((await new Response(plain.stdout).text()).replaceAll("scaffold-2", "scaffold"));
  });
});


describe("output the system refuses (a full disk: /dev/full)", () => {
  const FULL = "/dev/full";
  const refused = "plugboard: Cannot write plugboard's stdout: no space left on device (ENOSPC).\nSend it where it can be written: a file on a disk with room, or a pipe that is read.\n";
  /** Runs the CLI with `stream` (stdout or stderr) opened on /dev/full, the other piped. */
  async function intoFull(args: readonly string[], stream: "stdout" | "stderr") {
    const full = openSync(FULL, "w");
    try {
      const child = Bun.spawn(["bun", MAIN, ...args], { cwd: workspace, env: cleanEnv(), stdio: ["ignore", stream === "stdout" ? full : "pipe", stream === "stderr" ? full : "pipe"] });
      const other = stream === "stdout" ? child.stderr : child.stdout;
      const [text, code] = await Promise.all([other instanceof ReadableStream ? new Response(other).text() : "", child.exited]);
      return { code, text };
    } finally {
      closeSync(full);
    }
  }

  test.skipIf(!existsSync(FULL)).each([
    ["--help (printed)", ["--help"], false],
    ["--version (the bundle's entry prints it alone)", ["--version"], false],
    ["call (printed)", CALL, true],
    ["plugin new (Node's stream)", ["plugin", "new", "notes", "--dir", "../full-scaffold"], false],
  ] as const)("%s into a full disk: one message, exit 2", async (_name, args, noted) => {
    expect(await intoFull(args, "stdout")).toEqual({ code: 2, text: `${noted ? note() : ""}${refused}` });
  });

  test.skipIf(!existsSync(FULL))("stderr on a full disk: the note is dropped, the call answers on stdout (exit 0)", async () => {
    expect(await intoFull(CALL, "stderr")).toEqual({ code: 0, text: "hello\n" });
  });
});

/**
 * A pipe whose ends do not block, filled to the last byte: `write` is for the child, and
 * `readLater` waits half a second (the child meets the full pipe), closes this process's
 * copy of `write`, and reads to the end what came after the filler.
 */
function fullPipe(): { readonly write: number; readLater(): Promise<string> } {
  const O_NONBLOCK = 0o4000;
  const fds = new Int32Array(2);
  expect(libc()?.pipe2(fds, O_NONBLOCK)).toBe(0);
  const [read = -1, write = -1] = fds;
  // Pages of it, then smaller writes until not one byte fits.
  let filler = 0;
  for (let size = 4096; size >= 1; size = Math.floor(size / 2)) {
    try {
      for (;;) filler += writeSync(write, Buffer.alloc(size, "x"));
    } catch (error) {
      expect(Reflect.get(Object(error), "code")).toBe("EAGAIN");
    }
  }
  return {
    write,
    async readLater() {
      await Bun.sleep(500);
      closeSync(write);
      const chunks: Buffer[] = [];
      const buffer = Buffer.alloc(65536);
      for (;;) {
        let got: number;
        try {
          got = readSync(read, buffer);
        } catch (error) {
          if (Reflect.get(Object(error), "code") !== "EAGAIN") throw error;
          await Bun.sleep(10);
          continue;
        }
        if (got === 0) break;
        chunks.push(Buffer.from(buffer.subarray(0, got)));
      }
      closeSync(read);
      const all = Buffer.concat(chunks);
      expect(all.subarray(0, filler).every((byte) => byte === 0x78)).toBe(true);
      return all.subarray(filler).toString();
    },
  };
}
