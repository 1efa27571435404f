import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { PaymentRequired, SettleResponse } from '@x402/core/types';
import { createPayingFetch } from '../src/client/paying-fetch.ts';
import type { DevChain } from '../src/devchain/stack.ts';
import { usdToAtomic } from '../src/money.ts';
import { PythonSandbox, SandboxError, type InputFile, type RunResult } from '../src/sandbox/python-sandbox.ts';
import { syscallNumber } from '../src/sandbox/seccomp.ts';
import { runPythonSettingsFromEnv } from '../src/sandbox/settings.ts';
import type { RunningService } from '../src/runtime.ts';
import { signPayment } from './helpers/payments.ts';
import { balances, startTestChain, startTestService } from './helpers/service.ts';

// run_python: the sandbox against deliberate escape attempts (each case run in a sandbox of its
// own, with a short wall time, concurrently), then the product on sale, paid with the official
// clients over HTTP and MCP, its pool limit, and its free doors. The service must keep answering
// throughout. Requires bubblewrap and Debian's python3 with numpy, pandas, requests (.ci/run
// installs them; PERCALL_REQUIRE_SANDBOX makes their absence a failure).

/** An unprivileged uid of its own, so the test can tell whether any sandboxed process is left. */
const SANDBOX_UID = 61_234;
const KILLED_UID = 61_235;
const ESCAPE_WALL_MS = 2_500;
const escapeSettings = runPythonSettingsFromEnv({
  RUN_PYTHON_TIME_LIMIT_MS: String(ESCAPE_WALL_MS),
  RUN_PYTHON_CONCURRENCY: '8',
  RUN_PYTHON_QUEUE: '32',
  RUN_PYTHON_UID: String(SANDBOX_UID),
  RUN_PYTHON_NICE: '1',
});
const started = await PythonSandbox.start(escapeSettings);
if ('reason' in started && process.env.PERCALL_REQUIRE_SANDBOX) throw new Error(`PERCALL_REQUIRE_SANDBOX is set but: ${started.reason}`);
const suite = 'sandbox' in started ? describe : describe.skip;
const sandbox = 'sandbox' in started ? started.sandbox : (undefined as unknown as PythonSandbox);
/**
 * The memory bombs run with a longer wall limit: they end at the memory limit, but filling 512 MB
 * while the other escape cases (fork bombs, spinning loops) hold every core can take longer than
 * ESCAPE_WALL_MS, and a run stopped by the wall first would say timed_out instead.
 */
const MEMORY_WALL_MS = 15_000;
const memoryStarted = 'sandbox' in started ? await PythonSandbox.start({ ...escapeSettings, timeLimitMs: MEMORY_WALL_MS }) : started;
const memorySandbox = 'sandbox' in memoryStarted ? memoryStarted.sandbox : (undefined as unknown as PythonSandbox);

const PRICE = usdToAtomic('0.05');
let chain: DevChain;
let service: RunningService & { dataDir: string };
let port: number;

beforeAll(async () => {
  if (!('sandbox' in started)) return;
  chain = await startTestChain();
  service = await startTestService({
    chain,
    env: { RUN_PYTHON_CONCURRENCY: '5', RUN_PYTHON_QUEUE: '5', RUN_PYTHON_UID: String(SANDBOX_UID), RUN_PYTHON_NICE: '0' },
  });
  port = Number(new URL(service.localUrl).port);
});
afterAll(async () => {
  sandbox?.close();
  memorySandbox?.close();
  await service?.stop();
  await chain?.stop();
});

/** Runs code in the escape sandbox; its stdout parsed as JSON when asked. */
async function run(code: string, files: InputFile[] = []): Promise<RunResult> {
  return sandbox.run(code, files);
}
function json<T = Record<string, unknown>>(result: RunResult): T {
  expect(result.stderr, 'the probe itself failed').toBe('');
  return JSON.parse(result.stdout) as T;
}

/** Host processes running as the sandbox's uid: none may outlive its run. */
function sandboxProcesses(uid = SANDBOX_UID): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const owner = /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${entry}/status`, 'utf8'))?.[1];
      if (Number(owner) === uid) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** A probe's helper: `attempt(name, fn)` records the exception's type, or what was reached. */
const ATTEMPT = `import json
r = {}
def attempt(name, f):
    try:
        r[name] = f()
    except BaseException as e:
        r[name] = type(e).__name__
`;

suite('run_python: the sandbox holds against escape attempts', () => {
  it.concurrent('network: no socket leaves, not to loopback, the service port, DNS or requests', async () => {
    const result = await run(`${ATTEMPT}
import socket, requests
PORT = ${port}
def connect(host, port):
    socket.create_connection((host, port), timeout=1)
    return 'reached'
attempt('service_port', lambda: connect('127.0.0.1', PORT))
attempt('service_port_v6', lambda: connect('::1', PORT))
attempt('loopback_80', lambda: connect('127.0.0.1', 80))
attempt('dns', lambda: socket.getaddrinfo('example.com', 443) and 'resolved')
attempt('requests_service', lambda: requests.get(f'http://127.0.0.1:{PORT}/health', timeout=1).status_code)
attempt('requests_invalid', lambda: requests.get('https://percall-escape.invalid/', timeout=1).status_code)
r['interfaces'] = [name for _, name in socket.if_nameindex()]
print(json.dumps(r))`);
    expect(json(result)).toEqual({
      service_port: 'ConnectionRefusedError',
      service_port_v6: expect.stringMatching(/^(ConnectionRefusedError|OSError)$/),
      loopback_80: 'ConnectionRefusedError',
      dns: 'gaierror',
      requests_service: 'ConnectionError',
      // https: no CA bundle is inside either (OSError); http: the name does not resolve (ConnectionError).
      requests_invalid: expect.stringMatching(/^(ConnectionError|OSError)$/),
      interfaces: ['lo'],
    });
  });

  it.concurrent('host files: no shadow, no data directory, no environment, only its own mounts and processes', async () => {
    const result = await run(`${ATTEMPT}
import os
DATA = ${JSON.stringify(service.dataDir)}
def read(path):
    if os.path.isdir(path):
        return 'listed %d' % len(os.listdir(path))
    with open(path, 'rb') as f:
        return 'read %d' % len(f.read(16))
for path in ['/etc/shadow', '/etc/passwd', '/root', '/home', '/run', '/var', '/sys/kernel', DATA, DATA + '/dev.json', '/proc/1/environ', '/proc/1/mem', '/proc/1/root/etc']:
    attempt(path, lambda: read(path))
r['environ'] = sorted(v.split('=')[0] for v in open('/proc/self/environ').read().split('\\0') if v)
r['mounts'] = sorted(set(line.split()[4] for line in open('/proc/self/mountinfo')))
r['pids'] = sorted(int(p) for p in os.listdir('/proc') if p.isdigit())
r['root'] = sorted(os.listdir('/'))
r['uid'] = [os.getuid(), os.geteuid(), os.getgid()]
print(json.dumps(r))`);
    const r = json<Record<string, unknown>>(result);
    for (const path of ['/etc/shadow', '/etc/passwd', '/root', '/home', '/run', '/var', '/sys/kernel', service.dataDir, `${service.dataDir}/dev.json`]) expect(r[path], path).toBe('FileNotFoundError');
    // The supervisor (PID 1) is not dumpable: neither its memory nor its environment can be read.
    for (const path of ['/proc/1/environ', '/proc/1/mem', '/proc/1/root/etc']) expect(r[path], path).toBe('PermissionError');
    expect(r.environ).toEqual(['HOME', 'LANG', 'LOGNAME', 'MKL_NUM_THREADS', 'MPLBACKEND', 'MPLCONFIGDIR', 'OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'PATH', 'PYTHONDONTWRITEBYTECODE', 'PYTHONIOENCODING', 'TMPDIR', 'TZ', 'USER']);
    const allowedMounts = /^\/(|usr|proc(\/.*)?|dev(\/(null|zero|full|random|urandom|tty|pts|shm))?|tmp|work|opt\/percall\/harness\.py|etc\/(alternatives|ld\.so\.cache|ld\.so\.conf|ld\.so\.conf\.d|matplotlibrc)|(bin|sbin|lib|lib32|lib64|libx32))$/;
    for (const mount of r.mounts as string[]) expect(mount, 'mount point').toMatch(allowedMounts);
    // Its own PID namespace: the supervisor, the interpreter, nothing of the host.
    expect(r.pids).toEqual([1, 2]);
    for (const entry of r.root as string[]) expect(['bin', 'dev', 'etc', 'lib', 'lib32', 'lib64', 'libx32', 'opt', 'proc', 'sbin', 'tmp', 'usr', 'work']).toContain(entry);
    expect(r.uid).toEqual([1000, 1000, 1000]);
  });

  it.concurrent('writing outside the working directory fails; the working directory and /tmp are bounded', async () => {
    const result = await run(`${ATTEMPT}
def write(path):
    with open(path, 'w') as f:
        f.write('x')
    return 'written'
for path in ['/x', '/usr/x', '/etc/x', '/dev/x', '/opt/percall/harness.py', '/usr/lib/python3/dist-packages/x.py', '/proc/x', '/work/x', '/tmp/x', 'out/x']:
    attempt(path, lambda: write(path))
def fill(prefix, size):
    written = 0
    try:
        for i in range(10):
            with open('%s%d' % (prefix, i), 'wb') as f:
                for _ in range(size // (1 << 20)):
                    f.write(b'\\0' * (1 << 20))
                    written += 1 << 20
    except OSError as e:
        return [e.errno, written >> 20]
    return ['filled', written >> 20]
r['one_huge_file'] = fill('huge', 100 << 20)
r['fill_work'] = fill('part', 30 << 20)
r['fill_tmp'] = fill('/tmp/part', 30 << 20)
print(json.dumps(r))`);
    const r = json<Record<string, unknown>>(result);
    for (const path of ['/x', '/usr/x', '/etc/x', '/dev/x', '/opt/percall/harness.py', '/usr/lib/python3/dist-packages/x.py']) expect(r[path], path).toBe('OSError'); // EROFS
    expect(r['/proc/x']).toMatch(/^(PermissionError|OSError|FileNotFoundError)$/);
    for (const path of ['/work/x', '/tmp/x', 'out/x']) expect(r[path], path).toBe('written');
    expect(r.one_huge_file).toEqual([27, 32]); // EFBIG at the 32 MB file-size limit
    expect((r.fill_work as number[])[0]).toBe(28); // ENOSPC: the working directory holds 64 MB
    expect((r.fill_tmp as number[])[0]).toBe(28);
  });

  it.concurrent('fork bomb: the process limit stops it, and nothing it started outlives the run', async () => {
    const stopped = await run(`import os, time, json
n, err = 0, None
while n < 100000:
    try:
        pid = os.fork()
    except OSError as e:
        err = e.errno
        break
    if pid == 0:
        time.sleep(60)
        os._exit(0)
    n += 1
print(json.dumps({'forked': n, 'errno': err}))`);
    expect(json(stopped)).toEqual({ forked: expect.any(Number), errno: 11 });
    expect((json(stopped) as { forked: number }).forked).toBeLessThan(64);
    expect(stopped).toMatchObject({ exitCode: 0, timedOut: false });
  });

  it.concurrent('exponential, spinning fork bomb: held by the process limit, ended at the wall time with every process of it', async () => {
    const exponential = await run('import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass');
    expect(exponential).toMatchObject({ timedOut: true, exitCode: null });
  });

  it.concurrent('memory bomb: stopped at the limit, reported as memory_exceeded', async () => {
    const grown = await memorySandbox.run('a = []\nwhile True:\n    a.append(bytearray(10**7))', []);
    expect(grown).toMatchObject({ exitCode: 1, memoryExceeded: true, timedOut: false });
    expect(grown.stderr).toMatch(/MemoryError\s*$/);
  });

  it.concurrent('memory bomb across processes, each within its own address space: all stopped at the run’s limit', async () => {
    const result = await memorySandbox.run(`import os, time
for _ in range(3):
    os.fork()
chunks = []
for _ in range(40):
    chunks.append(b'x' * 10**7)  # touched: resident, 400 MB per process at the end
    time.sleep(0.01)
time.sleep(60)`, []);
    expect(result).toMatchObject({ memoryExceeded: true, timedOut: false, exitCode: null });
    expect(result.durationMs).toBeLessThan(MEMORY_WALL_MS);
  });

  it.concurrent('memory bomb in numpy: refused at the limit, reported as memory_exceeded', async () => {
    const numpy = await memorySandbox.run('import numpy as np\nx = np.ones((20000, 20000))', []);
    expect(numpy).toMatchObject({ exitCode: 1, memoryExceeded: true });
    expect(numpy.stderr).toMatch(/Unable to allocate/);
  });

  it.concurrent('infinite loop: stopped at the wall time, reported as timed_out', async () => {
    const result = await run('print("started", flush=True)\nwhile True:\n    pass');
    expect(result).toMatchObject({ timedOut: true, exitCode: null, memoryExceeded: false, stdout: 'started\n' });
    expect(result.durationMs).toBeGreaterThanOrEqual(ESCAPE_WALL_MS - 50);
    expect(result.durationMs).toBeLessThan(ESCAPE_WALL_MS + 1_000);
  });

  it.concurrent('100 MB of stdout: bounded, marked truncated, and the run completes', async () => {
    const result = await run("import sys\nchunk = 'x' * (1 << 20)\nfor _ in range(100):\n    sys.stdout.write(chunk)\nsys.stdout.write('END')\nprint('done', file=sys.stderr)");
    expect(result).toMatchObject({ exitCode: 0, timedOut: false, stdoutTruncated: true, stderrTruncated: false, stderr: 'done\n' });
    expect(result.stdout.length).toBeLessThan(65 * 1024);
    expect(result.stdout).toMatch(/\n\[\.\.\. \d+ bytes not shown \.\.\.\]\nx+END$/);
  });

  it.concurrent('artifacts: links to host files, hard links, directories and oversize files are not returned', async () => {
    const result = await run(`import os
open('mine.txt', 'w').write('mine')
os.symlink('/etc/ld.so.cache', 'out/link_to_host_file')
os.symlink('/proc/1/environ', 'out/link_to_environ')
os.link('mine.txt', 'out/hard_link')
try:
    os.link('/usr/bin/python3', 'out/hard_link_to_host')
    print('host file hard-linked')
except OSError as e:
    print('host hard link refused', e.errno)
open('out/big.bin', 'wb').write(os.urandom(200 * 1024))
os.mkdir('out/dir')
open('out/ok.txt', 'w').write('fine')`);
    expect(result).toMatchObject({ exitCode: 0, stdout: 'host hard link refused 18\n' }); // EXDEV
    expect(result.artifacts).toEqual([{ name: 'ok.txt', size: 4, contentType: 'text/plain; charset=utf-8', base64: Buffer.from('fine').toString('base64') }]);
    expect(result.artifactsSkipped).toEqual([
      { name: 'big.bin', reason: 'larger than 196608 bytes' },
      { name: 'dir', reason: 'not a regular file' },
      { name: 'hard_link', reason: 'a hard link, not a file of its own' },
      { name: 'link_to_environ', reason: 'a symbolic link, not a file' },
      { name: 'link_to_host_file', reason: 'a symbolic link, not a file' },
    ]);
    // ./out itself replaced by a link into the system: nothing is collected through it.
    const swapped = await run("import os\nos.rmdir('out')\nos.symlink('/usr/lib/python3.11', 'out')");
    expect(swapped).toMatchObject({ exitCode: 0, artifacts: [], artifactsSkipped: [{ name: 'out', reason: './out is not a directory' }] });
  });

  it.concurrent('killing the parent: the supervisor cannot be signalled and the service is out of sight', async () => {
    const result = await run(`${ATTEMPT}
import os, signal, time
def kill(pid):
    os.kill(pid, signal.SIGKILL)
    return 'sent'
attempt('supervisor', lambda: kill(1))
attempt('parent', lambda: kill(os.getppid()))
attempt('service', lambda: kill(${process.pid}))
time.sleep(0.2)
r['parent_pid'] = os.getppid()
r['alive'] = True
print(json.dumps(r))`);
    // PID 1 of a namespace ignores signals it has no handler for: "sent", and nothing happens.
    expect(json(result)).toEqual({ supervisor: 'sent', parent: 'sent', service: 'ProcessLookupError', parent_pid: 1, alive: true });
  });

  it.concurrent('ptrace and other calls of an escape fail (seccomp), also from native code', async () => {
    const nr = (name: Parameters<typeof syscallNumber>[0]) => syscallNumber(name) ?? -1;
    const result = await run(`${ATTEMPT}
import ctypes, os, threading
libc = ctypes.CDLL(None, use_errno=True)
def call(nr, *args):
    if nr < 0:
        return 'unknown'
    ctypes.set_errno(0)
    res = libc.syscall(nr, *[ctypes.c_long(a) for a in args])
    return 'allowed' if res != -1 else ctypes.get_errno()
pid = os.fork()
if pid == 0:
    import time
    time.sleep(5)
    os._exit(0)
r['ptrace_attach_child'] = call(${nr('ptrace')}, 16, pid, 0, 0)
r['ptrace_attach_supervisor'] = call(${nr('ptrace')}, 16, 1, 0, 0)
r['ptrace_traceme'] = call(${nr('ptrace')}, 0, 0, 0, 0)
r['process_vm_readv'] = call(${nr('process_vm_readv')}, 1, 0, 0, 0, 0, 0)
r['unshare_user'] = call(${nr('unshare')}, 0x10000000)
r['unshare_net'] = call(${nr('unshare')}, 0x40000000)
r['clone_newns'] = call(${nr('clone')}, 0x00020000 | 17, 0, 0, 0, 0)
r['clone3'] = call(${nr('clone3')}, 0, 0)
r['mount'] = call(${nr('mount')}, 0, 0, 0, 0, 0)
r['keyctl'] = call(${nr('keyctl')}, 0, 0, 0, 0, 0)
r['bpf'] = call(${nr('bpf')}, 0, 0, 0)
r['perf_event_open'] = call(${nr('perf_event_open')}, 0, 0, 0, 0, 0)
r['userfaultfd'] = call(${nr('userfaultfd')}, 0)
r['io_uring_setup'] = call(${nr('io_uring_setup')}, 1, 0)
os.kill(pid, 9)
t = threading.Thread(target=lambda: r.__setitem__('thread', 'ran'))
t.start()
t.join()
r['seccomp'] = [l.split()[1] for l in open('/proc/self/status') if l.startswith('Seccomp:')][0]
print(json.dumps(r))`);
    const EPERM = 1;
    const ENOSYS = 38;
    expect(json(result)).toEqual({
      ptrace_attach_child: EPERM,
      ptrace_attach_supervisor: EPERM,
      ptrace_traceme: EPERM,
      process_vm_readv: EPERM,
      unshare_user: EPERM,
      unshare_net: EPERM,
      clone_newns: EPERM,
      clone3: ENOSYS,
      mount: EPERM,
      keyctl: EPERM,
      bpf: EPERM,
      perf_event_open: EPERM,
      userfaultfd: EPERM,
      io_uring_setup: EPERM,
      thread: 'ran',
      seccomp: '2',
    });
  });

  it.concurrent('a C extension loaded from an input file runs inside the same walls', async () => {
    const dynload = '/usr/lib/python3.11/lib-dynload';
    const extension = readdirSync(dynload).find((name) => /^xxlimited\.cpython-.*\.so$/.test(name))!;
    const result = await run(
      `${ATTEMPT}
import ctypes, os
import xxlimited
r['loaded_from'] = xxlimited.__file__
r['works'] = type(xxlimited.Xxo()).__name__
libc = ctypes.CDLL(None, use_errno=True)
def native(fn, *args):
    ctypes.set_errno(0)
    return 'allowed' if fn(*args) == 0 else ctypes.get_errno()
r['unshare'] = native(libc.unshare, 0x10000000)
r['chroot'] = native(libc.chroot, b'/')
r['setuid_root'] = native(libc.setuid, 0)
attempt('shadow', lambda: open('/etc/shadow').read())
print(json.dumps(r))`,
      [{ name: extension, bytes: readFileSync(join(dynload, extension)) }],
    );
    expect(json(result)).toEqual({ loaded_from: `/work/${basename(extension)}`, works: 'Xxo', unshare: 1, chroot: 1, setuid_root: 22, shadow: 'FileNotFoundError' });
  });

  it.concurrent('a sandbox whose bwrap is killed from outside takes every process of it along (--die-with-parent)', async () => {
    // A sandbox of its own uid, so its processes are told apart from the concurrent cases'.
    const own = await PythonSandbox.start({ ...escapeSettings, uid: KILLED_UID, timeLimitMs: 20_000 });
    if (!('sandbox' in own)) throw new Error(own.reason);
    const running = own.sandbox.run('import os, time\nfor _ in range(3):\n    os.fork()\ntime.sleep(30)', []);
    running.catch(() => undefined);
    let bwrap: number | undefined;
    for (const until = Date.now() + 15_000; bwrap === undefined && Date.now() < until; ) {
      await new Promise((r) => setTimeout(r, 50));
      // bwrap, the supervisor, and the 8 processes of the run
      if (sandboxProcesses(KILLED_UID).length >= 2 + 8) bwrap = bwrapChildOf(process.pid, KILLED_UID);
    }
    expect(bwrap, 'the sandbox started its 8 processes').toBeDefined();
    process.kill(bwrap!, 'SIGKILL');
    await expect(running).rejects.toBeInstanceOf(SandboxError);
    for (let i = 0; i < 100 && sandboxProcesses(KILLED_UID).length > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(sandboxProcesses(KILLED_UID)).toEqual([]);
  });

  it('after all of it: no sandboxed process is left, and the service answers', async () => {
    for (let i = 0; i < 100 && sandboxProcesses().length > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(sandboxProcesses()).toEqual([]);
    expect((await fetch(`${service.url}/health`)).status).toBe(200);
  });
});

/** Our own bwrap child running as `uid` (bwrap runs as the sandbox's uid; its parent is this process). */
function bwrapChildOf(parent: number, uid: number): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [, comm, rest] = /^\d+ \((.*)\) (.*)$/s.exec(stat)!;
      if (comm === 'bwrap' && Number(rest!.split(' ')[1]) === parent && sandboxProcesses(uid).includes(Number(entry))) return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

/** Rows of a CSV and the group-by pandas must find. */
function salesCsv(rows: number): { csv: string; totals: Record<string, { count: number; sum: number }> } {
  const regions = ['east', 'north', 'south', 'west'];
  const totals: Record<string, { count: number; sum: number }> = {};
  const lines = ['region,amount'];
  for (let i = 0; i < rows; i++) {
    const region = regions[(i * 7) % regions.length]!;
    const cents = (i * 37) % 10_000;
    lines.push(`${region},${(cents / 100).toFixed(2)}`);
    totals[region] ??= { count: 0, sum: 0 };
    totals[region].count++;
    totals[region].sum += cents;
  }
  return { csv: `${lines.join('\n')}\n`, totals };
}

/** Writes a bar chart of the sums as a PNG with the standard library only, and the summary as CSV. */
const GROUP_BY = `import json, struct, zlib
import pandas as pd
df = pd.read_csv('sales.csv')
summary = df.groupby('region')['amount'].agg(['count', 'sum'])
summary.to_csv('out/summary.csv')
def png(width, height, pixel):
    raw = b''.join(b'\\0' + b''.join(pixel(x, y) for x in range(width)) for y in range(height))
    chunk = lambda kind, data: struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data))
    return b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', width, height, 8, 2, 0, 0, 0)) + chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b'')
heights = (summary['sum'] / summary['sum'].max() * 40).round().astype(int).tolist()
open('out/chart.png', 'wb').write(png(10 * len(heights), 40, lambda x, y: b'\\x20\\x60\\xc0' if 40 - y <= heights[x // 10] else b'\\xff\\xff\\xff'))
print(json.dumps({region: {'count': int(row['count']), 'cents': int(round(row['sum'] * 100))} for region, row in summary.iterrows()}))`;

type Output = {
  stdout: string;
  stderr: string;
  exit_code: number | null;
  timed_out: boolean;
  memory_exceeded: boolean;
  artifacts: { name: string; content_type: string; size: number; base64: string }[];
  python_version: string;
};

suite('run_python on sale: paid with the official clients', () => {
  const paying = () => createPayingFetch(chain.buyer.privateKey, { allowedAssets: [{ network: chain.network, asset: chain.usdc }] });
  const route = () => `${service.url}/api/v1/paid/run-python`;
  const post = (pay: typeof fetch, body: unknown) => pay(route(), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('HTTP (@x402/fetch): a pandas group-by over an input CSV gives the right numbers, a CSV and a PNG artifact', async () => {
    const { csv, totals } = salesCsv(10_000);
    expect(Buffer.byteLength(csv)).toBeGreaterThan(64 * 1024); // more than the default body limit: the route takes larger bodies
    const unpaid = await post(fetch, { code: GROUP_BY, files: [{ name: 'sales.csv', content: csv }] });
    expect(unpaid.status).toBe(402);
    const before = await balances(chain);
    const response = await post(paying(), { code: GROUP_BY, files: [{ name: 'sales.csv', content: csv }] });
    expect(response.status).toBe(200);
    const out = (await response.json()) as Output;
    expect(out).toMatchObject({ exit_code: 0, timed_out: false, memory_exceeded: false, stderr: '', python_version: sandbox.pythonVersion });
    expect(out.python_version).toMatch(/^3\.11\.\d+$/);
    expect(JSON.parse(out.stdout)).toEqual(Object.fromEntries(Object.entries(totals).sort().map(([region, t]) => [region, { count: t.count, cents: t.sum }])));
    expect(out.artifacts.map((a) => [a.name, a.content_type])).toEqual([
      ['chart.png', 'image/png'],
      ['summary.csv', 'text/csv; charset=utf-8'],
    ]);
    const rows = Buffer.from(out.artifacts[1]!.base64, 'base64').toString().trim().split('\n').map((line) => line.split(','));
    expect(rows).toEqual([['region', 'count', 'sum'], ...Object.entries(totals).sort().map(([region, t]) => [region, String(t.count), expect.stringMatching(new RegExp(`^${t.sum / 100}(\\.0)?$`))])]);
    expect(before.buyer - (await balances(chain)).buyer).toBe(PRICE);
  });

  it('HTTP: a run that hits the memory limit ran, and is charged', async () => {
    const before = await balances(chain);
    const response = await post(paying(), { code: 'a = []\nwhile True:\n    a.append(bytearray(10**7))' });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ exit_code: 1, memory_exceeded: true, timed_out: false });
    expect(before.buyer - (await balances(chain)).buyer).toBe(PRICE);
  });

  it('MCP: run_python is listed; a run whose code raises is delivered and charged', async () => {
    const client = new Client({ name: 'run-python-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`)));
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === 'run_python')?.outputSchema).toBeDefined();
    const args = { code: 'print("before")\n1 / 0' };
    const unpaid = (await client.callTool({ name: 'run_python', arguments: args })) as { isError?: boolean; structuredContent?: unknown };
    expect(unpaid.isError).toBe(true);
    const payment = await signPayment(chain.buyer.privateKey, unpaid.structuredContent as PaymentRequired);
    const before = await balances(chain);
    const result = (await client.callTool({ name: 'run_python', arguments: args, _meta: { 'x402/payment': payment } })) as { isError?: boolean; structuredContent?: Output; _meta?: Record<string, unknown> };
    expect(result.isError).toBeFalsy();
    expect(result._meta?.['x402/payment-response'] as SettleResponse).toMatchObject({ success: true, network: chain.network });
    expect(result.structuredContent).toMatchObject({ stdout: 'before\n', exit_code: 1, timed_out: false });
    expect(result.structuredContent!.stderr).toMatch(/ZeroDivisionError: division by zero\n$/);
    expect(before.buyer - (await balances(chain)).buyer).toBe(PRICE);
    await client.close();
  });

  it('10 concurrent runs complete; the 11th beyond the queue gets 503 with Retry-After and is not charged', async () => {
    const pay = paying();
    const before = await balances(chain);
    const ten = Array.from({ length: 10 }, (_, i) => post(pay, { code: `import time\ntime.sleep(1)\nprint(${i})` }));
    const pool = () => service.percall.python!.poolStats;
    for (let i = 0; i < 500 && !(pool().active === 5 && pool().queued === 5); i++) await new Promise((r) => setTimeout(r, 10));
    expect(pool()).toEqual({ active: 5, queued: 5 });
    const eleventh = await post(pay, { code: 'print("eleventh")' });
    expect(eleventh.status).toBe(503);
    expect(Number(eleventh.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await eleventh.json()) as { detail: string }).detail).toMatch(/nothing was charged/);
    const answers = await Promise.all(ten);
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect((await Promise.all(answers.map((a) => a.json() as Promise<Output>))).map((o) => o.stdout)).toEqual(Array.from({ length: 10 }, (_, i) => `${i}\n`));
    expect(before.buyer - (await balances(chain)).buyer).toBe(10n * PRICE);
  });

  it('the validate door: good code is valid, bad code gets line and column, nothing is executed', async () => {
    const validate = (code: string) => fetch(`${service.url}/api/v1/run-python/validate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code }) });
    const good = await validate('import time\ntime.sleep(60)\nraise SystemExit(3)');
    expect(good.status).toBe(200);
    expect(await good.json()).toEqual({ valid: true, errors: [], python_version: sandbox.pythonVersion });
    const bad = await validate('x = 1\nif x == 1\n    print(x)\n');
    expect(await bad.json()).toEqual({
      valid: false,
      errors: [{ type: 'SyntaxError', message: "expected ':'", line: 2, column: 10, end_line: 2, end_column: 10, text: 'if x == 1' }],
      python_version: sandbox.pythonVersion,
    });
    const compileError = (await (await validate('def f():\n    pass\nreturn 1')).json()) as { errors: { message: string; line: number }[] };
    expect(compileError.errors).toMatchObject([{ message: "'return' outside function", line: 3 }]);
    expect((await validate('')).status).toBe(400);
  });

  it('the example door: the worked example and this instance’s real answer to it', async () => {
    const response = await fetch(`${service.url}/api/v1/run-python/example`);
    expect(response.status).toBe(200);
    const example = (await response.json()) as { path: string; request: { code: string }; response: Output };
    expect(example.path).toBe('/api/v1/paid/run-python');
    expect(example.response).toMatchObject({ exit_code: 0, stdout: '        count    sum   mean\nregion                     \neast        2  220.0  110.0\nnorth       1   42.0   42.0\nwest        2  100.0   50.0\n' });
    expect(example.response.artifacts.map((a) => a.name)).toEqual(['summary.csv']);
  });
});

suite('run_python where no sandbox can start', () => {
  let bare: RunningService;
  beforeAll(async () => {
    bare = await startTestService({ chain, env: { RUN_PYTHON_BWRAP: '/nonexistent/bwrap', RATE_LIMITS: 'free=2/m' } });
  });
  afterAll(() => bare?.stop());

  it('is not on sale (501, not listed, never run unsandboxed) and its doors say so, rate-limited per client', async () => {
    const route = await fetch(`${bare.url}/api/v1/paid/run-python`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code: 'print(1)' }) });
    expect(route.status).toBe(501);
    expect(((await route.json()) as { detail: string }).detail).toMatch(/bubblewrap/);
    expect(await (await fetch(`${bare.url}/llms.txt`)).text()).not.toMatch(/run-python|run_python/);
    const doors = [await fetch(`${bare.url}/api/v1/run-python/example`), await fetch(`${bare.url}/api/v1/run-python/example`), await fetch(`${bare.url}/api/v1/run-python/example`)];
    expect(doors.map((d) => d.status)).toEqual([501, 501, 429]);
    expect(Number(doors[2]!.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
