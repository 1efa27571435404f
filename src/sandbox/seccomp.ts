/**
 * The sandbox's seccomp filter, as the classic BPF program bubblewrap loads with `--seccomp FD`
 * (an array of `struct sock_filter`, 8 bytes each, host byte order). Generated here, so no libseccomp
 * or other native dependency is needed.
 *
 * It is a deny list on top of the namespaces (which already hold on their own): system calls a
 * Python computation never needs and that are the usual steps of an escape or of attacking the
 * kernel (ptrace and cross-process memory access, mounting, new namespaces, keyrings, BPF, perf,
 * userfaultfd, io_uring, module loading, clock setting…) fail with EPERM. `clone` is refused when it
 * asks for a new namespace; `clone3` (whose flags sit behind a pointer a filter cannot read) fails
 * with ENOSYS, so the C library falls back to `clone`. A call of another architecture's ABI (x32, or
 * a 32-bit call on a 64-bit kernel) kills the process.
 */
import { arch } from 'node:process';

// struct seccomp_data: int nr; __u32 arch; __u64 instruction_pointer; __u64 args[6];
const NR_OFFSET = 0;
const ARCH_OFFSET = 4;
const ARG0_LOW_OFFSET = 16;

// BPF opcodes (linux/filter.h)
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const JSET_K = 0x45;
const RET_K = 0x06;

const RET_KILL_PROCESS = 0x8000_0000;
const RET_ALLOW = 0x7fff_0000;
const RET_ERRNO = 0x0005_0000;
const EPERM = 1;
const ENOSYS = 38;

/** x86-64 system calls of the x32 ABI carry this bit. */
const X32_SYSCALL_BIT = 0x4000_0000;

/** Every CLONE_NEW* flag: clone() asking for any new namespace is refused. */
const CLONE_NEW_NAMESPACES = 0x0200_0000 /* CGROUP */ | 0x0400_0000 /* UTS */ | 0x0800_0000 /* IPC */ | 0x1000_0000 /* USER */ | 0x2000_0000 /* PID */ | 0x4000_0000 /* NET */ | 0x0002_0000; /* NS */

/** System calls refused with EPERM, by name (the numbers per architecture are below). */
export const DENIED_SYSCALLS = [
  'ptrace',
  'process_vm_readv',
  'process_vm_writev',
  'pidfd_getfd',
  'kcmp',
  'mount',
  'umount2',
  'pivot_root',
  'chroot',
  'unshare',
  'setns',
  'open_tree',
  'move_mount',
  'fsopen',
  'fsconfig',
  'fsmount',
  'fspick',
  'mount_setattr',
  'open_by_handle_at',
  'name_to_handle_at',
  'keyctl',
  'add_key',
  'request_key',
  'bpf',
  'perf_event_open',
  'userfaultfd',
  'io_uring_setup',
  'io_uring_enter',
  'io_uring_register',
  'kexec_load',
  'kexec_file_load',
  'init_module',
  'finit_module',
  'delete_module',
  'reboot',
  'swapon',
  'swapoff',
  'acct',
  'quotactl',
  'syslog',
  'vhangup',
  'lookup_dcookie',
  'settimeofday',
  'clock_settime',
  'clock_adjtime',
  'adjtimex',
  'personality',
  // x86 only
  'iopl',
  'ioperm',
  'modify_ldt',
  'uselib',
] as const;

type SyscallName = (typeof DENIED_SYSCALLS)[number] | 'clone' | 'clone3';

interface ArchTable {
  auditArch: number;
  /** The ABI's own numbers; a name missing here does not exist on the architecture. */
  numbers: Partial<Record<SyscallName, number>>;
  /** x86-64: calls with the x32 bit set are another ABI, refused outright. */
  x32Bit?: number;
}

/** From the kernel's uapi headers: asm/unistd_64.h (x86-64) and asm-generic/unistd.h (arm64). */
const ARCHES: Record<string, ArchTable> = {
  x64: {
    auditArch: 0xc000_003e,
    x32Bit: X32_SYSCALL_BIT,
    numbers: {
      ptrace: 101, process_vm_readv: 310, process_vm_writev: 311, pidfd_getfd: 438, kcmp: 312,
      mount: 165, umount2: 166, pivot_root: 155, chroot: 161, unshare: 272, setns: 308,
      open_tree: 428, move_mount: 429, fsopen: 430, fsconfig: 431, fsmount: 432, fspick: 433, mount_setattr: 442,
      open_by_handle_at: 304, name_to_handle_at: 303, keyctl: 250, add_key: 248, request_key: 249,
      bpf: 321, perf_event_open: 298, userfaultfd: 323, io_uring_setup: 425, io_uring_enter: 426, io_uring_register: 427,
      kexec_load: 246, kexec_file_load: 320, init_module: 175, finit_module: 313, delete_module: 176,
      reboot: 169, swapon: 167, swapoff: 168, acct: 163, quotactl: 179, syslog: 103, vhangup: 153, lookup_dcookie: 212,
      settimeofday: 164, clock_settime: 227, clock_adjtime: 305, adjtimex: 159, personality: 135,
      iopl: 172, ioperm: 173, modify_ldt: 154, uselib: 134,
      clone: 56, clone3: 435,
    },
  },
  arm64: {
    auditArch: 0xc000_00b7,
    numbers: {
      ptrace: 117, process_vm_readv: 270, process_vm_writev: 271, pidfd_getfd: 438, kcmp: 272,
      mount: 40, umount2: 39, pivot_root: 41, chroot: 51, unshare: 97, setns: 268,
      open_tree: 428, move_mount: 429, fsopen: 430, fsconfig: 431, fsmount: 432, fspick: 433, mount_setattr: 442,
      open_by_handle_at: 265, name_to_handle_at: 264, keyctl: 219, add_key: 217, request_key: 218,
      bpf: 280, perf_event_open: 241, userfaultfd: 282, io_uring_setup: 425, io_uring_enter: 426, io_uring_register: 427,
      kexec_load: 104, kexec_file_load: 294, init_module: 105, finit_module: 273, delete_module: 106,
      reboot: 142, swapon: 224, swapoff: 225, acct: 89, quotactl: 60, syslog: 116, vhangup: 58, lookup_dcookie: 18,
      settimeofday: 170, clock_settime: 112, clock_adjtime: 266, adjtimex: 171, personality: 92,
      clone: 220, clone3: 435,
    },
  },
};

interface Instruction {
  code: number;
  jt: number;
  jf: number;
  k: number;
}

const stmt = (code: number, k: number): Instruction => ({ code, jt: 0, jf: 0, k });
const jump = (code: number, k: number, jt: number, jf: number): Instruction => ({ code, jt, jf, k });

/** The filter for this machine's architecture; undefined where no table exists (the sandbox then runs without one). */
export function seccompFilter(architecture: string = arch): Buffer | undefined {
  const table = ARCHES[architecture];
  if (!table) return undefined;
  return encode(program(table));
}

/** A system call's number on an architecture the filter knows (tests make the calls the filter refuses). */
export function syscallNumber(name: SyscallName, architecture: string = arch): number | undefined {
  return ARCHES[architecture]?.numbers[name];
}

/** Whether a filter exists for this machine's architecture. */
export function seccompSupported(architecture: string = arch): boolean {
  return architecture in ARCHES;
}

function program(table: ArchTable): Instruction[] {
  const deny = RET_ERRNO | EPERM;
  const out: Instruction[] = [
    stmt(LD_W_ABS, ARCH_OFFSET),
    jump(JEQ_K, table.auditArch, 1, 0),
    stmt(RET_K, RET_KILL_PROCESS),
    stmt(LD_W_ABS, NR_OFFSET),
  ];
  if (table.x32Bit !== undefined) out.push(jump(JGE_K, table.x32Bit, 0, 1), stmt(RET_K, RET_KILL_PROCESS));
  // Each check is followed by its own return, so every jump is short.
  for (const name of DENIED_SYSCALLS) {
    const nr = table.numbers[name];
    if (nr !== undefined) out.push(jump(JEQ_K, nr, 0, 1), stmt(RET_K, deny));
  }
  out.push(jump(JEQ_K, table.numbers.clone3!, 0, 1), stmt(RET_K, RET_ERRNO | ENOSYS));
  // Last: clone with a CLONE_NEW* flag is refused, everything else allowed.
  out.push(
    jump(JEQ_K, table.numbers.clone!, 0, 3),
    stmt(LD_W_ABS, ARG0_LOW_OFFSET),
    jump(JSET_K, CLONE_NEW_NAMESPACES, 0, 1),
    stmt(RET_K, deny),
    stmt(RET_K, RET_ALLOW),
  );
  return out;
}

function encode(instructions: Instruction[]): Buffer {
  const buffer = Buffer.alloc(instructions.length * 8);
  instructions.forEach((ins, i) => {
    const at = i * 8;
    // struct sock_filter { __u16 code; __u8 jt; __u8 jf; __u32 k; } in host byte order (little-endian on x64 and arm64).
    buffer.writeUInt16LE(ins.code, at);
    buffer.writeUInt8(ins.jt, at + 2);
    buffer.writeUInt8(ins.jf, at + 3);
    buffer.writeUInt32LE(ins.k >>> 0, at + 4);
  });
  return buffer;
}
