/**
 * Landlock through `bun:ffi`: the ABI the kernel offers, and restricting the calling
 * thread (and everything it later executes) to a set of folders and files. No system
 * package: the three syscalls and `prctl` come from libc.
 *
 * Landlock applies to the calling thread only, so a multi-threaded runtime must restrict
 * itself and then `execve` (see `exec.ts`): the new image starts with the domain on its
 * one thread, and every thread and child it creates inherits it.
 */
import { closeSync, fstatSync, openSync } from "node:fs";
import { libc, lastErrno } from "./libc.ts";

const SYS_CREATE_RULESET = 444n;
const SYS_ADD_RULE = 445n;
const SYS_RESTRICT_SELF = 446n;
const CREATE_RULESET_VERSION = 1n;
const RULE_PATH_BENEATH = 1n;
const PR_SET_NO_NEW_PRIVS = 38;
const O_PATH = 0o10000000;
const O_CLOEXEC = 0o2000000;

/** Filesystem access rights, by the ABI that introduced them. */
const FS = {
  execute: 1n << 0n,
  writeFile: 1n << 1n,
  readFile: 1n << 2n,
  readDir: 1n << 3n,
  removeDir: 1n << 4n,
  removeFile: 1n << 5n,
  makeChar: 1n << 6n,
  makeDir: 1n << 7n,
  makeReg: 1n << 8n,
  makeSock: 1n << 9n,
  makeFifo: 1n << 10n,
  makeBlock: 1n << 11n,
  makeSym: 1n << 12n,
  refer: 1n << 13n, // ABI 2
  truncate: 1n << 14n, // ABI 3
  ioctlDev: 1n << 15n, // ABI 5
} as const;
const NET_BIND_TCP = 1n << 0n; // ABI 4
const NET_CONNECT_TCP = 1n << 1n; // ABI 4
const SCOPE_ABSTRACT_UNIX_SOCKET = 1n << 0n; // ABI 6
const SCOPE_SIGNAL = 1n << 1n; // ABI 6

const READ = FS.readFile | FS.readDir;
const WRITE =
  FS.writeFile |
  FS.removeDir |
  FS.removeFile |
  FS.makeDir |
  FS.makeReg |
  FS.makeSock |
  FS.makeFifo |
  FS.makeSym |
  FS.refer |
  FS.truncate;
/** Rights that make sense on a file (the kernel refuses directory rights on one). */
const FILE_RIGHTS = FS.execute | FS.writeFile | FS.readFile | FS.truncate | FS.ioctlDev;

/** The environment variable carrying the rules (JSON) to the confining step, confine-main.ts. */
export const RULES_VARIABLE = "PLUGBOARD_SANDBOX_RULES";
/** The descriptor a confining step started before its rules were made reads them on (`RULES_VARIABLE` is then `fd:4`). */
export const RULES_FD = 4;
/** The confining step's first option, `--workspace DIR`: what it confines to, for whoever reads its command line (`ps`). */
export const WORKSPACE_OPTION = "--workspace";

/** What a restricted thread may still do. Paths that do not exist are skipped. */
export interface LandlockRules {
  /** Folders and files readable (files and listings). */
  readonly read: readonly string[];
  /** Folders and files writable (create, change, delete, rename within). */
  readonly write: readonly string[];
  /** Programs (or folders of programs) that may be executed. */
  readonly execute: readonly string[];
  /** Whether TCP bind and connect stay allowed (ABI 4 and later restrict them otherwise). */
  readonly network: boolean;
}

/** The Landlock ABI version the kernel offers, 0 when it offers none. */
export function landlockAbi(): number {
  const version = libc.syscall(SYS_CREATE_RULESET, 0n, 0n, CREATE_RULESET_VERSION);
  return version < 0n ? 0 : Number(version);
}

/**
 * Restricts the calling thread to `rules` for good (with `no_new_privs`). Throws when the
 * kernel refuses; a rule for a missing path is skipped.
 */
export function restrictSelf(rules: LandlockRules): void {
  const abi = landlockAbi();
  if (abi < 1) throw new Error("Landlock is not available in this kernel");
  const handledFs = handledFsRights(abi);
  const handledNet = abi >= 4 && !rules.network ? NET_BIND_TCP | NET_CONNECT_TCP : 0n;
  const scoped = abi >= 6 ? SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL : 0n;

  const attr = new BigUint64Array([handledFs, handledNet, scoped]);
  const attrSize = abi >= 6 ? 24n : abi >= 4 ? 16n : 8n;
  const rulesetFd = check(libc.syscall(SYS_CREATE_RULESET, libc.pointer(attr), attrSize, 0n), "landlock_create_ruleset");
  try {
    const allow = (paths: readonly string[], rights: bigint) => {
      for (const path of paths) addPathRule(rulesetFd, path, rights & handledFs);
    };
    allow(rules.read, READ);
    allow(rules.write, READ | WRITE);
    // Executing is not reading: with process.spawn, `execute` is "/", and read stays what `read` says.
    allow(rules.execute, FS.execute);
    if (libc.prctl(PR_SET_NO_NEW_PRIVS, 1n, 0n, 0n, 0n) !== 0) throw new Error(`prctl(PR_SET_NO_NEW_PRIVS) failed: errno ${lastErrno()}`);
    check(libc.syscall(SYS_RESTRICT_SELF, rulesetFd, 0n, 0n), "landlock_restrict_self");
  } finally {
    closeSync(Number(rulesetFd));
  }
}

function handledFsRights(abi: number): bigint {
  let rights = FS.execute | READ | WRITE | FS.makeChar | FS.makeBlock;
  if (abi < 2) rights &= ~FS.refer;
  if (abi < 3) rights &= ~FS.truncate;
  if (abi >= 5) rights |= FS.ioctlDev;
  return rights;
}

function addPathRule(rulesetFd: bigint, path: string, rights: bigint): void {
  let fd: number;
  try {
    fd = openSync(path, O_PATH | O_CLOEXEC);
  } catch {
    return;
  }
  try {
    const allowed = fstatSync(fd).isDirectory() ? rights : rights & FILE_RIGHTS;
    // struct landlock_path_beneath_attr { __u64 allowed_access; __s32 parent_fd; } __attribute__((packed))
    const attr = new DataView(new ArrayBuffer(12));
    attr.setBigUint64(0, allowed, true);
    attr.setInt32(8, fd, true);
    check(libc.syscall(SYS_ADD_RULE, rulesetFd, RULE_PATH_BENEATH, libc.pointer(attr)), `landlock_add_rule(${path})`);
  } finally {
    closeSync(fd);
  }
}

function check(result: bigint, what: string): bigint {
  if (result < 0n) throw new Error(`${what} failed: errno ${lastErrno()}`);
  return result;
}
