// Typed access to the compiled dev contracts and idempotent setup of a local anvil chain.
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  getAddress,
  getContractAddress,
  http,
  type Address,
  type Chain,
  type Hex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { Multicall3, TestUSDC } from './artifacts/index.ts';

export { Multicall3 as multicall3Artifact, TestUSDC as testUsdcArtifact };

export const usdcAbi = TestUSDC.abi;
export const multicall3Abi = Multicall3.abi;

/** Where Multicall3 lives on every chain; the x402 facilitator calls `tryAggregate` there. */
export const MULTICALL3_ADDRESS: Address = '0xcA11bde05977b3631167028862bE2a173976CA11';

/** EIP-712 domain name/version of TestUSDC, same as USDC's; x402 puts them in `extra`. */
export const USDC_EIP712 = { name: 'USD Coin', version: '2' } as const;

export interface DevAccount {
  readonly address: Address;
  readonly privateKey: Hex;
}

/**
 * The first six anvil accounts of the public mnemonic "test test test test test test test test test test test junk"
 * (m/44'/60'/0'/0/i). Publicly known keys: for the local chain only.
 * 0 deployer and facilitator, 1 buyer, 2 payTo, 3 spare, 4 the receiver authorizer of batch-settlement channels,
 * 5 the operator's wallet paying upstream x402 sellers.
 */
export const DEV_ACCOUNTS = [
  {
    address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    privateKey: '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  },
  {
    address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    privateKey: '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  },
  {
    address: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
    privateKey: '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  },
  {
    address: '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
    privateKey: '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
  },
  {
    address: '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65',
    privateKey: '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a',
  },
  {
    address: '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc',
    privateKey: '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba',
  },
] as const satisfies readonly DevAccount[];

/** DEV_ACCOUNTS by role. */
export const DEV_ROLES = {
  deployer: DEV_ACCOUNTS[0],
  facilitator: DEV_ACCOUNTS[0],
  buyer: DEV_ACCOUNTS[1],
  payTo: DEV_ACCOUNTS[2],
  spare: DEV_ACCOUNTS[3],
  batchAuthorizer: DEV_ACCOUNTS[4],
  operatorPayer: DEV_ACCOUNTS[5],
} as const;

// Anvil automines each transaction, so receipts exist almost at once; poll fast instead of viem's 4 s default.
const POLLING_INTERVAL_MS = 50;

/** A viem chain for a local dev RPC with the given id (Multicall3 included, so viem's `multicall` works). */
export function devChain(rpcUrl: string, chainId: number): Chain {
  return defineChain({
    id: chainId,
    name: `percall dev chain ${chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
    contracts: { multicall3: { address: MULTICALL3_ADDRESS } },
    testnet: true,
  });
}

function publicClientFor(rpcUrl: string) {
  return createPublicClient({ transport: http(rpcUrl), pollingInterval: POLLING_INTERVAL_MS });
}

async function walletClientFor(rpcUrl: string, key: Hex) {
  const publicClient = publicClientFor(rpcUrl);
  const chain = devChain(rpcUrl, await publicClient.getChainId());
  const wallet = createWalletClient({
    account: privateKeyToAccount(key),
    chain,
    transport: http(rpcUrl),
    pollingInterval: POLLING_INTERVAL_MS,
  });
  return { publicClient, wallet };
}

async function hasCode(rpcUrl: string, address: Address): Promise<boolean> {
  const code = await publicClientFor(rpcUrl).getCode({ address });
  return code !== undefined && code !== '0x';
}

/**
 * Makes sure the dev contracts exist; safe to call on every start, including after anvil reloads a `--state` file.
 * - Multicall3: its runtime code is written to the canonical address with `anvil_setCode` if missing.
 * - TestUSDC: reused if code exists at the deployer's nonce-0 CREATE address, else deployed from `deployerKey`
 *   (which is the owner, the only minter). If the deployer already sent other transactions first, the token lands
 *   elsewhere and a later call will deploy yet another one: send the deployment first.
 */
export async function ensureDevContracts(
  rpcUrl: string,
  deployerKey: Hex,
): Promise<{ usdc: Address; multicall3: Address }> {
  if (!(await hasCode(rpcUrl, MULTICALL3_ADDRESS))) {
    const testClient = createTestClient({ mode: 'anvil', transport: http(rpcUrl) });
    await testClient.setCode({ address: MULTICALL3_ADDRESS, bytecode: Multicall3.deployedBytecode });
  }

  const { publicClient, wallet } = await walletClientFor(rpcUrl, deployerKey);
  const deployer = wallet.account.address;
  const predicted = getContractAddress({ from: deployer, nonce: 0n });
  if (await hasCode(rpcUrl, predicted)) return { usdc: predicted, multicall3: MULTICALL3_ADDRESS };

  const hash = await wallet.deployContract({ abi: TestUSDC.abi, bytecode: TestUSDC.bytecode });
  const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: POLLING_INTERVAL_MS });
  if (receipt.status !== 'success' || !receipt.contractAddress) {
    throw new Error(`TestUSDC deployment failed (tx ${hash})`);
  }
  return { usdc: getAddress(receipt.contractAddress), multicall3: MULTICALL3_ADDRESS };
}

/** Mints `amountAtomic` (6 decimals: 1 USDC = 1_000_000n) to `to`; `ownerKey` must be the deployer's. */
export async function mintUsdc(
  rpcUrl: string,
  ownerKey: Hex,
  usdc: Address,
  to: Address,
  amountAtomic: bigint,
): Promise<Hex> {
  const { publicClient, wallet } = await walletClientFor(rpcUrl, ownerKey);
  const hash = await wallet.writeContract({ address: usdc, abi: usdcAbi, functionName: 'mint', args: [to, amountAtomic] });
  const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: POLLING_INTERVAL_MS });
  if (receipt.status !== 'success') throw new Error(`USDC mint reverted (tx ${hash})`);
  return hash;
}

/** USDC balance of `who`, in atomic units (6 decimals). */
export async function usdcBalance(rpcUrl: string, usdc: Address, who: Address): Promise<bigint> {
  return publicClientFor(rpcUrl).readContract({ address: usdc, abi: usdcAbi, functionName: 'balanceOf', args: [who] });
}
