# The supervisor inside the sandbox (see src/sandbox/README.md). bubblewrap starts it as PID 1 of
# the sandbox's PID namespace (--as-pid-1), so code of the run can neither kill it (init ignores
# signals it has no handler for) nor outlive it (when it exits, the kernel kills every process in
# the namespace). It reads one JSON request on stdin, runs the caller's code as its child with the
# resource limits, captures stdout and stderr up to their caps, ends the run at the wall-time
# limit by killing every other process of the namespace, collects the artifacts from ./out/ and
# writes one JSON result on stdout. Diagnostics go to stderr.
import base64
import ctypes
import json
import os
import resource
import select
import signal
import stat
import sys
import time

WORKDIR = '/work'
OUT_DIR = os.path.join(WORKDIR, 'out')
SCRIPT = 'main.py'
TAIL_BYTES = 4096
PR_SET_DUMPABLE = 4
# The address-space limit holds per process; the run's total resident memory is checked this often.
MEMORY_CHECK_SECONDS = 0.05
PAGE_BYTES = os.sysconf('SC_PAGE_SIZE')
SKIPPED_SHOWN = 20
# ./out is looked at up to this many entries (a run may have filled it with files).
ENTRIES_LOOKED_AT = 1000

# Checks syntax only: compile() parses and compiles to bytecode, and nothing is executed.
VALIDATE = r'''
import json, sys
source = open(sys.argv[1], 'rb').read()
errors = []
try:
    compile(source, 'main.py', 'exec', dont_inherit=True)
except SyntaxError as e:
    errors.append({'type': type(e).__name__, 'message': e.msg, 'line': e.lineno, 'column': e.offset,
                   'end_line': getattr(e, 'end_lineno', None), 'end_column': getattr(e, 'end_offset', None),
                   'text': (e.text or '').rstrip('\n')[:500] or None})
except (ValueError, MemoryError, RecursionError) as e:
    errors.append({'type': type(e).__name__, 'message': str(e) or 'the code is too deeply nested', 'line': None, 'column': None,
                   'end_line': None, 'end_column': None, 'text': None})
sys.stdout.write(json.dumps({'errors': errors}))
'''


class Capture:
    """One output stream: the first bytes up to its cap, then only a rolling tail and a count."""

    def __init__(self, cap):
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0
        self.head_cap = max(0, cap - cap // 4)
        self.tail_cap = cap // 4

    def add(self, chunk):
        self.total += len(chunk)
        room = self.head_cap - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk and self.tail_cap > 0:
            self.tail += chunk
            del self.tail[:-self.tail_cap]

    def truncated(self):
        return self.total > len(self.head) + len(self.tail)

    def text(self):
        head = self.head.decode('utf-8', 'replace')
        if not self.tail:
            return head
        if not self.truncated():
            return (self.head + self.tail).decode('utf-8', 'replace')
        cut = self.total - len(self.head) - len(self.tail)
        return head + '\n[... %d bytes not shown ...]\n' % cut + self.tail.decode('utf-8', 'replace')

    def last_bytes(self):
        # The tail, when there is one, ends where the stream ended.
        return bytes((self.head + self.tail)[-TAIL_BYTES:])


def set_limits(limits):
    memory = limits['memory_bytes']
    cpu = limits['cpu_seconds']
    for name, value in (
        ('RLIMIT_AS', (memory, memory)),
        ('RLIMIT_CPU', (cpu, cpu + 1)),
        ('RLIMIT_NPROC', (limits['processes'], limits['processes'])),
        ('RLIMIT_NOFILE', (limits['open_files'], limits['open_files'])),
        ('RLIMIT_FSIZE', (limits['file_bytes'], limits['file_bytes'])),
        ('RLIMIT_CORE', (0, 0)),
        ('RLIMIT_MEMLOCK', (0, 0)),
        ('RLIMIT_MSGQUEUE', (0, 0)),
        ('RLIMIT_NICE', (0, 0)),
        ('RLIMIT_RTPRIO', (0, 0)),
    ):
        if hasattr(resource, name):
            resource.setrlimit(getattr(resource, name), value)


def spawn(argv, env, limits):
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.setsid()
            for sig in (signal.SIGINT, signal.SIGPIPE, signal.SIGXFSZ, signal.SIGTERM):
                signal.signal(sig, signal.SIG_DFL)
            null = os.open('/dev/null', os.O_RDONLY)
            os.dup2(null, 0)
            os.dup2(out_w, 1)
            os.dup2(err_w, 2)
            os.closerange(3, 65536)
            set_limits(limits)
            os.execve(argv[0], argv, env)
        finally:
            os._exit(127)
    os.close(out_w)
    os.close(err_w)
    return pid, out_r, err_r


def kill_all_others():
    # From PID 1, kill(-1) reaches every other process of the namespace: the whole tree of the run,
    # daemons and orphans included.
    try:
        os.kill(-1, signal.SIGKILL)
    except ProcessLookupError:
        pass


def resident_bytes():
    """Resident memory of every process of the run (all of the namespace but this supervisor)."""
    total = 0
    for entry in os.listdir('/proc'):
        if entry.isdigit() and entry != '1':
            try:
                with open('/proc/%s/statm' % entry, 'rb') as f:
                    total += int(f.read().split()[1]) * PAGE_BYTES
            except (OSError, ValueError, IndexError):
                pass
    return total


def supervise(pid, fds, caps, wall_seconds, memory_bytes):
    """Runs until the child has exited and its outputs are closed, until the wall-time limit, or until the run's memory passes its limit."""
    captures = {fd: Capture(cap) for fd, cap in zip(fds, caps)}
    open_fds = set(fds)
    status = None
    timed_out = False
    over_memory = False
    started = time.monotonic()
    deadline = started + wall_seconds
    next_memory_check = started
    while True:
        # Reap everything: orphans of the run become our children (we are init).
        while True:
            try:
                reaped, code = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if reaped == 0:
                break
            if reaped == pid:
                status = code
                # The run is over when its main process is: nothing it left behind keeps going.
                kill_all_others()
                deadline = min(deadline, time.monotonic() + 1)
        if status is not None and not open_fds:
            break
        now = time.monotonic()
        if status is None and now >= next_memory_check:
            next_memory_check = now + MEMORY_CHECK_SECONDS
            if resident_bytes() > memory_bytes:
                # Several processes, each within its address space, together over the run's memory.
                over_memory = True
                kill_all_others()
                deadline = min(deadline, now + 1)
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            if status is None and not over_memory:
                timed_out = True
            kill_all_others()
            break
        if not open_fds:
            time.sleep(min(remaining, 0.01))
            continue
        ready, _, _ = select.select(list(open_fds), [], [], min(remaining, 0.05))
        for fd in ready:
            chunk = os.read(fd, 65536)
            if chunk:
                captures[fd].add(chunk)
            else:
                open_fds.discard(fd)
    duration = time.monotonic() - started
    # Everything is dead or dying: take what is left in the pipes and reap.
    for fd in list(open_fds):
        try:
            os.set_blocking(fd, False)
            while True:
                chunk = os.read(fd, 65536)
                if not chunk:
                    break
                captures[fd].add(chunk)
        except (BlockingIOError, OSError):
            pass
    if status is None:
        try:
            _, status = os.waitpid(pid, 0)
        except ChildProcessError:
            status = None
    while True:
        try:
            if os.waitpid(-1, 0)[0] == 0:
                break
        except ChildProcessError:
            break
    return status, timed_out and not over_memory, over_memory, duration, [captures[fd] for fd in fds]


def exit_code_of(status):
    if status is None:
        return None
    if os.WIFEXITED(status):
        return os.WEXITSTATUS(status)
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return None


def memory_exceeded(status, stderr, limits, timed_out):
    """The run ended on the memory limit: an uncaught MemoryError, or an interpreter killed after using nearly all of it."""
    if timed_out:
        return False
    lines = [l for l in stderr.last_bytes().decode('utf-8', 'replace').splitlines() if l.strip()]
    if lines and lines[-1].split(':')[0].strip().endswith('MemoryError'):
        return True
    if status is not None and os.WIFSIGNALED(status) and os.WTERMSIG(status) in (signal.SIGSEGV, signal.SIGABRT, signal.SIGBUS, signal.SIGKILL):
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
        return peak >= limits['memory_bytes'] * 0.5
    return False


def artifacts(limits):
    found, skipped = [], []
    try:
        if not stat.S_ISDIR(os.lstat(OUT_DIR).st_mode):
            return found, [{'name': 'out', 'reason': './out is not a directory'}]
        entries, unlisted = [], 0
        with os.scandir(OUT_DIR) as scan:
            for entry in scan:
                if len(entries) < ENTRIES_LOOKED_AT:
                    entries.append(entry.name)
                else:
                    unlisted += 1
        entries.sort()
    except OSError:
        return found, skipped
    for name in entries:
        path = os.path.join(OUT_DIR, name)
        try:
            info = os.lstat(path)
        except OSError:
            continue
        if stat.S_ISLNK(info.st_mode):
            skipped.append({'name': name, 'reason': 'a symbolic link, not a file'})
        elif not stat.S_ISREG(info.st_mode):
            skipped.append({'name': name, 'reason': 'not a regular file'})
        elif info.st_nlink != 1:
            skipped.append({'name': name, 'reason': 'a hard link, not a file of its own'})
        elif info.st_size > limits['artifact_bytes']:
            skipped.append({'name': name, 'reason': 'larger than %d bytes' % limits['artifact_bytes']})
        elif len(found) >= limits['artifacts']:
            skipped.append({'name': name, 'reason': 'more than %d artifacts' % limits['artifacts']})
        else:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
            try:
                data = b''
                while len(data) <= limits['artifact_bytes']:
                    chunk = os.read(fd, limits['artifact_bytes'] + 1 - len(data))
                    if not chunk:
                        break
                    data += chunk
            finally:
                os.close(fd)
            if len(data) > limits['artifact_bytes']:
                skipped.append({'name': name, 'reason': 'larger than %d bytes' % limits['artifact_bytes']})
                continue
            found.append({'name': name, 'size': len(data), 'base64': base64.b64encode(data).decode('ascii')})
    if len(skipped) > SKIPPED_SHOWN or unlisted:
        more = max(0, len(skipped) - SKIPPED_SHOWN) + unlisted
        skipped = skipped[:SKIPPED_SHOWN] + [{'name': '...', 'reason': '%d more entries not returned' % more}]
    return found, skipped


def main():
    ctypes.CDLL(None).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)  # no /proc/1/mem, environ or ptrace for the run
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    request = json.loads(sys.stdin.buffer.read())
    limits = request['limits']
    os.nice(limits['nice'])
    os.chdir(WORKDIR)
    os.mkdir(OUT_DIR)
    with open(SCRIPT, 'wb') as f:
        f.write(request['code'].encode('utf-8'))
    for file in request.get('files', []):
        with open(file['name'], 'wb') as f:
            f.write(base64.b64decode(file['base64']))
    python = request['python']
    env = request['env']
    if request['mode'] == 'validate':
        argv = [python, '-E', '-s', '-S', '-c', VALIDATE, SCRIPT]
    else:
        argv = [python, '-E', '-s', SCRIPT]
    pid, out_fd, err_fd = spawn(argv, env, limits)
    sys.stdout.write(json.dumps({'started': True}) + '\n')
    sys.stdout.flush()
    status, timed_out, over_memory, duration, (stdout, stderr) = supervise(pid, [out_fd, err_fd], [limits['stdout_bytes'], limits['stderr_bytes']], limits['wall_ms'] / 1000, limits['memory_bytes'])
    found, skipped = artifacts(limits) if request['mode'] == 'run' else ([], [])
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    result = {
        'exit_code': None if timed_out or over_memory else exit_code_of(status),
        'timed_out': timed_out,
        'memory_exceeded': over_memory or memory_exceeded(status, stderr, limits, timed_out),
        'duration_ms': round(duration * 1000),
        'cpu_ms': round((usage.ru_utime + usage.ru_stime) * 1000),
        'max_rss_bytes': usage.ru_maxrss * 1024,
        'stdout': stdout.text(),
        'stdout_bytes': stdout.total,
        'stdout_truncated': stdout.truncated(),
        'stderr': stderr.text(),
        'stderr_bytes': stderr.total,
        'stderr_truncated': stderr.truncated(),
        'artifacts': found,
        'artifacts_skipped': skipped,
    }
    sys.stdout.write(json.dumps(result) + '\n')
    sys.stdout.flush()


main()
