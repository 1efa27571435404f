import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPublicClient,
  createWalletClient,
  decodeFunctionResult,
  encodeFunctionData,
  domainSeparator,
  http,
  parseSignature,
  serializeSignature,
  type Address,
  type Hex,
} from 'viem';
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import { startAnvil, type AnvilHandle } from '../src/devchain/anvil.ts';
import {
  DEV_ACCOUNTS,
  DEV_ROLES,
  MULTICALL3_ADDRESS,
  USDC_EIP712,
  devChain,
  ensureDevContracts,
  mintUsdc,
  multicall3Abi,
  usdcAbi,
  usdcBalance,
} from '../src/devchain/contracts.ts';

const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const ONE_USDC = 1_000_000n;

const buyer = privateKeyToAccount(DEV_ROLES.buyer.privateKey);
const payTo = DEV_ROLES.payTo.address;

let anvil: AnvilHandle;
let usdc: Address;

function clients() {
  const chain = devChain(anvil.rpcUrl, anvil.chainId);
  const publicClient = createPublicClient({ chain, transport: http(anvil.rpcUrl), pollingInterval: 50 });
  const wallet = (key: Hex) =>
    createWalletClient({ account: privateKeyToAccount(key), chain, transport: http(anvil.rpcUrl), pollingInterval: 50 });
  return { publicClient, facilitator: wallet(DEV_ROLES.facilitator.privateKey), payee: wallet(DEV_ROLES.payTo.privateKey) };
}

function randomNonce(): Hex {
  return `0x${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('hex')}`;
}

async function chainNow(): Promise<bigint> {
  return (await clients().publicClient.getBlock()).timestamp;
}

interface Authorization {
  from: Address;
  to: Address;
  value: bigint;
  validAfter: bigint;
  validBefore: bigint;
  nonce: Hex;
}

async function authorize(
  overrides: Partial<Authorization> = {},
  primaryType: 'TransferWithAuthorization' | 'ReceiveWithAuthorization' = 'TransferWithAuthorization',
) {
  const auth: Authorization = {
    from: buyer.address,
    to: payTo,
    value: ONE_USDC,
    validAfter: 0n,
    validBefore: (await chainNow()) + 3600n,
    nonce: randomNonce(),
    ...overrides,
  };
  const fields = [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ] as const;
  const signature = await buyer.signTypedData({
    domain: { ...USDC_EIP712, chainId: anvil.chainId, verifyingContract: usdc },
    types: { [primaryType]: fields } as { TransferWithAuthorization: typeof fields },
    primaryType: primaryType as 'TransferWithAuthorization',
    message: auth,
  });
  const { r, s, yParity } = parseSignature(signature);
  return { auth, signature, v: 27 + yParity, r, s };
}

type Signed = Awaited<ReturnType<typeof authorize>>;

function authArgs(a: Authorization) {
  return [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce] as const;
}

async function submitVrs({ auth, v, r, s }: Signed): Promise<void> {
  const { publicClient, facilitator } = clients();
  const hash = await facilitator.writeContract({
    address: usdc,
    abi: usdcAbi,
    functionName: 'transferWithAuthorization',
    args: [...authArgs(auth), v, r, s],
  });
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe('success');
}

async function submitBytes(auth: Authorization, signature: Hex): Promise<void> {
  const { publicClient, facilitator } = clients();
  const hash = await facilitator.writeContract({
    address: usdc,
    abi: usdcAbi,
    functionName: 'transferWithAuthorization',
    args: [...authArgs(auth), signature],
  });
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe('success');
}

async function balances() {
  return {
    buyer: await usdcBalance(anvil.rpcUrl, usdc, buyer.address),
    payTo: await usdcBalance(anvil.rpcUrl, usdc, payTo),
  };
}

beforeAll(async () => {
  anvil = await startAnvil();
  ({ usdc } = await ensureDevContracts(anvil.rpcUrl, DEV_ROLES.deployer.privateKey));
  await mintUsdc(anvil.rpcUrl, DEV_ROLES.deployer.privateKey, usdc, buyer.address, 100n * ONE_USDC);
}, 30_000);

afterAll(async () => {
  await anvil?.stop();
});

describe('dev accounts', () => {
  it('are the anvil mnemonic accounts 0..4', () => {
    const mnemonic = 'test test test test test test test test test test test junk';
    DEV_ACCOUNTS.forEach((acc, i) => {
      expect(mnemonicToAccount(mnemonic, { addressIndex: i }).address).toBe(acc.address);
      expect(privateKeyToAccount(acc.privateKey).address).toBe(acc.address);
    });
  });
});

describe('dev chain setup', () => {
  it('is idempotent', async () => {
    const again = await ensureDevContracts(anvil.rpcUrl, DEV_ROLES.deployer.privateKey);
    expect(again.usdc).toBe(usdc);
    expect(again.multicall3).toBe(MULTICALL3_ADDRESS);
  });

  it('looks like USDC', async () => {
    const { publicClient } = clients();
    const read = { address: usdc, abi: usdcAbi } as const;
    expect(await publicClient.readContract({ ...read, functionName: 'name' })).toBe('USD Coin');
    expect(await publicClient.readContract({ ...read, functionName: 'symbol' })).toBe('USDC');
    expect(await publicClient.readContract({ ...read, functionName: 'version' })).toBe('2');
    expect(await publicClient.readContract({ ...read, functionName: 'decimals' })).toBe(6);
    expect(await publicClient.readContract({ ...read, functionName: 'owner' })).toBe(DEV_ROLES.deployer.address);
    expect(await publicClient.readContract({ ...read, functionName: 'DOMAIN_SEPARATOR' })).toBe(
      domainSeparator({ domain: { ...USDC_EIP712, chainId: anvil.chainId, verifyingContract: usdc } }),
    );
  });

  it('only lets the owner mint', async () => {
    await expect(mintUsdc(anvil.rpcUrl, DEV_ROLES.buyer.privateKey, usdc, buyer.address, 1n)).rejects.toThrow(
      /caller is not the owner/,
    );
  });
});

describe('EIP-3009 transferWithAuthorization', () => {
  it('moves exactly the value (v, r, s overload)', async () => {
    const before = await balances();
    const signed = await authorize({ value: 1_234_567n });
    await submitVrs(signed);
    const after = await balances();
    expect(after.buyer).toBe(before.buyer - 1_234_567n);
    expect(after.payTo).toBe(before.payTo + 1_234_567n);
    const { publicClient } = clients();
    expect(
      await publicClient.readContract({
        address: usdc,
        abi: usdcAbi,
        functionName: 'authorizationState',
        args: [buyer.address, signed.auth.nonce],
      }),
    ).toBe(true);
  });

  it('moves exactly the value (bytes signature overload)', async () => {
    const before = await balances();
    const { auth, signature } = await authorize({ value: 10_000n });
    await submitBytes(auth, signature);
    const after = await balances();
    expect(after.buyer).toBe(before.buyer - 10_000n);
    expect(after.payTo).toBe(before.payTo + 10_000n);
  });

  it('rejects a replayed authorization', async () => {
    const signed = await authorize();
    await submitVrs(signed);
    await expect(submitVrs(signed)).rejects.toThrow(/authorization is used or canceled/);
    await expect(submitBytes(signed.auth, signed.signature)).rejects.toThrow(/authorization is used or canceled/);
  });

  it('rejects an expired authorization', async () => {
    const signed = await authorize({ validBefore: (await chainNow()) - 1n });
    await expect(submitVrs(signed)).rejects.toThrow(/authorization is expired/);
  });

  it('rejects an authorization that is not yet valid', async () => {
    const signed = await authorize({ validAfter: (await chainNow()) + 3600n });
    await expect(submitVrs(signed)).rejects.toThrow(/authorization is not yet valid/);
  });

  it('rejects a signature by someone else, tampered values and high-s signatures', async () => {
    const signed = await authorize();
    await expect(submitVrs({ ...signed, auth: { ...signed.auth, value: 2n * ONE_USDC } })).rejects.toThrow(
      /invalid signature/,
    );
    const stranger = await authorize({ from: DEV_ROLES.spare.address });
    await expect(submitVrs(stranger)).rejects.toThrow(/invalid signature/);
    // (r, n - s, flipped v) recovers the same signer; only the low-s form is accepted.
    const highS = (SECP256K1_N - BigInt(signed.s)).toString(16).padStart(64, '0');
    const malleated = { ...signed, s: `0x${highS}` as Hex, v: signed.v === 27 ? 28 : 27 };
    await expect(submitVrs(malleated)).rejects.toThrow(/invalid signature/);
    await expect(submitBytes(signed.auth, `0x${signed.signature.slice(2, 130)}`)).rejects.toThrow(/invalid signature/);
    // The untouched authorization still works afterwards.
    await submitBytes(signed.auth, serializeSignature({ r: signed.r, s: signed.s, yParity: signed.v - 27 }));
  });

  it('reports an insufficient balance', async () => {
    const signed = await authorize({ value: 1_000_000n * ONE_USDC });
    await expect(submitVrs(signed)).rejects.toThrow(/transfer amount exceeds balance/);
  });

  it('receiveWithAuthorization only accepts the payee as caller', async () => {
    const { auth, signature } = await authorize({ value: 5n }, 'ReceiveWithAuthorization');
    const { publicClient, facilitator, payee } = clients();
    const call = { address: usdc, abi: usdcAbi, functionName: 'receiveWithAuthorization', args: [...authArgs(auth), signature] } as const;
    await expect(facilitator.writeContract(call)).rejects.toThrow(/caller must be the payee/);
    const before = await balances();
    const receipt = await publicClient.waitForTransactionReceipt({ hash: await payee.writeContract(call) });
    expect(receipt.status).toBe('success');
    expect((await balances()).payTo).toBe(before.payTo + 5n);
  });

  it('cancelAuthorization burns the nonce', async () => {
    const signed = await authorize();
    const cancel = await buyer.signTypedData({
      domain: { ...USDC_EIP712, chainId: anvil.chainId, verifyingContract: usdc },
      types: {
        CancelAuthorization: [
          { name: 'authorizer', type: 'address' },
          { name: 'nonce', type: 'bytes32' },
        ],
      },
      primaryType: 'CancelAuthorization',
      message: { authorizer: buyer.address, nonce: signed.auth.nonce },
    });
    const { r, s, yParity } = parseSignature(cancel);
    const { publicClient, facilitator } = clients();
    const hash = await facilitator.writeContract({
      address: usdc,
      abi: usdcAbi,
      functionName: 'cancelAuthorization',
      args: [buyer.address, signed.auth.nonce, 27 + yParity, r, s],
    });
    expect((await publicClient.waitForTransactionReceipt({ hash })).status).toBe('success');
    await expect(submitVrs(signed)).rejects.toThrow(/authorization is used or canceled/);
  });
});

describe('EIP-2612 permit', () => {
  it('sets an allowance from a signature', async () => {
    const { publicClient, facilitator } = clients();
    const spender = DEV_ROLES.spare.address;
    const nonce = await publicClient.readContract({ address: usdc, abi: usdcAbi, functionName: 'nonces', args: [buyer.address] });
    const deadline = (await chainNow()) + 600n;
    const sig = await buyer.signTypedData({
      domain: { ...USDC_EIP712, chainId: anvil.chainId, verifyingContract: usdc },
      types: {
        Permit: [
          { name: 'owner', type: 'address' },
          { name: 'spender', type: 'address' },
          { name: 'value', type: 'uint256' },
          { name: 'nonce', type: 'uint256' },
          { name: 'deadline', type: 'uint256' },
        ],
      },
      primaryType: 'Permit',
      message: { owner: buyer.address, spender, value: 42n, nonce, deadline },
    });
    const { r, s, yParity } = parseSignature(sig);
    const hash = await facilitator.writeContract({
      address: usdc,
      abi: usdcAbi,
      functionName: 'permit',
      args: [buyer.address, spender, 42n, deadline, 27 + yParity, r, s],
    });
    expect((await publicClient.waitForTransactionReceipt({ hash })).status).toBe('success');
    expect(
      await publicClient.readContract({ address: usdc, abi: usdcAbi, functionName: 'allowance', args: [buyer.address, spender] }),
    ).toBe(42n);
  });
});

describe('Multicall3', () => {
  it('tryAggregate at the canonical address returns balanceOf results', async () => {
    const { publicClient } = clients();
    const who = [buyer.address, payTo, DEV_ROLES.spare.address];
    const calls = who.map((a) => ({
      target: usdc,
      callData: encodeFunctionData({ abi: usdcAbi, functionName: 'balanceOf', args: [a] }),
    }));
    // A failing call (no code at the target's function) must not abort the batch with requireSuccess = false.
    calls.push({ target: usdc, callData: '0xdeadbeef' });
    // tryAggregate is payable (as in the canonical Multicall3), so viem types it for simulate rather than read.
    const { result: results } = await publicClient.simulateContract({
      address: MULTICALL3_ADDRESS,
      abi: multicall3Abi,
      functionName: 'tryAggregate',
      args: [false, calls],
    });
    expect(results).toHaveLength(4);
    for (const [i, a] of who.entries()) {
      const result = results[i]!;
      expect(result.success).toBe(true);
      expect(decodeFunctionResult({ abi: usdcAbi, functionName: 'balanceOf', data: result.returnData })).toBe(
        await usdcBalance(anvil.rpcUrl, usdc, a),
      );
    }
    expect(results[3]!.success).toBe(false);
  });

  it('serves viem multicall (aggregate3)', async () => {
    const { publicClient } = clients();
    const [bal, name] = await publicClient.multicall({
      contracts: [
        { address: usdc, abi: usdcAbi, functionName: 'balanceOf', args: [buyer.address] },
        { address: usdc, abi: usdcAbi, functionName: 'name' },
      ],
      allowFailure: false,
    });
    expect(bal).toBe(await usdcBalance(anvil.rpcUrl, usdc, buyer.address));
    expect(name).toBe('USD Coin');
  });
});

describe('anvil --state', () => {
  it('keeps contracts and balances across a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'percall-devchain-'));
    const statePath = join(dir, 'nested', 'state.json');
    try {
      const first = await startAnvil({ statePath, chainId: 31338 });
      let token: Address;
      try {
        ({ usdc: token } = await ensureDevContracts(first.rpcUrl, DEV_ROLES.deployer.privateKey));
        await mintUsdc(first.rpcUrl, DEV_ROLES.deployer.privateKey, token, payTo, 7n);
      } finally {
        await first.stop();
      }
      const second = await startAnvil({ statePath, chainId: 31338 });
      try {
        expect(second.rpcUrl).not.toBe('');
        const again = await ensureDevContracts(second.rpcUrl, DEV_ROLES.deployer.privateKey);
        expect(again.usdc).toBe(token);
        expect(await usdcBalance(second.rpcUrl, token, payTo)).toBe(7n);
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
