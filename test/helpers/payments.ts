import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentPayload, PaymentRequired } from '@x402/core/types';
import { x402Client } from '@x402/fetch';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { authorizationTypes, toClientEvmSigner } from '@x402/evm';
import { getAddress, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { connect } from 'node:net';
import { createPayingFetch } from '../../src/client/paying-fetch.ts';
import { paymentKey } from '../../src/payments/payment-key.ts';
import type { Store } from '../../src/store/types.ts';

/** The 402 quote of a route, read from its PAYMENT-REQUIRED header. */
export async function quote(url: string, init?: RequestInit): Promise<PaymentRequired> {
  const response = await fetch(url, init);
  if (response.status !== 402) throw new Error(`expected 402 from ${url}, got ${response.status}`);
  return decodePaymentRequiredHeader(response.headers.get('payment-required')!);
}

/** A genuine payment for the quote, created by the official x402 client. */
export async function signPayment(buyerKey: Hex, paymentRequired: PaymentRequired): Promise<PaymentPayload> {
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: toClientEvmSigner(privateKeyToAccount(buyerKey)) });
  client.setSpendControls({ allowedAssets: paymentRequired.accepts.map((a) => ({ network: a.network, asset: a.asset })) });
  return client.createPaymentPayload(paymentRequired);
}

export function paymentHeader(payload: PaymentPayload): Record<string, string> {
  return { 'payment-signature': encodePaymentSignatureHeader(payload) };
}

export function settlementOf(response: Response) {
  const header = response.headers.get('payment-response');
  return header ? decodePaymentResponseHeader(header) : undefined;
}

interface Authorization {
  from: Hex;
  to: Hex;
  value: string;
  validAfter: string;
  validBefore: string;
  nonce: Hex;
}

/** Re-signs an EIP-3009 authorization with changed fields: a well-formed but dishonest payment. */
export async function tamper(
  buyerKey: Hex,
  payload: PaymentPayload,
  change: { authorization?: Partial<Authorization>; accepted?: Partial<PaymentPayload['accepted']>; signature?: Hex; chainId?: number },
): Promise<PaymentPayload> {
  const accepted = { ...payload.accepted, ...change.accepted };
  const original = payload.payload as { authorization: Authorization; signature: Hex };
  const authorization = { ...original.authorization, ...change.authorization };
  const account = privateKeyToAccount(buyerKey);
  const chainId = change.chainId ?? Number(accepted.network.split(':')[1]);
  const signature =
    change.signature ??
    (await account.signTypedData({
      domain: { name: String(accepted.extra.name), version: String(accepted.extra.version), chainId, verifyingContract: getAddress(accepted.asset) },
      types: authorizationTypes,
      primaryType: 'TransferWithAuthorization',
      message: {
        from: getAddress(authorization.from),
        to: getAddress(authorization.to),
        value: BigInt(authorization.value),
        validAfter: BigInt(authorization.validAfter),
        validBefore: BigInt(authorization.validBefore),
        nonce: authorization.nonce,
      },
    }));
  return { ...payload, accepted, payload: { authorization, signature } };
}

/** POSTs JSON to a paid route and pays with the official @x402/fetch client as the chain's dev buyer. */
export function paidPostJson(chain: { buyer: { privateKey: Hex }; network: `${string}:${string}`; usdc: string }, url: string, body: unknown): Promise<Response> {
  const pay = createPayingFetch(chain.buyer.privateKey, { allowedAssets: [{ network: chain.network, asset: chain.usdc }] });
  return pay(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

/** Sends one paid request (GET, or `init`'s method and body) over a raw socket and hangs up as soon as it is written, reading nothing. */
export function payAndHangUp(url: URL, payload: PaymentPayload, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<void> {
  const headers = { ...init.headers, ...paymentHeader(payload), ...(init.body !== undefined ? { 'content-length': String(Buffer.byteLength(init.body)) } : {}) };
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => {
      const head = `${init.method ?? 'GET'} ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\n\r\n`;
      socket.write(head + (init.body ?? ''), () => {
        socket.destroy();
        resolve();
      });
    });
    socket.on('error', reject);
  });
}

/** Waits (bounded, polling the store) until a settled payment is marked undelivered. */
export async function untilOwed(store: Pick<Store, 'paymentState' | 'reservePayment'>, payload: PaymentPayload): Promise<void> {
  const key = paymentKey(payload);
  for (let i = 0; i < 200; i++) {
    // For an existing key, reservePayment only reads its state.
    if ((await store.paymentState(key)) === 'settled') {
      const state = await store.reservePayment({ key, product: 'echo', surface: 'http', network: '', scheme: '', asset: '', payTo: '', amount: '0', owner: 'test' });
      if (!state.reserved && !state.delivered) return;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('the payment was never marked undelivered');
}
