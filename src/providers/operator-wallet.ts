import { randomUUID } from 'node:crypto';
import { x402Client, x402HTTPClient } from '@x402/fetch';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { toClientEvmSigner } from '@x402/evm';
import type { Network, PaymentPayload, PaymentRequired, PaymentRequirements, SettleResponse } from '@x402/core/types';
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { describeError, type Logger } from '../log.ts';
import { OperatorCapReached, type OperatorLedger, type OperatorWallet, type OutboundRequest, type OutboundResult } from '../products/kit/operator-wallet.ts';
import type { SafeRequest, SafeResponse } from './safe-fetch.ts';

type Fetch = (url: string, request?: SafeRequest) => Promise<SafeResponse>;

export interface OperatorWalletOptions {
  key: Hex;
  /** The EVM network and USDC the operator pays with (this instance's own EVM offer). */
  network: Network;
  asset: string;
  dailySpendCap: bigint;
  fetchMaxPrice: bigint;
  sellers: ReadonlyMap<string, string>;
  ledger: OperatorLedger;
  /** The fetcher for allowlisted sellers (the safe fetcher, with loopback allowed: the operator listed them). */
  sellerFetch: Fetch;
  /**
   * Reads whether a signed authorization was used, when an upstream's answer does not say; with
   * `findTransfer`, the transaction that used it, and with `latestBlockTime`, when it lapsed.
   */
  chain?: {
    authorizationUsed(asset: Hex, from: Hex, nonce: Hex): Promise<boolean>;
    findTransfer?(asset: Hex, from: Hex, nonce: Hex): Promise<{ txHash: string } | undefined>;
    latestBlockTime?(): Promise<number>;
  };
  log: Logger;
  /** Told of every upstream payment that moved money (the observatory counts them). */
  onPaid?(product: string, amountAtomic: bigint): void;
  clock?: () => Date;
}

/**
 * The operator's wallet over the official x402 client (`x402Client` with the `exact` EVM scheme, and
 * its HTTP codec): one unpaid request reads the upstream's terms; the cheapest option in the
 * operator's network and asset is paid only when it is within the ceiling, after its amount is
 * reserved against the daily cap in the ledger; the signed authorization's nonce is written before
 * the paid request leaves, and the upstream's settlement (PAYMENT-RESPONSE) after. When an answer
 * does not say whether money moved, the chain is asked (EIP-3009 `authorizationState`).
 */
export function createOperatorWallet(options: OperatorWalletOptions): OperatorWallet {
  const account = privateKeyToAccount(options.key);
  const signer = toClientEvmSigner(account);
  const reader = new x402HTTPClient(new x402Client());
  const now = () => options.clock?.() ?? new Date();
  const { network, asset, ledger, log } = options;

  const termsOf = (response: SafeResponse): PaymentRequired | undefined => {
    let body: unknown;
    try {
      body = JSON.parse(response.body.toString('utf8'));
    } catch {
      body = undefined;
    }
    try {
      return reader.getPaymentRequiredResponse((name) => response.headers[name.toLowerCase()], body);
    } catch {
      return undefined;
    }
  };

  const payable = (terms: PaymentRequired): PaymentRequirements | undefined => {
    if (terms.x402Version !== 2 || !Array.isArray(terms.accepts)) return undefined;
    const fitting = terms.accepts.filter(
      (r) => r.scheme === 'exact' && r.network === network && typeof r.asset === 'string' && r.asset.toLowerCase() === asset.toLowerCase() && /^[1-9]\d{0,30}$/.test(String(r.amount)),
    );
    return fitting.sort((a, b) => (BigInt(a.amount) < BigInt(b.amount) ? -1 : BigInt(a.amount) > BigInt(b.amount) ? 1 : 0))[0];
  };

  /** Whether the signed authorization was used on chain; undefined when that cannot be read. */
  const moved = async (nonce: string | undefined): Promise<boolean | undefined> => {
    if (!options.chain || !nonce) return undefined;
    try {
      return await options.chain.authorizationUsed(asset as Hex, account.address, nonce as Hex);
    } catch (error) {
      log.warn({ err: describeError(error) }, 'could not read whether an upstream payment moved');
      return undefined;
    }
  };

  /** The transaction that used the authorization, when the chain can tell. */
  const transactionOf = async (nonce: string | undefined): Promise<string | undefined> => {
    if (!options.chain?.findTransfer || !nonce) return undefined;
    try {
      return (await options.chain.findTransfer(asset as Hex, account.address, nonce as Hex))?.txHash;
    } catch (error) {
      log.warn({ err: describeError(error) }, 'could not find the transaction of an upstream payment');
      return undefined;
    }
  };

  /**
   * Unix seconds before which an authorization can no longer be used: the chain's clock when it
   * tells (with a margin for a block in flight), else ours less a minute; undefined when unreadable.
   */
  const lapsedBefore = async (): Promise<number | undefined> => {
    if (!options.chain?.latestBlockTime) return Math.floor(now().getTime() / 1000) - 60;
    try {
      return (await options.chain.latestBlockTime()) - 30;
    } catch (error) {
      log.warn({ err: describeError(error) }, "could not read the chain's time to end upstream payments");
      return undefined;
    }
  };

  const recordMoved = async (product: string, id: string, amount: bigint, txHash: string | undefined): Promise<void> => {
    await ledger.settled(id, txHash, now());
    options.onPaid?.(product, amount);
  };

  return {
    address: account.address,
    network,
    asset,
    maxPerFetch: options.fetchMaxPrice,
    sellers: options.sellers,
    fetchSeller: options.sellerFetch,
    termsOf,
    payable,

    async pay(outbound: OutboundRequest, fetch: Fetch): Promise<OutboundResult> {
      const first = await fetch(outbound.url, outbound.request);
      if (first.status !== 402) return { kind: 'free', response: first };
      const terms = termsOf(first);
      if (!terms) return { kind: 'unpayable' };
      const choice = payable(terms);
      if (!choice) return { kind: 'unpayable', terms };
      const amount = BigInt(choice.amount);
      if (amount > outbound.maxAmount) return { kind: 'above_limit', terms, cheapest: choice };

      const id = randomUUID();
      const at = now();
      const reserved = await ledger.reserve(
        {
          id,
          product: outbound.product,
          ...(outbound.callerPaymentKey ? { callerPaymentKey: outbound.callerPaymentKey } : {}),
          ...(outbound.caller ? { caller: outbound.caller } : {}),
          resource: outbound.url,
          network: choice.network,
          scheme: choice.scheme,
          asset: choice.asset,
          payTo: choice.payTo,
          amount: choice.amount,
          payer: account.address,
          day: at.toISOString().slice(0, 10),
        },
        options.dailySpendCap,
      );
      if (!reserved) throw new OperatorCapReached(secondsToNextUtcDay(at));

      const client = new x402Client().register(network, new ExactEvmScheme(signer));
      // Belt and braces: the client itself refuses anything but this option at this amount.
      client.setSpendControls({ allowedAssets: [{ network, asset, maxAmountPerPayment: choice.amount }] });
      client.registerPolicy((_, requirements) => requirements.filter((r) => r.network === network && r.scheme === 'exact' && BigInt(r.amount) <= amount));
      let payload: PaymentPayload;
      let nonce: string | undefined;
      try {
        payload = await client.createPaymentPayload({ ...terms, accepts: [choice] });
        nonce = nonceOf(payload);
        await ledger.signed(id, nonce ?? 'unknown', validBeforeOf(payload));
      } catch (error) {
        await ledger.release(id, 'not signed');
        throw error;
      }

      const http = new x402HTTPClient(client);
      let second: SafeResponse;
      try {
        const headers = { ...outbound.request?.headers, ...http.encodePaymentSignatureHeader(payload) };
        second = await fetch(outbound.url, { ...outbound.request, headers });
      } catch (error) {
        // Sent or not, the seller may have settled: the chain says.
        const used = await moved(nonce);
        if (used === true) await recordMoved(outbound.product, id, amount, await transactionOf(nonce));
        else await ledger.unknown(id, 'the paid request got no answer');
        throw error;
      }
      let settlement: SettleResponse | undefined;
      try {
        settlement = http.getPaymentSettleResponse((name) => second.headers[name.toLowerCase()]);
      } catch {
        settlement = undefined;
      }
      if (settlement?.success) {
        await recordMoved(outbound.product, id, amount, settlement.transaction);
        return { kind: 'paid', response: second, requirements: choice, settlement, ledgerId: id };
      }
      const used = await moved(nonce);
      if (used === true) await recordMoved(outbound.product, id, amount, await transactionOf(nonce));
      // A 402 again is the seller refusing the payment; any other answer may still be settled later.
      else if (used === false && second.status === 402) await ledger.release(id, `upstream refused the payment (HTTP ${second.status})`);
      else await ledger.unknown(id, `no settlement in the upstream's answer (HTTP ${second.status})`);
      return { kind: 'unsettled', response: second, requirements: choice, moved: used, ledgerId: id };
    },

    async resolveExpired(): Promise<number> {
      if (!options.chain) return 0;
      // Payments sent and never answered (a seller that went silent, or this process stopped before
      // the answer came) end here, once their authorization can no longer be used: the chain says.
      const before = await lapsedBefore();
      if (before === undefined) return 0;
      const rows = await ledger.expired(before);
      let resolved = 0;
      for (const row of rows) {
        const used = row.nonce ? await moved(row.nonce) : false;
        if (used === undefined) continue;
        if (used) await recordMoved(row.product, row.id, BigInt(row.amount), row.txHash ?? (await transactionOf(row.nonce)));
        else await ledger.release(row.id, 'authorization expired unused');
        resolved++;
      }
      return resolved;
    },
  };
}

/** Unix seconds until which the EIP-3009 authorization can be used. */
function validBeforeOf(payload: PaymentPayload): number | undefined {
  const value = Number((payload.payload as { authorization?: { validBefore?: unknown } }).authorization?.validBefore);
  return Number.isSafeInteger(value) ? value : undefined;
}

/** The EIP-3009 authorization's nonce of an `exact` EVM payload (Permit2 payloads carry theirs elsewhere). */
function nonceOf(payload: PaymentPayload): string | undefined {
  const nonce = (payload.payload as { authorization?: { nonce?: unknown } }).authorization?.nonce;
  return typeof nonce === 'string' ? nonce : undefined;
}

function secondsToNextUtcDay(at: Date): number {
  const next = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1);
  return Math.max(1, Math.ceil((next - at.getTime()) / 1000));
}
