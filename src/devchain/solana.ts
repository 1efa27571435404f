// A local Solana leg for x402 `exact` payments: an in-process LiteSVM behind a Solana JSON-RPC
// shim (solana-rpc.ts), so the UNMODIFIED @x402/svm client, server and facilitator run against it
// exactly as they would against a real RPC node. Dev stack and tests only; nothing here is secret.
//
// What the shim supports
// - Network: Solana devnet's CAIP-2 id (solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1). @x402/svm builds
//   its RPC clients through normalizeNetwork()/createRpcClient(), which accept only mainnet, devnet
//   and testnet and throw for any other `solana:` id, so an honest local id cannot work with the
//   unmodified client. Devnet is the cluster whose assets are test tokens, and the SDK's default
//   devnet USDC mint (4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU) is planted here, so "$0.01"
//   prices and SDK asset defaults line up. Nothing ever reaches the real devnet: every RPC call
//   goes to the local shim URL.
// - Programs: LiteSVM's standard set: System, Compute Budget, SPL Token, Token-2022, Associated
//   Token Account, Memo. USDC is a classic SPL Token mint with 6 decimals.
// - RPC methods: getLatestBlockhash, isBlockhashValid, getSlot, getBlockHeight, getHealth,
//   getAccountInfo, getMultipleAccounts (base64/base58/binary encodings, dataSlice), getBalance,
//   getMinimumBalanceForRentExemption, getTokenAccountBalance, simulateTransaction (sigVerify,
//   replaceRecentBlockhash, innerInstructions), sendTransaction (with or without preflight),
//   getSignatureStatuses, getTransaction (base64 only, with the token balances around it; pre/post
//   lamport balances, logs and inner instructions are left empty), getRecentPrioritizationFees (from the compute-unit prices of the
//   transactions that landed in the last 150 slots; only slots with transactions are listed). Anything else answers JSON-RPC -32601; unsupported options (jsonParsed
//   encoding, simulate `accounts`) answer -32602 rather than a silently wrong result.
// - No WebSocket: the @x402/svm facilitator confirms by polling getSignatureStatuses (its
//   toFacilitatorSvmSigner never subscribes), so no subscription endpoint is needed.
// - Time: slots advance with the wall clock (400 ms), each slot has a new blockhash, a blockhash
//   is accepted for 150 slots (~60 s; 144 in simulation and preflight, as agave allows for
//   forwarding) like on a real cluster, then BlockhashNotFound. A landed transaction is
//   `confirmed` at once and `finalized` 32 slots later.
// - Duplicates: a transaction already processed is refused with AlreadyProcessed, by simulation
//   (which is how the facilitator's verify sees it) and by sendTransaction (JSON-RPC -32002, the
//   preflight-failure error). Note one deliberate difference: with skipPreflight a real node
//   accepts the bytes of a transaction it will drop (duplicate, expired blockhash, bad signature)
//   and the sender only sees a confirmation timeout; the shim reports the same -32002 at once.
// - Not supported: durable-nonce transactions, address lookup tables, airdrops,
//   persistence (state lives and dies with the process).
import { createHash } from 'node:crypto';
import {
  address,
  createKeyPairSignerFromPrivateKeyBytes,
  getBase58Decoder,
  getAddressEncoder,
  getProgramDerivedAddress,
  lamports,
  type Address,
} from '@solana/kit';
import type { Network } from '@x402/core/types';
import { SOLANA_DEVNET_CAIP2, TOKEN_PROGRAM_ADDRESS, USDC_DEVNET_ADDRESS } from '@x402/svm';
import { LiteSVM } from 'litesvm';
import type { Logger } from '../log.ts';
import { startSolanaRpcServer } from './solana-rpc.ts';

export interface SolanaDevKey {
  address: string;
  /** 64 bytes: the ed25519 seed followed by the public key (the Solana CLI keypair layout). */
  secretKey: Uint8Array;
}

export interface SolanaDevChain {
  /** JSON-RPC endpoint of the shim, http://127.0.0.1:<port>. */
  rpcUrl: string;
  /** CAIP-2 id the SDK accepts; devnet's, see the comment at the top of this file. */
  network: Network;
  /** USDC mint (SPL Token, 6 decimals) at the SDK's default devnet USDC address. */
  mint: string;
  /** Seller wallet; its USDC associated token account exists. */
  payTo: string;
  /** Dev only: a worthless key derived from a fixed seed, funded with USDC. */
  buyer: SolanaDevKey;
  /** Dev only: the facilitator's fee payer, funded with SOL. */
  feePayer: SolanaDevKey;
  /** USDC balance (atomic units) of `owner`'s associated token account; 0 if it has none. */
  usdcBalance(owner: string): Promise<bigint>;
  stop(): Promise<void>;
}

export interface SolanaDevChainOptions {
  log?: Logger;
  /** The buyer's USDC at start, in atomic units. Default 1000 USDC. */
  buyerUsdc?: bigint;
  /** Clock for slots and blockhash expiry (tests inject one to jump ahead). Default Date.now. */
  now?: () => number;
}

const USDC_DECIMALS = 6;
const ASSOCIATED_TOKEN_PROGRAM = address('ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL');
const SYSTEM_PROGRAM = address('11111111111111111111111111111111');
const TOKEN_PROGRAM = address(TOKEN_PROGRAM_ADDRESS);
const LAMPORTS_PER_SOL = 1_000_000_000n;

/** A deterministic dev key: the ed25519 seed is sha256 of a fixed label. */
async function devKey(role: string): Promise<SolanaDevKey> {
  const seed = new Uint8Array(createHash('sha256').update(`percall devchain solana ${role}`).digest());
  const signer = await createKeyPairSignerFromPrivateKeyBytes(seed);
  const secretKey = new Uint8Array(64);
  secretKey.set(seed, 0);
  secretKey.set(getAddressEncoder().encode(signer.address), 32);
  return { address: signer.address, secretKey };
}

export async function associatedTokenAddress(owner: string, mint: string): Promise<Address> {
  const encoder = getAddressEncoder();
  const [ata] = await getProgramDerivedAddress({
    programAddress: ASSOCIATED_TOKEN_PROGRAM,
    seeds: [encoder.encode(address(owner)), encoder.encode(TOKEN_PROGRAM), encoder.encode(address(mint))],
  });
  return ata;
}

/** SPL Token `Mint` layout (82 bytes): authority option, supply, decimals, initialized, freeze authority option. */
function mintData(authority: string, supply: bigint): Uint8Array {
  const data = new Uint8Array(82);
  const view = new DataView(data.buffer);
  view.setUint32(0, 1, true);
  data.set(getAddressEncoder().encode(address(authority)), 4);
  view.setBigUint64(36, supply, true);
  data[44] = USDC_DECIMALS;
  data[45] = 1;
  return data;
}

/** SPL Token `Account` layout (165 bytes): mint, owner, amount, no delegate, Initialized, not native, no close authority. */
function tokenAccountData(mint: string, owner: string, amount: bigint): Uint8Array {
  const data = new Uint8Array(165);
  const encoder = getAddressEncoder();
  data.set(encoder.encode(address(mint)), 0);
  data.set(encoder.encode(address(owner)), 32);
  new DataView(data.buffer).setBigUint64(64, amount, true);
  data[108] = 1;
  return data;
}

/**
 * Starts an in-process Solana chain with USDC, a funded buyer, a seller with a USDC account and a
 * facilitator fee payer, and serves it over JSON-RPC on 127.0.0.1.
 */
export async function startSolanaDevChain(options: SolanaDevChainOptions = {}): Promise<SolanaDevChain> {
  const buyerUsdc = options.buyerUsdc ?? 1_000n * 10n ** BigInt(USDC_DECIMALS);
  const [buyer, feePayer, payTo, mintAuthority] = await Promise.all(['buyer', 'fee-payer', 'pay-to', 'mint-authority'].map(devKey));
  if (!buyer || !feePayer || !payTo || !mintAuthority) throw new Error('unreachable: dev keys');
  const mint = USDC_DEVNET_ADDRESS;

  const svm = new LiteSVM();
  // Accounts are written directly: the mint must sit at an address nobody here holds the key of.
  const put = (at: string, owner: Address, balance: bigint, data: Uint8Array = new Uint8Array()): void => {
    svm.setAccount({ address: address(at), programAddress: owner, lamports: lamports(balance), data, executable: false, space: BigInt(data.length) });
  };
  const rentExempt = (length: number): bigint => svm.minimumBalanceForRentExemption(BigInt(length));
  // The buyer pays no fees (the facilitator does); its SOL only keeps the account rent-exempt.
  put(buyer.address, SYSTEM_PROGRAM, LAMPORTS_PER_SOL / 100n);
  put(feePayer.address, SYSTEM_PROGRAM, 10n * LAMPORTS_PER_SOL);
  put(mint, TOKEN_PROGRAM, rentExempt(82), mintData(mintAuthority.address, buyerUsdc));
  put(await associatedTokenAddress(buyer.address, mint), TOKEN_PROGRAM, rentExempt(165), tokenAccountData(mint, buyer.address, buyerUsdc));
  put(await associatedTokenAddress(payTo.address, mint), TOKEN_PROGRAM, rentExempt(165), tokenAccountData(mint, payTo.address, 0n));

  const rpc = await startSolanaRpcServer(svm, { log: options.log, now: options.now });
  options.log?.info({ rpcUrl: rpc.url, network: SOLANA_DEVNET_CAIP2, mint, feePayer: feePayer.address }, 'solana dev chain ready');

  return {
    rpcUrl: rpc.url,
    network: SOLANA_DEVNET_CAIP2 as Network,
    mint,
    payTo: payTo.address,
    buyer,
    feePayer,
    usdcBalance: async (owner) => {
      const account = svm.getAccount(await associatedTokenAddress(owner, mint));
      if (!account.exists || account.data.length < 72) return 0n;
      return new DataView(account.data.buffer, account.data.byteOffset, account.data.byteLength).getBigUint64(64, true);
    },
    stop: () => rpc.close(),
  };
}

/** What a Solana client needs to pay the dev service; written to `<dataDir>/dev-solana.json`. */
export interface SolanaDevInfo {
  network: string;
  rpcUrl: string;
  mint: string;
  payTo: string;
  buyerAddress: string;
  /** Dev only: a fixed-seed key on the in-process chain, worthless anywhere else (base58, 64 bytes). */
  buyerSecretKey: string;
}

export function solanaDevInfo(chain: SolanaDevChain): SolanaDevInfo {
  return {
    network: chain.network,
    rpcUrl: chain.rpcUrl,
    mint: chain.mint,
    payTo: chain.payTo,
    buyerAddress: chain.buyer.address,
    buyerSecretKey: getBase58Decoder().decode(chain.buyer.secretKey),
  };
}
