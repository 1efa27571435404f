import { describe, expect, it } from 'vitest';
import { response, stubFetch } from '../products/kit/fake-context.ts';
import { SafeFetchError } from './safe-fetch.ts';
import { fixtureWallet, memoryLedger, paymentRequired } from './operator-wallet.fixture.ts';

const URL_ = 'https://seller.test/paid';

describe('the operator wallet', () => {
  it('a paid request answered without a settlement stays unknown (counted against the cap) until its authorization lapses; then the chain ends it', async () => {
    for (const used of [false, true]) {
      const ledger = memoryLedger();
      let now = new Date();
      const wallet = fixtureWallet({ ledger, moved: used, clock: () => now });
      const fetch = stubFetch({ [URL_]: (request) => (request.headers?.['PAYMENT-SIGNATURE'] ? response({ error: 'boom' }, { status: 500 }) : paymentRequired(URL_, '1000')) });
      const result = await wallet.pay({ url: URL_, maxAmount: 1000n, product: 'fetch-x402-content' }, fetch);
      expect(result).toMatchObject({ kind: 'unsettled', moved: used });
      const day = now.toISOString().slice(0, 10);
      if (used) {
        // Used on chain: recorded as moved at once.
        expect(ledger.all).toMatchObject([{ state: 'settled' }]);
        continue;
      }
      expect(ledger.all).toMatchObject([{ state: 'unknown' }]);
      expect(await wallet.resolveExpired()).toBe(0); // still valid: the seller could still use it
      expect(await ledger.spent(day)).toBe(1000n);
      now = new Date(now.getTime() + 3_600_000);
      expect(await wallet.resolveExpired()).toBe(1);
      expect(ledger.all).toMatchObject([{ state: 'released' }]);
      expect(await ledger.spent(day)).toBe(0n);
    }
  });

  it('a paid request that got no answer ends by the chain’s clock, not ours: used on chain, it is settled with the transaction that used it', async () => {
    const ledger = memoryLedger();
    let used = false;
    let chainTime = 0;
    const tx = `0x${'cd'.repeat(32)}`;
    const wallet = fixtureWallet({
      ledger,
      chain: { authorizationUsed: async () => used, findTransfer: async () => ({ txHash: tx }), latestBlockTime: async () => chainTime },
      clock: () => new Date(),
    });
    const fetch = stubFetch({ [URL_]: (request) => (request.headers?.['PAYMENT-SIGNATURE'] ? new SafeFetchError('timeout', 'the seller went away') : paymentRequired(URL_, '1000')) });
    await expect(wallet.pay({ url: URL_, maxAmount: 1000n, product: 'service-gateway' }, fetch)).rejects.toThrow('the seller went away');
    expect(ledger.all).toMatchObject([{ state: 'unknown' }]);
    used = true;
    chainTime = ledger.all[0]!.validBefore!; // not past it yet (by a margin): the seller could still be settling
    expect(await wallet.resolveExpired()).toBe(0);
    chainTime += 31;
    expect(await wallet.resolveExpired()).toBe(1);
    expect(ledger.all).toMatchObject([{ state: 'settled', txHash: tx }]);
  });

  it('never signs above the ceiling, in another asset or network, or another scheme', async () => {
    const wallet = fixtureWallet({});
    const fetch = stubFetch({ [URL_]: paymentRequired(URL_, '1001') });
    expect(await wallet.pay({ url: URL_, maxAmount: 1000n, product: 'p' }, fetch)).toMatchObject({ kind: 'above_limit', cheapest: { amount: '1001' } });
    const terms = wallet.termsOf({ ...(await fetch(URL_)), url: URL_ } as never)!;
    expect(wallet.payable({ ...terms, accepts: terms.accepts.map((a) => ({ ...a, asset: '0x0000000000000000000000000000000000000001' })) })).toBeUndefined();
    expect(wallet.payable({ ...terms, accepts: terms.accepts.map((a) => ({ ...a, network: 'eip155:1' })) })).toBeUndefined();
    expect(wallet.payable({ ...terms, accepts: terms.accepts.map((a) => ({ ...a, scheme: 'upto' })) })).toBeUndefined();
  });
});
