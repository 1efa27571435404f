import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPayCommand } from '../src/client/pay-command.ts';
import { DEV_ROLES, mintUsdc, usdcBalance } from '../src/devchain/contracts.ts';
import type { DevChain } from '../src/devchain/stack.ts';
import type { RunningService } from '../src/runtime.ts';
import { localSite } from './helpers/local-site.ts';
import { startOpenAiDouble, type OpenAiDouble } from './helpers/openai-double.ts';
import { startTestChain, startTestService } from './helpers/service.ts';

// `npx percall pay` on each rail, with the dev buyers the service wrote to its data directory.
describe('the paying CLI on every rail', () => {
  let chain: DevChain;
  let service: RunningService & { dataDir: string };
  let upstream: OpenAiDouble;
  let target: Awaited<ReturnType<typeof localSite>>;

  beforeAll(async () => {
    upstream = await startOpenAiDouble('sk-cli-test-key');
    target = await localSite((_req, res) => res.end('ok'));
    chain = await startTestChain();
    service = await startTestService({
      chain,
      env: { INFERENCE_API_URL: upstream.url, INFERENCE_API_KEY: 'sk-cli-test-key', PERCALL_FETCH_ALLOW_LOOPBACK: '1', MPP_SECRET_KEY: 'cli-test-secret-key-at-least-32-bytes-long' },
    });
  });
  afterAll(async () => {
    await service?.stop();
    await chain?.stop();
    upstream?.close();
    target?.close();
  });

  async function pay(args: string[], env: Record<string, string> = {}): Promise<{ code: number; output: string }> {
    const lines: string[] = [];
    const saved = { ...process.env };
    Object.assign(process.env, { PERCALL_DATA_DIR: service.dataDir }, env);
    try {
      const code = await runPayCommand(args, (line) => lines.push(line));
      return { code, output: lines.join('\n') };
    } finally {
      process.env = saved;
    }
  }

  const inference = JSON.stringify({ model: 'openai/gpt-4.1-mini', messages: [{ role: 'user', content: 'hi' }] });

  it('--network solana pays x402 exact on Solana', async () => {
    const { code, output } = await pay(['GET', `${service.url}/api/v1/paid/time`, '--network', 'solana']);
    expect(code).toBe(0);
    expect(output).toContain('HTTP 200');
    expect(output).toContain(`network:     ${service.solanaDev!.network}`);
    expect(output).toContain('amount:      0.01 USDC (10000 atomic)');
  });

  it('--rail mpp pays with an MPP credential and prints the receipt', async () => {
    const { code, output } = await pay(['POST', `${service.url}/api/v1/paid/endpoint-task-evaluation`, '--rail', 'mpp', '--json', JSON.stringify({ target_url: target.url })]);
    expect(code).toBe(0);
    expect(output).toContain('HTTP 200');
    expect(output).toMatch(/MPP receipt: success \(evm\)\n {2}reference: {3}0x[0-9a-f]{64}/);
  });

  it('--scheme upto authorizes 1.00 and is charged 0.01', async () => {
    const { code, output } = await pay(['POST', `${service.url}/api/v1/paid/inference`, '--scheme', 'upto', '--json', inference]);
    expect(code).toBe(0);
    expect(output).toContain('amount:      0.01 USDC (10000 atomic), authorized up to 1.00');
  });

  it('--scheme upto approves Permit2 once for a payer that never did, then pays', async () => {
    const payer = DEV_ROLES.spare;
    await mintUsdc(chain.rpcUrl, DEV_ROLES.deployer.privateKey, chain.usdc, payer.address, 2_000_000n);
    const before = await usdcBalance(chain.rpcUrl, chain.usdc, payer.address);
    const { code, output } = await pay(['POST', `${service.url}/api/v1/paid/inference`, '--scheme', 'upto', '--json', inference], {
      PERCALL_PAYER_KEY: payer.privateKey,
      PERCALL_RPC_URL: chain.rpcUrl,
    });
    expect(output).toContain('Permit2 approval required');
    expect(code).toBe(0);
    expect(before - (await usdcBalance(chain.rpcUrl, chain.usdc, payer.address))).toBe(10_000n);
  });

  it('refuses combinations no rail offers', async () => {
    await expect(pay(['GET', `${service.url}/api/v1/paid/time`, '--network', 'solana', '--scheme', 'upto'])).rejects.toThrow(/EVM only/);
    await expect(pay(['GET', `${service.url}/api/v1/paid/time`, '--rail', 'lightning'])).rejects.toThrow(/--rail must be one of/);
  });
});
