import { describe, expect, it } from 'vitest';
import { Challenge } from 'mppx';
import type { AvailableProduct } from '../src/catalogue/types.ts';
import type { ExternalPaidCall } from '../src/payments/gate.ts';
import type { RunningService } from '../src/runtime.ts';
import { TEST_PRODUCTS } from './helpers/products.ts';
import { useTestService } from './helpers/service.ts';

const TEMPO_RECIPIENT = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';

// The `tempo` MPP method is a production option: its chain cannot run here, so its challenges are
// checked on the wire, and the gate path it settles through is driven with a stand-in broadcast.
describe('MPP tempo method (configured by env)', () => {
  let service: RunningService;
  useTestService((_chain, s) => (service = s), {
    products: TEST_PRODUCTS,
    env: { MPP_SECRET_KEY: 'tempo-test-secret-key-at-least-32-bytes', MPP_TEMPO_RECIPIENT: TEMPO_RECIPIENT, MPP_TEMPO_TESTNET: '1', PERCALL_FETCH_ALLOW_LOOPBACK: '1' },
  });

  const product = (path: string) => service.percall.catalogue.byHttpPath(path) as AvailableProduct;
  function tempoCall(path: string, key: string, settle: ExternalPaidCall['settle']): ExternalPaidCall {
    return {
      product: product(path),
      surface: 'http',
      input: {},
      key,
      terms: { network: 'eip155:42431', scheme: 'mpp-tempo', asset: '0x20c0000000000000000000000000000000000000', payTo: TEMPO_RECIPIENT, amount: '10000' },
      settle,
    };
  }

  it('offers an evm and a tempo challenge on MPP routes, both at the catalogue price', async () => {
    const response = await fetch(`${service.url}/api/v1/paid/endpoint-task-evaluation`, { method: 'POST' });
    expect(response.status).toBe(402);
    const challenges = Challenge.deserializeList(response.headers.get('www-authenticate')!);
    expect(challenges.map((c) => c.method)).toEqual(['evm', 'tempo']);
    const tempo = challenges[1]!.request as { amount: string; recipient: string; methodDetails?: { chainId?: number } };
    expect(tempo.amount).toBe('10000');
    expect(tempo.recipient).toBe(TEMPO_RECIPIENT);
    expect(tempo.methodDetails?.chainId).toBe(42431);
    const catalogue = (await (await fetch(`${service.url}/.well-known/x402.json`)).json()) as { mpp: { methods: string[] } };
    expect(catalogue.mpp.methods).toEqual(['evm', 'tempo']);
  });

  it('settles only after the product succeeded, once per credential', async () => {
    const broadcasts: string[] = [];
    const settle = async () => (broadcasts.push('sent'), { reference: '0x' + 'ab'.repeat(32) });
    const first = await service.percall.gate.executeExternal(tempoCall('/api/v1/paid/time', 'mpp-tempo:challenge-1', settle));
    expect(first.status).toBe('served');
    expect(first.status === 'served' && first.settlement).toMatchObject({ transaction: '0x' + 'ab'.repeat(32), network: 'eip155:42431', amount: '10000' });
    expect((await service.percall.store.settlement('mpp-tempo:challenge-1'))?.txHash).toBe('0x' + 'ab'.repeat(32));
    const again = await service.percall.gate.executeExternal(tempoCall('/api/v1/paid/time', 'mpp-tempo:challenge-1', settle));
    expect(again.status).toBe('payment_failed');
    expect(broadcasts).toHaveLength(1);
  });

  it('never broadcasts when the product fails, and the credential stays usable', async () => {
    let broadcasts = 0;
    const settle = async () => (broadcasts++, { reference: '0x' + 'cd'.repeat(32) });
    const failed = await service.percall.gate.executeExternal(tempoCall('/api/v1/paid/test-failing', 'mpp-tempo:challenge-2', settle));
    expect(failed.status).toBe('product_failed');
    expect(broadcasts).toBe(0);
    const retried = await service.percall.gate.executeExternal(tempoCall('/api/v1/paid/time', 'mpp-tempo:challenge-2', settle));
    expect(retried.status).toBe('served');
    expect(broadcasts).toBe(1);
  });

  it('parks a broadcast of unknown outcome as pending and never releases it', async () => {
    const settle = async (): Promise<{ reference: string }> => {
      throw new Error('rpc connection reset');
    };
    const result = await service.percall.gate.executeExternal(tempoCall('/api/v1/paid/time', 'mpp-tempo:challenge-3', settle));
    expect(result.status).toBe('pending');
    const again = await service.percall.gate.executeExternal(tempoCall('/api/v1/paid/time', 'mpp-tempo:challenge-3', async () => ({ reference: '0x00' })));
    expect(again.status).toBe('payment_failed');
  });
});
