import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createPublicClient, http } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPayCommand } from '../src/client/pay-command.ts';
import { DEV_ROLES, devChain, mintUsdc, usdcBalance } from '../src/devchain/contracts.ts';
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
      env: {
        INFERENCE_API_URL: upstream.url,
        INFERENCE_API_KEY: 'sk-cli-test-key',
        PERCALL_FETCH_ALLOW_LOOPBACK: '1',
        MPP_SECRET_KEY: 'cli-test-secret-key-at-least-32-bytes-long',
        // No claim round in the middle of a test: the batch-settlement test counts blocks.
        BATCH_CLAIM_INTERVAL_MS: '3600000',
      },
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

  it('--scheme batch-settlement: the first run deposits (one transaction), the next run reuses the channel with a voucher only', async () => {
    const publicClient = createPublicClient({ chain: devChain(chain.rpcUrl, chain.chainId), transport: http(chain.rpcUrl), cacheTime: 0 });
    const time = `${service.url}/api/v1/paid/time`;
    const channelLine = /channel: +(0x[0-9a-f]{64}) balance (\d+\.\d+) USDC, charged (\d+\.\d+), claimed (\d+\.\d+)/;

    const beforeDeposit = await publicClient.getBlockNumber();
    const first = await pay(['GET', time, '--scheme', 'batch-settlement', '--deposit', '0.10']);
    expect(first.code, first.output).toBe(0);
    expect(first.output).toContain('HTTP 200');
    expect(first.output).toContain('deposit:     0.10 USDC into the channel');
    const afterDeposit = await publicClient.getBlockNumber();
    expect(afterDeposit - beforeDeposit).toBe(1n); // the deposit, and nothing else

    const second = await pay(['GET', time, '--scheme', 'batch-settlement']);
    expect(second.code, second.output).toBe(0);
    expect(second.output).toContain('transaction: -');
    expect(second.output).toContain('deposit:     none (voucher only, nothing on chain)');
    expect(await publicClient.getBlockNumber()).toBe(afterDeposit);

    const [, firstChannel, firstBalance, firstCharged, firstClaimed] = channelLine.exec(first.output)!;
    const [, secondChannel, secondBalance, secondCharged, secondClaimed] = channelLine.exec(second.output)!;
    expect(secondChannel).toBe(firstChannel);
    expect([firstBalance, firstCharged, firstClaimed]).toEqual(['0.10', '0.01', '0.00']);
    expect([secondBalance, secondCharged, secondClaimed]).toEqual(['0.10', '0.02', '0.00']);
    // The channel's salt and the client's record of it are in the data directory.
    expect(await readdir(join(service.dataDir, 'batch-settlement', 'client'))).toEqual([`${firstChannel}.json`]);
  });

  it('refuses combinations no rail offers', async () => {
    await expect(pay(['GET', `${service.url}/api/v1/paid/time`, '--network', 'solana', '--scheme', 'upto'])).rejects.toThrow(/EVM only/);
    await expect(pay(['GET', `${service.url}/api/v1/paid/time`, '--rail', 'lightning'])).rejects.toThrow(/--rail must be one of/);
    await expect(pay(['GET', `${service.url}/api/v1/paid/time`, '--network', 'solana', '--scheme', 'batch-settlement'])).rejects.toThrow(/batch-settlement is offered on EVM only/);
    await expect(pay(['GET', `${service.url}/api/v1/paid/time`, '--rail', 'mpp', '--scheme', 'batch-settlement'])).rejects.toThrow(/batch-settlement is an x402 scheme: drop --rail mpp/);
    await expect(pay(['GET', `${service.url}/api/v1/paid/time`, '--deposit', '1'])).rejects.toThrow(/add --scheme batch-settlement/);
    await expect(pay(['GET', `${service.url}/api/v1/paid/time`, '--scheme', 'batch-settlement', '--deposit', '0'])).rejects.toThrow(/--deposit must be more than 0/);
  });
});
