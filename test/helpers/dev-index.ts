import type { Address, Hex, PublicClient, WalletClient } from 'viem';
import { TestToken, TestUniswapV2Pair } from '../../src/devchain/artifacts/index.ts';
import type { RunningService } from '../../src/runtime.ts';

/** Waits until the service's index of `base` holds the dev chain's head. */
export async function indexCaughtUp(service: RunningService, pub: PublicClient): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const head = await pub.getBlockNumber();
    const outcome = await service.index!.query('base', 'SELECT max(number) FROM blocks').catch(() => undefined);
    if (outcome?.kind === 'ok' && outcome.result.rows[0]?.[0] === Number(head)) return;
    if (Date.now() > deadline) throw new Error('the index did not catch up');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * One swap on a TestUniswapV2Pair as a router would make it, in two transactions: `amountIn` of
 * `tokenIn` sent to the pair, then `swap` for the constant-product output (0.3% fee) paid to `to`.
 */
export async function swapOnPair(pub: PublicClient, wallet: WalletClient, pair: Address, tokenIn: Address, amountIn: bigint, to: Address): Promise<void> {
  const done = (hash: Hex) => pub.waitForTransactionReceipt({ hash, pollingInterval: 20 });
  const [r0, r1] = await pub.readContract({ address: pair, abi: TestUniswapV2Pair.abi, functionName: 'getReserves' });
  const token0 = await pub.readContract({ address: pair, abi: TestUniswapV2Pair.abi, functionName: 'token0' });
  const zeroForOne = tokenIn.toLowerCase() === token0.toLowerCase();
  const [reserveIn, reserveOut] = zeroForOne ? [r0, r1] : [r1, r0];
  const out = (amountIn * 997n * reserveOut) / (reserveIn * 1000n + amountIn * 997n);
  const send = { account: wallet.account!, chain: wallet.chain };
  await done(await wallet.writeContract({ ...send, address: tokenIn, abi: TestToken.abi, functionName: 'transfer', args: [pair, amountIn] }));
  await done(await wallet.writeContract({ ...send, address: pair, abi: TestUniswapV2Pair.abi, functionName: 'swap', args: zeroForOne ? [0n, out, to] : [out, 0n, to] }));
}
