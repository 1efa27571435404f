import { describe, expect, it } from 'vitest';
import { getAddress } from 'viem';
import { DEV_ROLES, usdcBalance } from '../src/devchain/contracts.ts';
import type { DevChain } from '../src/devchain/stack.ts';
import type { RunningService } from '../src/runtime.ts';
import { transferOf } from './helpers/ledger-chain.ts';
import { paidPostJson, settlementOf } from './helpers/payments.ts';
import { useTestService } from './helpers/service.ts';

// Dev mode without GATEWAY_SELLERS: the gateway's allowlist is the instance itself (`percall`, at the
// address it listens on), so the gateway buys this instance's own paid routes with the dev operator
// wallet, on the dev chain. Both payments are read back from the chain and the ledger.

const TIME_PRICE = 10_000n; // /api/v1/paid/time: 0.01 USD
const GATEWAY_PRICE = 11_000n; // its price plus 10%
const operator = DEV_ROLES.operatorPayer.address;

let chain: DevChain;
let service: RunningService;
useTestService((c, s) => {
  chain = c;
  service = s;
});


const balances = () => Promise.all([chain.buyer.address, chain.payTo, operator].map((a) => usdcBalance(chain.rpcUrl, chain.usdc, a)));

describe('service_gateway in dev mode without GATEWAY_SELLERS', () => {
  it('sells this instance’s own routes: paid with @x402/fetch, it buys /api/v1/paid/time from itself with the dev operator wallet', async () => {
    const [caller0, percall0, operator0] = await balances();
    const response = await paidPostJson(chain, `${service.url}/api/v1/paid/service-gateway`, { seller: 'percall', path: '/api/v1/paid/time' });
    const body = (await response.json()) as { upstream_payment: { settlement: { transaction: string } } } & Record<string, unknown>;
    expect(response.status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({
      seller: 'percall',
      url: `${service.localUrl}/api/v1/paid/time`,
      status: 200,
      body: { time: expect.any(String), unix: expect.any(Number) },
      price: { upstream: '0.01', charged: '0.011', margin: '0.001' },
      upstream_payment: { amount_atomic: '10000', pay_to: getAddress(chain.payTo), settlement: { success: true, payer: operator } },
    });

    // On chain: caller → percall (the gateway's price), operator → percall (the route's price).
    const callerTx = settlementOf(response)!.transaction;
    const upstreamTx = body.upstream_payment.settlement.transaction;
    expect(await transferOf(chain, callerTx)).toEqual({ from: chain.buyer.address, to: getAddress(chain.payTo), value: GATEWAY_PRICE });
    expect(await transferOf(chain, upstreamTx)).toEqual({ from: operator, to: getAddress(chain.payTo), value: TIME_PRICE });
    const [caller1, percall1, operator1] = await balances();
    expect({ caller: caller1! - caller0!, percall: percall1! - percall0!, operator: operator1! - operator0! }).toEqual({ caller: -GATEWAY_PRICE, percall: GATEWAY_PRICE + TIME_PRICE, operator: -TIME_PRICE });

    // The ledger: both sales in (the gateway's, the time route's bought by the operator), and the operator's payment out.
    const ledger = await service.percall.store.ledger();
    const sale = ledger.find((e) => e.txHash === callerTx)!;
    expect(sale).toMatchObject({ product: 'service-gateway', amount: '11000', payer: chain.buyer.address });
    expect(ledger.find((e) => e.txHash === upstreamTx)).toMatchObject({ product: 'time', amount: '10000', payer: operator });
    expect(await service.percall.store.operatorLedger().rows({ callerPaymentKey: sale.paymentKey })).toMatchObject([
      { direction: 'out', state: 'settled', product: 'service-gateway', amount: '10000', txHash: upstreamTx, payTo: getAddress(chain.payTo), payer: operator },
    ]);
  });
});
