// Starts a local anvil (Foundry) chain as a child process for development and tests.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, dirname, join } from 'node:path';

export interface AnvilOptions {
  /** Chain id, default 31337. */
  chainId?: number;
  /** Load the chain from this file if it exists and save it there periodically and on exit. */
  statePath?: string;
  /** Seconds between blocks (interval mining). Default: automine, one block per transaction. */
  blockTime?: number;
}

export interface AnvilHandle {
  rpcUrl: string;
  chainId: number;
  pid: number;
  /** Stops anvil (SIGTERM so it can write --state, SIGKILL after 5 s). Idempotent. */
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 15_000;
const STOP_GRACE_MS = 5_000;
const LISTENING = /Listening on (\S+):(\d+)/;

/** Finds the anvil binary: $ANVIL_BIN, then the @foundry-rs npm package (linux x64), then PATH. */
export function resolveAnvilBin(): string {
  const fromEnv = process.env.ANVIL_BIN;
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new Error(`ANVIL_BIN points to ${fromEnv}, which does not exist`);
    return fromEnv;
  }
  if (process.platform === 'linux' && process.arch === 'x64') {
    try {
      const pkg = createRequire(import.meta.url).resolve('@foundry-rs/anvil-linux-amd64/package.json');
      const bin = join(dirname(pkg), 'bin', 'anvil');
      if (existsSync(bin)) return bin;
    } catch {
      // optional dependency not installed; fall through to PATH
    }
  }
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const bin = join(dir, process.platform === 'win32' ? 'anvil.exe' : 'anvil');
    if (existsSync(bin)) return bin;
  }
  throw new Error(
    'anvil not found: set ANVIL_BIN, install the optional dependency @foundry-rs/anvil-linux-amd64 (linux x64), ' +
      'or install Foundry (https://getfoundry.sh) so that `anvil` is on PATH',
  );
}

export async function startAnvil(opts: AnvilOptions = {}): Promise<AnvilHandle> {
  const chainId = opts.chainId ?? 31337;
  const args = ['--host', '127.0.0.1', '--port', '0', '--chain-id', String(chainId)];
  if (opts.statePath) {
    mkdirSync(dirname(opts.statePath), { recursive: true });
    // Saved every second (anvil's finest interval); a ledger row whose transaction a restarted chain
    // lacks is flagged at start (Reconciler.checkLedgerAgainstChain), never silently kept.
    args.push('--state', opts.statePath, '--state-interval', '1');
  }
  if (opts.blockTime !== undefined) args.push('--block-time', String(opts.blockTime));

  const bin = resolveAnvilBin();
  const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });

  // Killing from an 'exit' handler must be synchronous; SIGTERM still lets anvil dump --state.
  const killOnExit = (): void => {
    child.kill('SIGTERM');
  };
  process.on('exit', killOnExit);

  // stdout carries the banner with the dev private keys: never log it or put it in errors.
  // Keep only stderr (bounded) to explain failures.
  let stderrTail = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderrTail = (stderrTail + chunk).slice(-2000);
  });

  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  let rpcUrl: string;
  try {
    rpcUrl = await new Promise<string>((resolve, reject) => {
      let buffer = '';
      const timer = setTimeout(
        () => reject(new Error(`anvil did not report its port within ${START_TIMEOUT_MS / 1000} s (${bin})`)),
        START_TIMEOUT_MS,
      );
      const onData = (chunk: string): void => {
        buffer += chunk;
        const m = LISTENING.exec(buffer);
        if (m) {
          clearTimeout(timer);
          child.stdout.off('data', onData);
          buffer = '';
          resolve(`http://${m[1]}:${m[2]}`);
        } else if (buffer.length > 64_000) {
          buffer = buffer.slice(-1000); // the marker is short; drop old banner text
        }
      };
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', onData);
      child.once('error', (err) => {
        clearTimeout(timer);
        reject(new Error(`failed to start anvil (${bin}): ${err.message}`));
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(
          new Error(
            `anvil exited before listening (code ${code ?? 'null'}, signal ${signal ?? 'none'})` +
              (stderrTail.trim() ? `: ${stderrTail.trim()}` : ''),
          ),
        );
      });
    });
  } catch (err) {
    process.off('exit', killOnExit);
    child.kill('SIGKILL');
    throw err;
  }

  // Anvil logs every RPC call to stdout; keep draining it or the pipe fills and anvil blocks.
  child.stdout.resume();

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      process.off('exit', killOnExit);
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
      await exited;
      clearTimeout(timer);
    })();
    return stopping;
  };

  if (child.pid === undefined) throw new Error('anvil started without a pid');
  return { rpcUrl, chainId, pid: child.pid, stop };
}
