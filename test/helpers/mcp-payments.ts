import { expect } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { PaymentRequired, SettleResponse } from '@x402/core/types';
import type { DevChain } from '../../src/devchain/stack.ts';
import { signPayment } from './payments.ts';
import { balances } from './service.ts';

export type ToolResult = { isError?: boolean; structuredContent?: unknown; content?: { text?: string }[]; _meta?: Record<string, unknown> };

/**
 * Calls an MCP tool unpaid (a payment-required result), then with the buyer's payment for that
 * quote: a result is charged exactly `price` with its settlement in `_meta`; an error charges nothing.
 */
export async function payTool(client: Client, chain: DevChain, tool: string, args: Record<string, unknown>, price: bigint): Promise<ToolResult> {
  const unpaid = (await client.callTool({ name: tool, arguments: args })) as ToolResult;
  expect(unpaid.isError).toBe(true);
  const payment = await signPayment(chain.buyer.privateKey, unpaid.structuredContent as PaymentRequired);
  const before = await balances(chain);
  const result = (await client.callTool({ name: tool, arguments: args, _meta: { 'x402/payment': payment } })) as ToolResult;
  if (!result.isError) {
    expect(result._meta?.['x402/payment-response'] as SettleResponse).toMatchObject({ success: true, network: chain.network });
    expect(before.buyer - (await balances(chain)).buyer, tool).toBe(price);
  } else expect(await balances(chain), tool).toEqual(before);
  return result;
}
