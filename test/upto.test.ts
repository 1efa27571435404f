// x402 `upto` (Permit2) end to end on a fresh anvil: the official resource server, client and
// facilitator schemes from @x402/evm against our own Permit2 and upto proxy (src/devchain/permit2.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { x402Client } from '@x402/core/client';
import { x402ResourceServer } from '@x402/core/server';
import { declareEip2612GasSponsoringExtension } from '@x402/extensions';
import type { FacilitatorClient } from '@x402/core/server';
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from '@x402/core/types';
import { toClientEvmSigner, uptoPermit2WitnessTypes, x402UptoPermit2ProxyABI } from '@x402/evm';
import { UptoEvmScheme as UptoClientScheme } from '@x402/evm/upto/client';
import { UptoEvmScheme as UptoServerScheme } from '@x402/evm/upto/server';
import {
  createPublicClient,
  domainSeparator,
  erc20Abi,
  getAddress,
  http,
  keccak256,
  parseSignature,
  serializeCompactSignature,
  serializeSignature,
  signatureToCompactSignature,
  toHex,
  type Address,
  type Hex,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { Permit2, X402UptoPermit2Proxy } from '../src/devchain/artifacts/index.ts';
import { DEV_ROLES, devChain, mintUsdc, usdcBalance } from '../src/devchain/contracts.ts';
import type { DevChain } from '../src/devchain/stack.ts';
import { approvePermit2, installUptoContracts, PERMIT2_ADDRESS, UPTO_PERMIT2_PROXY_ADDRESS } from '../src/devchain/permit2.ts';
import { createLocalFacilitator } from '../src/payments/facilitator.ts';
import { startTestChain } from './helpers/service.ts';

const MAX_AUTHORIZATION = 1_000_000n; // 1.00 USDC
const ACTUAL = 10_000n; // 0.01 USDC
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

// A second buyer who holds USDC but never approved Permit2.
const unapprovedBuyer = DEV_ROLES.spare;
// A third one with USDC, no Permit2 approval and no ETH: it can only approve through gas sponsoring.
const gaslessBuyerKey = generatePrivateKey();
const gaslessBuyer = privateKeyToAccount(gaslessBuyerKey).address;

let chain: DevChain;
let facilitator: FacilitatorClient & { address: Hex };
let server: x402ResourceServer;
let requirements: PaymentRequirements;

function publicClient() {
  return createPublicClient({ chain: devChain(chain.rpcUrl, chain.chainId), transport: http(chain.rpcUrl) });
}

function balances(who: Address = chain.buyer.address): Promise<{ buyer: bigint; payTo: bigint }> {
  return Promise.all([usdcBalance(chain.rpcUrl, chain.usdc, who), usdcBalance(chain.rpcUrl, chain.usdc, chain.payTo)]).then(([buyer, payTo]) => ({
    buyer,
    payTo,
  }));
}

/**
 * A payment signed by the unmodified official client: `x402Client` + the upto EVM client scheme.
 * `extensions` are the PaymentRequired's declared extensions (e.g. EIP-2612 gas sponsoring).
 */
function signUpto(buyerKey: Hex, accepts: PaymentRequirements = requirements, extensions?: Record<string, unknown>): Promise<PaymentPayload> {
  const client = new x402Client();
  // The public client lets the scheme read token state (allowance, EIP-2612 nonce) for extensions.
  client.register(chain.network, new UptoClientScheme(toClientEvmSigner(privateKeyToAccount(buyerKey), publicClient())));
  client.setSpendControls({ allowedAssets: [{ network: chain.network, asset: chain.usdc }] });
  const paymentRequired: PaymentRequired = {
    x402Version: 2,
    resource: { url: 'http://127.0.0.1/api/v1/paid/chat', description: 'upto test', mimeType: 'application/json' },
    accepts: [accepts],
    ...(extensions ? { extensions } : {}),
  };
  return client.createPaymentPayload(paymentRequired);
}

beforeAll(async () => {
  chain = await startTestChain();
  await installUptoContracts(chain.rpcUrl);
  await approvePermit2(chain.rpcUrl, chain.chainId, chain.usdc, chain.buyer.privateKey);
  // The deployer is also the facilitator's gas wallet: mint before the facilitator sends anything.
  await mintUsdc(chain.rpcUrl, DEV_ROLES.deployer.privateKey, chain.usdc, unapprovedBuyer.address, 5n * MAX_AUTHORIZATION);
  await mintUsdc(chain.rpcUrl, DEV_ROLES.deployer.privateKey, chain.usdc, gaslessBuyer, 5n * MAX_AUTHORIZATION);

  facilitator = createLocalFacilitator({ rpcUrl: chain.rpcUrl, chainId: chain.chainId, network: chain.network, privateKey: chain.facilitatorKey });
  server = new x402ResourceServer(facilitator);
  server.register(chain.network, new UptoServerScheme());
  await server.initialize();
  [requirements] = (await server.buildPaymentRequirements({
    scheme: 'upto',
    network: chain.network,
    payTo: chain.payTo,
    price: { amount: MAX_AUTHORIZATION.toString(), asset: chain.usdc, extra: { name: chain.usdcName, version: chain.usdcVersion } },
    maxTimeoutSeconds: 300,
  })) as [PaymentRequirements];
});

afterAll(async () => {
  await chain?.stop();
});

describe('dev chain setup', () => {
  it('installs our Permit2 and upto proxy at the SDK addresses, idempotently', async () => {
    expect(PERMIT2_ADDRESS).toBe('0x000000000022D473030F116dDEE9F6B43aC78BA3');
    expect(UPTO_PERMIT2_PROXY_ADDRESS).toBe('0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002');
    await installUptoContracts(chain.rpcUrl);
    const client = publicClient();
    expect(await client.getCode({ address: PERMIT2_ADDRESS })).toBe(Permit2.deployedBytecode);
    expect(await client.getCode({ address: UPTO_PERMIT2_PROXY_ADDRESS })).toBe(X402UptoPermit2Proxy.deployedBytecode);
    expect(await client.readContract({ address: UPTO_PERMIT2_PROXY_ADDRESS, abi: x402UptoPermit2ProxyABI, functionName: 'PERMIT2' })).toBe(PERMIT2_ADDRESS);
  });

  it('hashes exactly what the SDK signs: Permit2 domain and the upto witness type', async () => {
    const client = publicClient();
    const domain = await client.readContract({ address: PERMIT2_ADDRESS, abi: Permit2.abi, functionName: 'DOMAIN_SEPARATOR' });
    expect(domain).toBe(domainSeparator({ domain: { name: 'Permit2', chainId: chain.chainId, verifyingContract: PERMIT2_ADDRESS } }));
    const witnessFields = uptoPermit2WitnessTypes.Witness.map((f) => `${f.type} ${f.name}`).join(',');
    expect(await client.readContract({ address: UPTO_PERMIT2_PROXY_ADDRESS, abi: x402UptoPermit2ProxyABI, functionName: 'WITNESS_TYPEHASH' })).toBe(
      keccak256(toHex(`Witness(${witnessFields})`)),
    );
    expect(await client.readContract({ address: UPTO_PERMIT2_PROXY_ADDRESS, abi: x402UptoPermit2ProxyABI, functionName: 'WITNESS_TYPE_STRING' })).toBe(
      `Witness witness)TokenPermissions(address token,uint256 amount)Witness(${witnessFields})`,
    );
  });

  it('approves Permit2 once: a second call sends nothing', async () => {
    expect(await approvePermit2(chain.rpcUrl, chain.chainId, chain.usdc, chain.buyer.privateKey)).toBeUndefined();
  });
});

describe('upto with the official SDK', () => {
  let settledPayload: PaymentPayload;

  it('builds upto requirements with permit2 and the facilitator address in extra', () => {
    expect(requirements).toMatchObject({
      scheme: 'upto',
      network: chain.network,
      asset: getAddress(chain.usdc),
      amount: '1000000',
      payTo: chain.payTo,
      maxTimeoutSeconds: 300,
      extra: { name: 'USD Coin', version: '2', assetTransferMethod: 'permit2', facilitatorAddress: getAddress(facilitator.address) },
    });
  });

  it('authorizes up to 1.00, verifies, and charges only the actual 0.01', async () => {
    const payload = await signUpto(chain.buyer.privateKey);
    const auth = (payload.payload as { permit2Authorization: Record<string, unknown> }).permit2Authorization;
    expect(auth).toMatchObject({
      from: chain.buyer.address,
      spender: UPTO_PERMIT2_PROXY_ADDRESS,
      permitted: { token: getAddress(chain.usdc), amount: '1000000' },
      witness: { to: chain.payTo, facilitator: getAddress(facilitator.address), validAfter: '0' },
    });

    expect(await facilitator.verify(payload, requirements)).toMatchObject({ isValid: true, payer: chain.buyer.address });
    expect(await server.verifyPayment(payload, requirements)).toMatchObject({ isValid: true });

    const before = await balances();
    const settled = await server.settlePayment(payload, requirements, undefined, undefined, { amount: ACTUAL.toString() });
    expect(settled).toMatchObject({ success: true, network: chain.network, payer: chain.buyer.address, amount: '10000' });
    expect(settled.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    const after = await balances();
    expect(before.buyer - after.buyer).toBe(ACTUAL);
    expect(after.payTo - before.payTo).toBe(ACTUAL);
    settledPayload = payload;
  });

  it('rejects replaying a settled payload, and moves nothing', async () => {
    const before = await balances();
    const replay = await server.settlePayment(settledPayload, requirements, undefined, undefined, { amount: ACTUAL.toString() });
    expect(replay).toMatchObject({ success: false, errorReason: 'permit2_simulation_failed', transaction: '' });
    expect(await facilitator.verify(settledPayload, requirements)).toMatchObject({ isValid: false, invalidReason: 'permit2_simulation_failed' });
    expect(await balances()).toEqual(before);
  });

  it('settles an actual amount of 0 without a transaction, leaving the authorization unused', async () => {
    const payload = await signUpto(chain.buyer.privateKey);
    const before = await balances();
    const settled = await server.settlePayment(payload, requirements, undefined, undefined, { amount: '0' });
    expect(settled).toMatchObject({ success: true, transaction: '', amount: '0' });
    expect(await balances()).toEqual(before);
    // The SDK sends nothing, so the Permit2 nonce is not consumed: the same payload still settles later.
    // Whoever settles 0 must itself remember that the payment is done.
    expect(await facilitator.verify(payload, requirements)).toMatchObject({ isValid: true });
    const later = await server.settlePayment(payload, requirements, undefined, undefined, { amount: '1' });
    expect(later).toMatchObject({ success: true, amount: '1' });
    expect(before.buyer - (await balances()).buyer).toBe(1n);
  });

  it('rejects charging more than authorized, and moves nothing', async () => {
    const payload = await signUpto(chain.buyer.privateKey);
    const before = await balances();
    const over = await server.settlePayment(payload, requirements, undefined, undefined, { amount: (MAX_AUTHORIZATION + 1n).toString() });
    expect(over).toMatchObject({ success: false, errorReason: 'invalid_upto_evm_payload_settlement_exceeds_amount', transaction: '' });
    expect(await balances()).toEqual(before);
    // The full authorization is still chargeable.
    const full = await server.settlePayment(payload, requirements, undefined, undefined, { amount: MAX_AUTHORIZATION.toString() });
    expect(full).toMatchObject({ success: true, amount: '1000000' });
    expect(before.buyer - (await balances()).buyer).toBe(MAX_AUTHORIZATION);
  });

  it('fails verification for a buyer who never approved Permit2', async () => {
    const payload = await signUpto(unapprovedBuyer.privateKey);
    // The client signs regardless: without a declared gas-sponsoring extension it adds no approval.
    expect(payload.extensions).toBeUndefined();
    expect(await facilitator.verify(payload, requirements)).toMatchObject({
      isValid: false,
      invalidReason: 'permit2_allowance_required',
      payer: unapprovedBuyer.address,
    });
    const before = await balances(unapprovedBuyer.address);
    const settled = await server.settlePayment(payload, requirements, undefined, undefined, { amount: ACTUAL.toString() });
    expect(settled).toMatchObject({ success: false, errorReason: 'permit2_allowance_required' });
    expect(await balances(unapprovedBuyer.address)).toEqual(before);
  });

  it('lets a buyer without approval pay in one go when the server declares EIP-2612 gas sponsoring', async () => {
    const payload = await signUpto(gaslessBuyerKey, requirements, declareEip2612GasSponsoringExtension());
    // The client signed an EIP-2612 permit of the token approving Permit2 for the authorized maximum.
    expect(payload.extensions?.eip2612GasSponsoring).toMatchObject({
      info: { from: gaslessBuyer, asset: getAddress(chain.usdc), spender: PERMIT2_ADDRESS, amount: '1000000', nonce: '0', version: '1' },
    });
    expect(await facilitator.verify(payload, requirements)).toMatchObject({ isValid: true, payer: gaslessBuyer });
    const before = await balances(gaslessBuyer);
    // The facilitator calls the proxy's settleWithPermit: permit, then the Permit2 transfer, in one transaction.
    const settled = await server.settlePayment(payload, requirements, undefined, undefined, { amount: ACTUAL.toString() });
    expect(settled).toMatchObject({ success: true, amount: '10000' });
    const after = await balances(gaslessBuyer);
    expect(before.buyer - after.buyer).toBe(ACTUAL);
    expect(after.payTo - before.payTo).toBe(ACTUAL);
    const allowance = await publicClient().readContract({ address: chain.usdc, abi: erc20Abi, functionName: 'allowance', args: [gaslessBuyer, PERMIT2_ADDRESS] });
    expect(allowance).toBe(MAX_AUTHORIZATION - ACTUAL);
  });

  it('rejects a payload whose witness names another payee', async () => {
    const elsewhere = { ...requirements, payTo: DEV_ROLES.spare.address };
    const payload = await signUpto(chain.buyer.privateKey, elsewhere);
    expect(await facilitator.verify(payload, requirements)).toMatchObject({ isValid: false, invalidReason: 'invalid_permit2_recipient_mismatch' });
  });
});

describe('the contracts enforce the authorization on their own', () => {
  const buyer = () => privateKeyToAccount(chain.buyer.privateKey);
  let nextNonce = 1n << 200n;

  interface Terms {
    amount?: bigint;
    nonce?: bigint;
    deadline?: bigint;
    to?: Address;
    facilitator?: Address;
    validAfter?: bigint;
  }

  /** Signs a Permit2 upto authorization directly, and returns the proxy's `settle` arguments. */
  async function authorize(terms: Terms = {}, signer = buyer()) {
    const now = BigInt(Math.floor(Date.now() / 1000));
    const permit = {
      permitted: { token: getAddress(chain.usdc), amount: terms.amount ?? MAX_AUTHORIZATION },
      nonce: terms.nonce ?? nextNonce++,
      deadline: terms.deadline ?? now + 300n,
    };
    const witness = { to: terms.to ?? chain.payTo, facilitator: terms.facilitator ?? getAddress(facilitator.address), validAfter: terms.validAfter ?? 0n };
    const signature = await signer.signTypedData({
      domain: { name: 'Permit2', chainId: chain.chainId, verifyingContract: PERMIT2_ADDRESS },
      types: uptoPermit2WitnessTypes,
      primaryType: 'PermitWitnessTransferFrom',
      message: { permitted: permit.permitted, spender: UPTO_PERMIT2_PROXY_ADDRESS, nonce: permit.nonce, deadline: permit.deadline, witness },
    });
    return { permit, witness, signature };
  }

  // Errors of both contracts, so viem names a revert bubbled up from Permit2.
  const abi = [...X402UptoPermit2Proxy.abi, ...Permit2.abi.filter((item) => item.type === 'error')];

  function simulate(a: Awaited<ReturnType<typeof authorize>>, amount: bigint, options: { caller?: Address; owner?: Address; witness?: typeof a.witness; signature?: Hex } = {}) {
    return publicClient().simulateContract({
      address: UPTO_PERMIT2_PROXY_ADDRESS,
      abi,
      functionName: 'settle',
      args: [a.permit, amount, options.owner ?? chain.buyer.address, options.witness ?? a.witness, options.signature ?? a.signature],
      account: options.caller ?? facilitator.address,
    });
  }

  it('accepts a valid authorization, also as an EIP-2098 compact signature', async () => {
    const a = await authorize();
    await expect(simulate(a, ACTUAL)).resolves.toBeDefined();
    const compact = serializeCompactSignature(signatureToCompactSignature(parseSignature(a.signature)));
    await expect(simulate(a, ACTUAL, { signature: compact })).resolves.toBeDefined();
  });

  it('rejects an amount above the permitted one, and an amount of 0', async () => {
    const a = await authorize();
    await expect(simulate(a, MAX_AUTHORIZATION + 1n)).rejects.toThrow(/AmountExceedsPermitted\(\)/);
    await expect(simulate(a, 0n)).rejects.toThrow(/InvalidAmount\(\)/);
  });

  it('only lets the facilitator named in the witness settle', async () => {
    const a = await authorize();
    await expect(simulate(a, ACTUAL, { caller: DEV_ROLES.payTo.address })).rejects.toThrow(/UnauthorizedFacilitator\(\)/);
  });

  it('rejects an expired deadline and a payment before validAfter', async () => {
    const now = BigInt(Math.floor(Date.now() / 1000));
    await expect(simulate(await authorize({ deadline: now - 3600n }), ACTUAL)).rejects.toThrow(/SignatureExpired\(uint256 signatureDeadline\)/);
    await expect(simulate(await authorize({ validAfter: now + 3600n }), ACTUAL)).rejects.toThrow(/PaymentTooEarly\(\)/);
  });

  it('rejects changed witness fields, another owner, a foreign signer and a malleable signature', async () => {
    const a = await authorize();
    await expect(simulate(a, ACTUAL, { witness: { ...a.witness, to: DEV_ROLES.spare.address } })).rejects.toThrow(/InvalidSigner\(\)/);
    await expect(simulate(a, ACTUAL, { owner: DEV_ROLES.spare.address })).rejects.toThrow(/InvalidSigner\(\)/);
    const foreign = await authorize({}, privateKeyToAccount(DEV_ROLES.spare.privateKey));
    await expect(simulate(foreign, ACTUAL)).rejects.toThrow(/InvalidSigner\(\)/);
    const { r, s, yParity } = parseSignature(a.signature);
    const highS = serializeSignature({ r, s: toHex(SECP256K1_N - BigInt(s), { size: 32 }), yParity: yParity === 0 ? 1 : 0 });
    await expect(simulate(a, ACTUAL, { signature: highS })).rejects.toThrow(/InvalidSignature\(\)/);
    await expect(simulate(a, ACTUAL, { signature: `${a.signature}00` })).rejects.toThrow(/InvalidSignatureLength\(\)/);
  });

  it('rejects a Permit2 nonce that was already used', async () => {
    const client = publicClient();
    const a = await authorize();
    const settled = await facilitatorSettle(a, ACTUAL);
    expect(settled).toBe('success');
    const wordPos = a.permit.nonce >> 8n;
    const bitmap = await client.readContract({ address: PERMIT2_ADDRESS, abi: Permit2.abi, functionName: 'nonceBitmap', args: [chain.buyer.address, wordPos] });
    expect((bitmap >> (a.permit.nonce & 0xffn)) & 1n).toBe(1n);
    await expect(simulate(a, ACTUAL)).rejects.toThrow(/InvalidNonce\(\)/);
    // A fresh authorization with another nonce still settles.
    await expect(simulate(await authorize(), ACTUAL)).resolves.toBeDefined();
  });

  /** Settles through the official facilitator, which sends the proxy's `settle` with the SDK's own encoding. */
  async function facilitatorSettle(a: Awaited<ReturnType<typeof authorize>>, amount: bigint): Promise<string> {
    const accepted = requirements;
    const payload: PaymentPayload = {
      x402Version: 2,
      accepted,
      payload: {
        signature: a.signature,
        permit2Authorization: {
          from: chain.buyer.address,
          permitted: { token: a.permit.permitted.token, amount: a.permit.permitted.amount.toString() },
          spender: UPTO_PERMIT2_PROXY_ADDRESS,
          nonce: a.permit.nonce.toString(),
          deadline: a.permit.deadline.toString(),
          witness: { to: a.witness.to, facilitator: a.witness.facilitator, validAfter: a.witness.validAfter.toString() },
        },
      },
    };
    const result = await facilitator.settle(payload, { ...requirements, amount: amount.toString() });
    return result.success ? 'success' : (result.errorReason ?? 'failed');
  }
});
