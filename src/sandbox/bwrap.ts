/**
 * The bubblewrap command line of one sandbox: what the run sees and what it is cut off from.
 *
 * - New user, PID, network, IPC, UTS and cgroup namespaces; no nested user namespaces; a new
 *   session (no terminal to inject into); the supervisor (harness.py) is PID 1; everything dies
 *   with bwrap (--die-with-parent), and bwrap dies with the service.
 * - The filesystem is an empty tmpfs root, remounted read-only at the end, holding only: /usr
 *   read-only (the interpreter and its packages), the /bin, /lib… links of a merged-/usr system,
 *   the few /etc files the dynamic loader and Debian's alternatives need, a fresh /proc of the
 *   sandbox's own PID namespace, a minimal /dev, and three size-bounded tmpfs: /work (the working
 *   directory), /tmp and /dev/shm. Nothing of the service (its data directory, sockets, keys,
 *   code) and nothing of its environment (--clearenv) is inside.
 */
import { lstatSync, readlinkSync } from 'node:fs';

/** Inside the sandbox. */
export const WORKDIR = '/work';
export const HARNESS_PATH = '/opt/percall/harness.py';

/** File descriptors of the bwrap process (after stdin, stdout, stderr). */
export const SECCOMP_FD = 3;
export const HARNESS_FD = 4;

/** Sizes of the sandbox's writable tmpfs mounts (their pages are memory outside the address-space limit). */
export const TMPFS_BYTES = { work: 64 * 1024 * 1024, tmp: 16 * 1024 * 1024, shm: 16 * 1024 * 1024 };

/** What the loader and Debian's alternatives (libblas, liblapack…) need from /etc; absent ones are skipped. */
const ETC_FILES = ['/etc/alternatives', '/etc/ld.so.cache', '/etc/ld.so.conf', '/etc/ld.so.conf.d', '/etc/matplotlibrc'];
const TOP_LEVEL_LINKS = ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

/** The environment of the run: nothing of the service's. */
export function sandboxEnv(): Record<string, string> {
  return {
    PATH: '/usr/local/bin:/usr/bin:/bin',
    HOME: WORKDIR,
    USER: 'sandbox',
    LOGNAME: 'sandbox',
    LANG: 'C.UTF-8',
    TZ: 'UTC',
    TMPDIR: '/tmp',
    PYTHONDONTWRITEBYTECODE: '1',
    PYTHONIOENCODING: 'utf-8',
    // One thread per numeric library: the process limit counts threads, and runs share the cores.
    OPENBLAS_NUM_THREADS: '1',
    OMP_NUM_THREADS: '1',
    MKL_NUM_THREADS: '1',
    MPLBACKEND: 'Agg',
    MPLCONFIGDIR: '/tmp/matplotlib',
  };
}

/** /bin, /lib… as on the host: a symlink into /usr is recreated, a real directory bound read-only. */
function topLevel(): string[] {
  const args: string[] = [];
  for (const path of TOP_LEVEL_LINKS) {
    let isLink: boolean;
    try {
      isLink = lstatSync(path).isSymbolicLink();
    } catch {
      continue;
    }
    if (isLink) args.push('--symlink', readlinkSync(path), path);
    else args.push('--ro-bind', path, path);
  }
  return args;
}

export function bwrapArgs(options: { python: string; withSeccomp: boolean }): string[] {
  const env = sandboxEnv();
  return [
    '--unshare-user',
    '--unshare-pid',
    '--unshare-net',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup',
    '--disable-userns',
    '--uid', '1000',
    '--gid', '1000',
    '--hostname', 'sandbox',
    '--die-with-parent',
    '--new-session',
    '--as-pid-1',
    '--clearenv',
    ...Object.entries(env).flatMap(([name, value]) => ['--setenv', name, value]),
    '--ro-bind', '/usr', '/usr',
    ...topLevel(),
    ...ETC_FILES.flatMap((path) => ['--ro-bind-try', path, path]),
    '--proc', '/proc',
    '--dev', '/dev',
    '--size', String(TMPFS_BYTES.shm), '--tmpfs', '/dev/shm',
    '--size', String(TMPFS_BYTES.tmp), '--tmpfs', '/tmp',
    '--size', String(TMPFS_BYTES.work), '--tmpfs', WORKDIR,
    '--ro-bind-data', String(HARNESS_FD), HARNESS_PATH,
    // Nothing outside the three tmpfs mounts can be written (the root tmpfs and /dev would be unbounded memory).
    '--remount-ro', '/dev',
    '--remount-ro', '/',
    '--chdir', WORKDIR,
    ...(options.withSeccomp ? ['--seccomp', String(SECCOMP_FD)] : []),
    '--',
    options.python,
    '-I',
    HARNESS_PATH,
  ];
}
