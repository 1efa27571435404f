import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentPayload, PaymentRequired } from '@x402/core/types';
import { x402Client } from '@x402/fetch';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { authorizationTypes, toClientEvmSigner } from '@x402/evm';
import { getAddress, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { createPayingFetch } from '../../src/client/paying-fetch.ts';

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
