/**
 * A seccomp filter, built as classic BPF and installed through `bun:ffi`: the kernel
 * objects that file rights and namespaces do not cover. Every confined process loses
 * `mount` and its newer siblings, new user namespaces, `setns`, `ptrace` and the reading or
 * writing of other processes' memory, `io_uring`, `bpf`, `userfaultfd`, `perf_event_open`,
 * the kernel keyring, and the terminal ioctls that inject input (`TIOCSTI`, `TIOCLINUX`);
 * without `network` it cannot create a socket of any family (UNIX ones included; a
 * connected `socketpair` stays allowed, it reaches nothing), and with a narrowed `network`
 * (a list of hosts) only IPv4 and IPv6 ones, which reach nothing but its own network
 * namespace, where the app's egress proxy listens (egress-channel.ts). Each refusal is `EPERM`,
 * except `clone3` (`ENOSYS`, so that libc falls back to `clone`, whose flags the filter
 * can read) and system calls of another architecture's ABI.
 *
 * Like Landlock, a filter binds the calling thread and what it executes, so it is
 * installed right before `execve` (see confine-main.ts).
 */
import { readFileSync } from "node:fs";
import { COMMON_SYSCALLS, lastErrno, libc, SYSCALLS } from "./libc.ts";

const PR_SET_NO_NEW_PRIVS = 38;
const PR_SET_SECCOMP = 22;
const SECCOMP_MODE_FILTER = 2;

const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;
const EPERM = 1;
const ENOSYS = 38;

const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const JSET_K = 0x45;
const RET_K = 0x06;

/** Offsets in `struct seccomp_data`. */
const NR = 0;
const ARCH = 4;
const argLow = (index: number) => 16 + 8 * index;

const X32_SYSCALL_BIT = 0x40000000;
const CLONE_NEWUSER = 0x10000000;
const TIOCSTI = 0x5412;
const TIOCLINUX = 0x541c;

/** What the filter leaves to a process: the only choice is the network. */
export interface SeccompRules {
  /** Which sockets may be created: any (the `network` grant), IPv4 and IPv6 only (a narrowed grant), or none. */
  readonly network: "any" | "inet" | "none";
}

const AF_INET = 2;
const AF_INET6 = 10;

interface Instruction {
  readonly code: number;
  readonly jt: number;
  readonly jf: number;
  readonly k: number;
}

const op = (code: number, k: number, jt = 0, jf = 0): Instruction => ({ code, jt, jf, k });
const load = (offset: number) => op(LD_W_ABS, offset);
const ret = (value: number) => op(RET_K, value);
const denied = (errno: number) => ret(RET_ERRNO | errno);

/** The filter program for `rules` on this machine's architecture. */
export function seccompProgram(rules: SeccompRules): Instruction[] {
  const refused: number[] = [
    SYSCALLS.mount,
    SYSCALLS.umount2,
    SYSCALLS.pivotRoot,
    COMMON_SYSCALLS.openTree,
    COMMON_SYSCALLS.moveMount,
    COMMON_SYSCALLS.fsopen,
    COMMON_SYSCALLS.fsconfig,
    COMMON_SYSCALLS.fsmount,
    COMMON_SYSCALLS.fspick,
    COMMON_SYSCALLS.mountSetattr,
    SYSCALLS.setns,
    SYSCALLS.ptrace,
    SYSCALLS.processVmReadv,
    SYSCALLS.processVmWritev,
    COMMON_SYSCALLS.ioUringSetup,
    COMMON_SYSCALLS.ioUringEnter,
    COMMON_SYSCALLS.ioUringRegister,
    SYSCALLS.bpf,
    SYSCALLS.userfaultfd,
    SYSCALLS.perfEventOpen,
    SYSCALLS.keyctl,
    SYSCALLS.addKey,
    SYSCALLS.requestKey,
    ...(rules.network === "none" ? [SYSCALLS.socket] : []),
  ];
  const program: Instruction[] = [
    load(ARCH),
    op(JEQ_K, SYSCALLS.auditArch, 1, 0),
    denied(ENOSYS),
    load(NR),
  ];
  // x86-64's x32 ABI numbers its calls from bit 30: none of them is allowed.
  if (process.arch === "x64") program.push(op(JGE_K, X32_SYSCALL_BIT, 0, 1), denied(ENOSYS));
  program.push(op(JEQ_K, COMMON_SYSCALLS.clone3, 0, 1), denied(ENOSYS));
  for (const number of refused) program.push(op(JEQ_K, number, 0, 1), denied(EPERM));
  // socket with a narrowed grant: IPv4 and IPv6 only (no UNIX, netlink or packet socket).
  if (rules.network === "inet") {
    program.push(
      op(JEQ_K, SYSCALLS.socket, 0, 5),
      load(argLow(0)),
      op(JEQ_K, AF_INET, 1, 0),
      op(JEQ_K, AF_INET6, 0, 1),
      ret(RET_ALLOW),
      denied(EPERM),
    );
  }
  // clone and unshare: refused only with CLONE_NEWUSER (a PID namespace for a command stays possible).
  program.push(
    op(JEQ_K, SYSCALLS.clone, 1, 0),
    op(JEQ_K, SYSCALLS.unshare, 0, 4),
    load(argLow(0)),
    op(JSET_K, CLONE_NEWUSER, 1, 0),
    ret(RET_ALLOW),
    denied(EPERM),
  );
  // ioctl: the kernel reads the request as 32 bits, so only the low word is compared.
  program.push(
    load(NR),
    op(JEQ_K, SYSCALLS.ioctl, 0, 5),
    load(argLow(1)),
    op(JEQ_K, TIOCSTI, 2, 0),
    op(JEQ_K, TIOCLINUX, 1, 0),
    ret(RET_ALLOW),
    denied(EPERM),
    ret(RET_ALLOW),
  );
  return program;
}

/** Installs the filter for `rules` on the calling thread, for good (with `no_new_privs`). */
export function installSeccomp(rules: SeccompRules): void {
  const program = seccompProgram(rules);
  const filter = new DataView(new ArrayBuffer(program.length * 8));
  program.forEach((instruction, index) => {
    filter.setUint16(index * 8, instruction.code, true);
    filter.setUint8(index * 8 + 2, instruction.jt);
    filter.setUint8(index * 8 + 3, instruction.jf);
    filter.setUint32(index * 8 + 4, instruction.k, true);
  });
  // struct sock_fprog { unsigned short len; struct sock_filter *filter; }
  const fprog = new DataView(new ArrayBuffer(16));
  fprog.setUint16(0, program.length, true);
  fprog.setBigUint64(8, libc.pointer(filter), true);
  if (libc.prctl(PR_SET_NO_NEW_PRIVS, 1n, 0n, 0n, 0n) !== 0) throw new Error(`prctl(PR_SET_NO_NEW_PRIVS) failed: errno ${lastErrno()}`);
  if (libc.prctl(PR_SET_SECCOMP, BigInt(SECCOMP_MODE_FILTER), libc.pointer(fprog), 0n, 0n) !== 0) {
    throw new Error(`prctl(PR_SET_SECCOMP) failed: errno ${lastErrno()}`);
  }
}

/** Whether this kernel filters system calls (seccomp's mode 2). */
export function seccompAvailable(): boolean {
  try {
    const status = readFileSync("/proc/self/status", "utf8");
    return /^Seccomp:\s*\d/m.test(status);
  } catch {
    return false;
  }
}
