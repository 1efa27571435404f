/**
 * Anvil slows down as its chain grows (about 1 ms per transaction on a new chain, 5 ms after some
 * thousands of blocks), which would favour whichever server runs first. The bench snapshots the
 * chain once set up and rewinds to it before every measured section, so each starts on the same chain.
 */
import { createTestClient, http, publicActions, type Hex } from 'viem';
import { liveChildren } from './processes.ts';

export interface Checkpoint {
  /** Back to the state after setup. Refused while a server runs: its nonces would outlive the revert. */
  rewind(): Promise<void>;
}

export async function checkpoint(rpcUrl: string): Promise<Checkpoint> {
  const client = createTestClient({ mode: 'anvil', transport: http(rpcUrl) }).extend(publicActions);
  const block = await client.getBlockNumber({ cacheTime: 0 });
  // A revert consumes its snapshot: a new one is taken after each.
  let id: Hex = await client.snapshot();
  return {
    async rewind() {
      if (liveChildren() > 0) throw new Error(`chain rewind with ${liveChildren()} server(s) still running`);
      await client.revert({ id });
      const now = await client.getBlockNumber({ cacheTime: 0 });
      if (now !== block) throw new Error(`evm_revert left the chain at block ${now}, not ${block}`);
      id = await client.snapshot();
    },
  };
}
