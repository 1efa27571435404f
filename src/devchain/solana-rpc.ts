// A JSON-RPC 2.0 HTTP server that makes an in-process LiteSVM look like a (single-node) Solana
// cluster to @solana/kit, the @x402/svm client and the @x402/svm facilitator. See solana.ts for
// what it supports and what it deliberately does not.
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  address,
  getBase58Decoder,
  getBase58Encoder,
  getBase64Decoder,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  getTransactionEncoder,
  isSolanaError,
  SOLANA_ERROR__TRANSACTION__SIGNATURES_MISSING,
  type Address,
  type Transaction,
} from '@solana/kit';
import { FailedTransactionMetadata, type LiteSVM, type TransactionMetadata } from 'litesvm';
// The error classes are not re-exported by the package entry point; this is the same CommonJS
// module instance litesvm itself loads, so `instanceof` works.
import {
  InstructionErrorBorshIo,
  InstructionErrorCustom,
  TransactionErrorDuplicateInstruction,
  TransactionErrorInstructionError,
  TransactionErrorInsufficientFundsForRent,
  TransactionErrorProgramExecutionTemporarilyRestricted,
} from 'litesvm/dist/internal.js';
import type { Logger } from '../log.ts';

/** Real clusters target 400 ms slots; the shim derives its slot from the wall clock at that rate. */
export const SLOT_MS = 400;
/** A blockhash is valid for 150 blocks after it was issued (agave MAX_PROCESSING_AGE), ~60 s. */
const BLOCKHASH_VALIDITY_SLOTS = 150n;
/** Simulation (and so preflight) allows 6 blocks less, for forwarding (MAX_TRANSACTION_FORWARDING_DELAY). */
const SIMULATION_AGE_MARGIN = 6n;
/** Slots after which a landed transaction is reported `finalized` rather than `confirmed`. */
const FINALITY_SLOTS = 32n;
/** Bounded memory for signature statuses (a dev chain never needs more). */
const MAX_STATUSES = 50_000;
const MAX_BODY_BYTES = 1 << 20;
/** What a real node reports as `rentEpoch` for rent-exempt accounts (u64::MAX). */
const RENT_EXEMPT_EPOCH = 18_446_744_073_709_551_615n;
const TOKEN_PROGRAMS = new Set(['TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb']);
const TOKEN_ACCOUNT_LEN = 165;
const COMPUTE_BUDGET_PROGRAM = 'ComputeBudget111111111111111111111111111111';
/** ComputeBudgetInstruction::SetComputeUnitPrice: tag 3, then u64 micro-lamports per compute unit. */
const SET_COMPUTE_UNIT_PRICE = 3;
/** A node's prioritization-fee cache holds this many recent blocks. */
const PRIORITIZATION_FEE_SLOTS = 150n;
/** getRecentPrioritizationFees takes at most this many addresses. */
const MAX_PRIORITIZATION_FEE_ADDRESSES = 128;
const MINT_LEN = 82;

// litesvm exposes these as `const enum`s (numbers at runtime); the order is Solana's own
// TransactionError / InstructionError enum order, which is what the JSON wire format names.
const TX_ERRORS = [
  'AccountInUse', 'AccountLoadedTwice', 'AccountNotFound', 'ProgramAccountNotFound', 'InsufficientFundsForFee',
  'InvalidAccountForFee', 'AlreadyProcessed', 'BlockhashNotFound', 'CallChainTooDeep', 'MissingSignatureForFee',
  'InvalidAccountIndex', 'SignatureFailure', 'InvalidProgramForExecution', 'SanitizeFailure', 'ClusterMaintenance',
  'AccountBorrowOutstanding', 'WouldExceedMaxBlockCostLimit', 'UnsupportedVersion', 'InvalidWritableAccount',
  'WouldExceedMaxAccountCostLimit', 'WouldExceedAccountDataBlockLimit', 'TooManyAccountLocks',
  'AddressLookupTableNotFound', 'InvalidAddressLookupTableOwner', 'InvalidAddressLookupTableData',
  'InvalidAddressLookupTableIndex', 'InvalidRentPayingAccount', 'WouldExceedMaxVoteCostLimit',
  'WouldExceedAccountDataTotalLimit', 'MaxLoadedAccountsDataSizeExceeded', 'ResanitizationNeeded',
  'InvalidLoadedAccountsDataSizeLimit', 'UnbalancedTransaction', 'ProgramCacheHitMaxLimit', 'CommitCancelled',
] as const;
const IX_ERRORS = [
  'GenericError', 'InvalidArgument', 'InvalidInstructionData', 'InvalidAccountData', 'AccountDataTooSmall',
  'InsufficientFunds', 'IncorrectProgramId', 'MissingRequiredSignature', 'AccountAlreadyInitialized',
  'UninitializedAccount', 'UnbalancedInstruction', 'ModifiedProgramId', 'ExternalAccountLamportSpend',
  'ExternalAccountDataModified', 'ReadonlyLamportChange', 'ReadonlyDataModified', 'DuplicateAccountIndex',
  'ExecutableModified', 'RentEpochModified', 'NotEnoughAccountKeys', 'AccountDataSizeChanged', 'AccountNotExecutable',
  'AccountBorrowFailed', 'AccountBorrowOutstanding', 'DuplicateAccountOutOfSync', 'InvalidError',
  'ExecutableDataModified', 'ExecutableLamportChange', 'ExecutableAccountNotRentExempt', 'UnsupportedProgramId',
  'CallDepth', 'MissingAccount', 'ReentrancyNotAllowed', 'MaxSeedLengthExceeded', 'InvalidSeeds', 'InvalidRealloc',
  'ComputationalBudgetExceeded', 'PrivilegeEscalation', 'ProgramEnvironmentSetupFailure', 'ProgramFailedToComplete',
  'ProgramFailedToCompile', 'Immutable', 'IncorrectAuthority', 'AccountNotRentExempt', 'InvalidAccountOwner',
  'ArithmeticOverflow', 'UnsupportedSysvar', 'IllegalOwner', 'MaxAccountsDataAllocationsExceeded',
  'MaxAccountsExceeded', 'MaxInstructionTraceLengthExceeded', 'BuiltinProgramsMustConsumeComputeUnits', 'BorshIoError',
] as const;

/** Rust `Display` texts a node puts into "Transaction simulation failed: …" for the usual errors. */
const TX_ERROR_TEXT: Record<string, string> = {
  AccountNotFound: 'Attempt to debit an account but found no record of a prior credit.',
  AlreadyProcessed: 'This transaction has already been processed',
  BlockhashNotFound: 'Blockhash not found',
  InsufficientFundsForFee: 'Insufficient funds for fee',
  SignatureFailure: 'Transaction did not pass signature verification',
};

/** A Solana `TransactionError` in its JSON wire form, e.g. `"AlreadyProcessed"` or `{"InstructionError":[2,{"Custom":1}]}`. */
type WireError = string | Record<string, unknown>;

class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}
const invalidParams = (message: string): RpcError => new RpcError(-32602, message);

function wireError(err: ReturnType<FailedTransactionMetadata['err']>): WireError {
  if (typeof err === 'number') return TX_ERRORS[err] ?? `TransactionError(${err})`;
  if (err instanceof TransactionErrorInstructionError) {
    const inner = err.err();
    let ix: WireError;
    if (typeof inner === 'number') ix = IX_ERRORS[inner] ?? `InstructionError(${inner})`;
    else if (inner instanceof InstructionErrorCustom) ix = { Custom: inner.code };
    else if (inner instanceof InstructionErrorBorshIo) ix = { BorshIoError: inner.msg };
    else ix = 'GenericError';
    return { InstructionError: [err.index, ix] };
  }
  if (err instanceof TransactionErrorDuplicateInstruction) return { DuplicateInstruction: err.index };
  if (err instanceof TransactionErrorInsufficientFundsForRent) return { InsufficientFundsForRent: { account_index: err.accountIndex } };
  if (err instanceof TransactionErrorProgramExecutionTemporarilyRestricted) {
    return { ProgramExecutionTemporarilyRestricted: { account_index: err.accountIndex } };
  }
  return 'SanitizeFailure';
}

function describe(err: WireError): string {
  if (typeof err === 'string') return TX_ERROR_TEXT[err] ?? err;
  const ix = err.InstructionError;
  if (Array.isArray(ix)) {
    const [index, inner] = ix as [number, WireError];
    const text =
      typeof inner === 'string' ? inner : typeof inner.Custom === 'number' ? `custom program error: 0x${inner.Custom.toString(16)}` : JSON.stringify(inner);
    return `Error processing Instruction ${index}: ${text}`;
  }
  return JSON.stringify(err);
}

/**
 * Whether a failed transaction would still be included in a block (fee charged, status recorded)
 * on a real cluster. Everything else (bad signature, unknown/expired blockhash, duplicate, fee payer
 * unable to pay…) is rejected before execution and never lands.
 */
function lands(err: WireError): boolean {
  return typeof err === 'object' && ('InstructionError' in err || 'InsufficientFundsForRent' in err);
}

interface Status {
  slot: bigint;
  err: WireError | null;
  /** What getTransaction answers: the wire bytes, the block time and the token balances around it. */
  landed?: { wire: Uint8Array; blockTime: bigint; fee: bigint; preTokenBalances: TokenBalance[]; postTokenBalances: TokenBalance[] };
}

/** A token balance as a node reports it in a transaction's meta (`uiTokenAmount` as getTokenAccountBalance). */
interface TokenBalance {
  accountIndex: number;
  mint: string;
  owner: string;
  programId: string;
  uiTokenAmount: { amount: string; decimals: number; uiAmount: number; uiAmountString: string };
}

/**
 * What agave's prioritization-fee cache keeps of one block: the smallest compute-unit price of its
 * landed transactions, and per account write-locked in it the smallest price of those locking it.
 */
interface SlotFees {
  min: bigint;
  writable: Map<string, bigint>;
}

/** A transaction's compute-unit price (micro-lamports; 0 without SetComputeUnitPrice) and the accounts it write-locks. */
function feeFacts(tx: Transaction): { price: bigint; writable: string[] } {
  const message = getCompiledTransactionMessageDecoder().decode(tx.messageBytes);
  const { numSignerAccounts, numReadonlySignerAccounts, numReadonlyNonSignerAccounts } = message.header;
  const accounts = message.staticAccounts.map(String);
  const writable = accounts.filter(
    (_, index) => index < numSignerAccounts - numReadonlySignerAccounts || (index >= numSignerAccounts && index < accounts.length - numReadonlyNonSignerAccounts),
  );
  let price = 0n;
  // Version-1 messages carry the price in their config values instead; the shim's clients send legacy and v0.
  for (const ix of 'instructions' in message ? message.instructions : []) {
    const data = ix.data;
    if (accounts[ix.programAddressIndex] !== COMPUTE_BUDGET_PROGRAM || !data || data.length < 9 || data[0] !== SET_COMPUTE_UNIT_PRICE) continue;
    price = new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(1, true);
  }
  return { price, writable };
}

interface ExecutionResult {
  err: WireError | null;
  /** Absent when the transaction was rejected before it reached the VM. */
  meta?: TransactionMetadata;
}

/** The chain state the RPC methods read and write: LiteSVM plus the slot clock, blockhash queue and status cache it lacks. */
class Ledger {
  private slot: bigint;
  private readonly startSlot: bigint;
  private readonly startMs: number;
  /** blockhash → last block height at which it is still accepted */
  private readonly blockhashes = new Map<string, bigint>();
  private readonly statuses = new Map<string, Status>();
  /**
   * Message hash → signature of every landed transaction. A node's status cache is keyed by the
   * message hash, so a replay is AlreadyProcessed even before the fee payer has signed it (the
   * facilitator simulates the buyer-signed, fee-payer-unsigned transaction in verify).
   */
  private readonly processed = new Map<string, string>();
  /** Prioritization fees of the recent slots in which transactions landed, oldest first. */
  private readonly fees = new Map<bigint, SlotFees>();

  constructor(
    readonly svm: LiteSVM,
    private readonly now: () => number,
  ) {
    // LiteSVM only accepts its current blockhash; real clusters accept any of the last 150.
    // The shim keeps that queue itself and checks it before handing a transaction to LiteSVM.
    svm.withBlockhashCheck(false);
    this.startMs = now();
    this.startSlot = this.slot = svm.getClock().slot;
    this.setClock();
    this.blockhashes.set(svm.latestBlockhash(), this.slot + BLOCKHASH_VALIDITY_SLOTS);
  }

  /** Advances the slot to the wall clock; each new slot gets a new blockhash, as on a real cluster. */
  tick(): bigint {
    const slot = this.startSlot + BigInt(Math.max(0, Math.floor((this.now() - this.startMs) / SLOT_MS)));
    if (slot > this.slot) {
      this.slot = slot;
      this.setClock();
      this.svm.expireBlockhash();
      this.blockhashes.set(this.svm.latestBlockhash(), slot + BLOCKHASH_VALIDITY_SLOTS);
      for (const [hash, lastValid] of this.blockhashes) if (lastValid < slot) this.blockhashes.delete(hash);
    }
    return this.slot;
  }

  private setClock(): void {
    const clock = this.svm.getClock();
    clock.slot = this.slot;
    clock.unixTimestamp = BigInt(Math.floor(this.now() / 1000));
    this.svm.setClock(clock);
  }

  /** Block height equals slot: a single node never skips a slot. */
  latestBlockhash(): { blockhash: string; lastValidBlockHeight: bigint } {
    this.tick();
    const blockhash = this.svm.latestBlockhash();
    return { blockhash, lastValidBlockHeight: this.blockhashes.get(blockhash) ?? this.slot + BLOCKHASH_VALIDITY_SLOTS };
  }

  isBlockhashValid(blockhash: string, margin = 0n): boolean {
    const lastValid = this.blockhashes.get(blockhash);
    return lastValid !== undefined && this.tick() <= lastValid - margin;
  }

  status(signature: string): Status | undefined {
    return this.statuses.get(signature);
  }

  /**
   * Runs `tx` through LiteSVM after the checks LiteSVM does not make the way a cluster does
   * (blockhash age, then the status cache), in that order, as agave's check_transactions does.
   */
  execute(tx: Transaction, mode: { simulate: boolean; sigVerify: boolean; checkBlockhash: boolean }): ExecutionResult {
    const signature = transactionSignature(tx);
    this.tick();
    const margin = mode.simulate ? SIMULATION_AGE_MARGIN : 0n;
    if (mode.checkBlockhash && !this.isBlockhashValid(blockhashOf(tx), margin)) return { err: 'BlockhashNotFound' };
    if (this.processed.has(messageHash(tx))) return { err: 'AlreadyProcessed' };
    let result: TransactionMetadata | FailedTransactionMetadata;
    let pre: TokenBalance[] = [];
    this.svm.withSigverify(mode.sigVerify);
    try {
      if (mode.simulate) {
        const simulated = this.svm.simulateTransaction(tx);
        result = simulated instanceof FailedTransactionMetadata ? simulated : simulated.meta();
      } else {
        pre = this.tokenBalances(tx);
        result = this.svm.sendTransaction(tx);
      }
    } catch (error) {
      // The litesvm wrapper rejects a transaction with a missing signature before the VM sees it.
      if (isSolanaError(error, SOLANA_ERROR__TRANSACTION__SIGNATURES_MISSING)) return { err: 'SignatureFailure' };
      throw error;
    } finally {
      this.svm.withSigverify(true);
    }
    if (result instanceof FailedTransactionMetadata) {
      const err = wireError(result.err());
      if (!mode.simulate && lands(err) && signature) this.record(tx, signature, err, pre);
      return { err, meta: result.meta() };
    }
    if (!mode.simulate && signature) this.record(tx, signature, null, pre);
    return { err: null, meta: result };
  }

  /**
   * getRecentPrioritizationFees as agave answers it, from the transactions this ledger processed:
   * for each recent slot with landed transactions, the slot's smallest compute-unit price, raised to
   * the largest of the given accounts' own minimums (each the smallest price of the slot's
   * transactions write-locking that account).
   */
  prioritizationFees(accounts: string[]): { slot: bigint; prioritizationFee: bigint }[] {
    const oldest = this.tick() - PRIORITIZATION_FEE_SLOTS;
    const out: { slot: bigint; prioritizationFee: bigint }[] = [];
    for (const [slot, fees] of this.fees) {
      if (slot <= oldest) {
        this.fees.delete(slot);
        continue;
      }
      let fee = fees.min;
      for (const account of accounts) {
        const own = fees.writable.get(account);
        if (own !== undefined && own > fee) fee = own;
      }
      out.push({ slot, prioritizationFee: fee });
    }
    return out;
  }

  private recordFees(tx: Transaction): void {
    const { price, writable } = feeFacts(tx);
    let fees = this.fees.get(this.slot);
    if (!fees) this.fees.set(this.slot, (fees = { min: price, writable: new Map() }));
    if (price < fees.min) fees.min = price;
    for (const account of writable) {
      const own = fees.writable.get(account);
      if (own === undefined || price < own) fees.writable.set(account, price);
    }
  }

  /** The token balances of the transaction's accounts that are token accounts, as a node's meta lists them. */
  private tokenBalances(tx: Transaction): TokenBalance[] {
    const message = getCompiledTransactionMessageDecoder().decode(tx.messageBytes);
    const out: TokenBalance[] = [];
    for (const [accountIndex, key] of message.staticAccounts.entries()) {
      const account = this.svm.getAccount(key);
      const isToken = account.exists && TOKEN_PROGRAMS.has(account.programAddress) && (account.data.length === TOKEN_ACCOUNT_LEN || (account.data.length > TOKEN_ACCOUNT_LEN && account.data[TOKEN_ACCOUNT_LEN] === 2));
      if (!account.exists || !isToken) continue;
      const mint = getBase58Decoder().decode(account.data.subarray(0, 32));
      const mintAccount = this.svm.getAccount(mint as Address);
      const decimals = mintAccount.exists && mintAccount.data.length >= MINT_LEN ? (mintAccount.data[44] ?? 0) : 0;
      const amount = new DataView(account.data.buffer, account.data.byteOffset, account.data.byteLength).getBigUint64(64, true);
      const scale = 10n ** BigInt(decimals);
      const fraction = (amount % scale).toString().padStart(decimals, '0').replace(/0+$/, '');
      const uiAmountString = `${amount / scale}${fraction ? `.${fraction}` : ''}`;
      out.push({
        accountIndex,
        mint,
        owner: getBase58Decoder().decode(account.data.subarray(32, 64)),
        programId: account.programAddress,
        uiTokenAmount: { amount: amount.toString(), decimals, uiAmount: Number(uiAmountString), uiAmountString },
      });
    }
    return out;
  }

  private record(tx: Transaction, signature: string, err: WireError | null, pre: TokenBalance[]): void {
    this.recordFees(tx);
    const landed = { wire: new Uint8Array(getTransactionEncoder().encode(tx)), blockTime: this.svm.getClock().unixTimestamp, fee: 5000n * BigInt(Object.keys(tx.signatures).length), preTokenBalances: pre, postTokenBalances: this.tokenBalances(tx) };
    this.statuses.set(signature, { slot: this.slot, err, landed });
    this.processed.set(messageHash(tx), signature);
    if (this.processed.size > MAX_STATUSES) {
      const [oldest, oldestSignature] = this.processed.entries().next().value ?? [];
      if (oldest !== undefined) this.processed.delete(oldest);
      if (oldestSignature !== undefined) this.statuses.delete(oldestSignature);
    }
  }
}

function messageHash(tx: Transaction): string {
  return createHash('sha256').update(new Uint8Array(tx.messageBytes)).digest('base64');
}

function transactionSignature(tx: Transaction): string | undefined {
  const first = Object.values(tx.signatures)[0];
  return first ? getBase58Decoder().decode(first) : undefined;
}

function blockhashOf(tx: Transaction): string {
  return getCompiledTransactionMessageDecoder().decode(tx.messageBytes).lifetimeToken;
}

function decodeTransaction(encoded: unknown, encoding: unknown): Transaction {
  if (typeof encoded !== 'string') throw invalidParams('invalid transaction: expected an encoded string');
  try {
    if (encoding !== undefined && encoding !== 'base64' && encoding !== 'base58') throw new Error(`unsupported encoding ${String(encoding)}`);
    const bytes = encoding === 'base64' ? getBase64Encoder().encode(encoded) : getBase58Encoder().encode(encoded);
    return getTransactionDecoder().decode(bytes);
  } catch (error) {
    throw invalidParams(`invalid transaction: ${error instanceof Error ? error.message : 'failed to decode'}`);
  }
}

function parseAddress(value: unknown): Address {
  try {
    return address(String(value));
  } catch {
    throw invalidParams('Invalid param: Invalid');
  }
}

function config(params: unknown[], index: number): Record<string, unknown> {
  const value = params[index];
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw invalidParams('Invalid params: config must be an object');
  return value as Record<string, unknown>;
}

function simulationResult(result: ExecutionResult, withInner: boolean): Record<string, unknown> {
  const meta = result.meta;
  const returnData = meta?.returnData();
  const returnBytes = returnData?.data();
  return {
    err: result.err,
    logs: meta?.logs() ?? [],
    accounts: null,
    unitsConsumed: meta?.computeUnitsConsumed() ?? 0n,
    returnData:
      returnData && returnBytes && returnBytes.length > 0
        ? { programId: getBase58Decoder().decode(returnData.programId()), data: [getBase64Decoder().decode(returnBytes), 'base64'] }
        : null,
    // Compiled (unparsed) form, which is how a node reports programs it has no parser for.
    innerInstructions: withInner
      ? (meta?.innerInstructions() ?? []).flatMap((list, index) =>
          list.length === 0
            ? []
            : [
                {
                  index,
                  instructions: list.map((inner) => {
                    const ix = inner.instruction();
                    return {
                      programIdIndex: ix.programIdIndex(),
                      accounts: Array.from(ix.accounts()),
                      data: getBase58Decoder().decode(ix.data()),
                      stackHeight: inner.stackHeight(),
                    };
                  }),
                },
              ],
        )
      : null,
  };
}

/** The JSON-RPC methods, each taking the positional params array. */
function methods(ledger: Ledger): Record<string, (params: unknown[]) => unknown> {
  const { svm } = ledger;
  const context = (): { slot: bigint; apiVersion: string } => ({ slot: ledger.tick(), apiVersion: '2.2.0' });

  const encodeAccount = (addr: Address, cfg: Record<string, unknown>): Record<string, unknown> | null => {
    const account = svm.getAccount(addr);
    if (!account.exists) return null;
    let data: Uint8Array = account.data;
    const slice = cfg.dataSlice as { offset?: unknown; length?: unknown } | undefined;
    if (slice) data = data.slice(Number(slice.offset ?? 0), Number(slice.offset ?? 0) + Number(slice.length ?? data.length));
    const encoding = cfg.encoding ?? 'binary';
    let encoded: unknown;
    if (encoding === 'base64') encoded = [getBase64Decoder().decode(data), 'base64'];
    else if (encoding === 'base58') encoded = [getBase58Decoder().decode(data), 'base58'];
    else if (encoding === 'binary') encoded = getBase58Decoder().decode(data);
    else throw invalidParams(`Invalid params: encoding ${String(encoding)} is not supported by the LiteSVM shim`);
    return {
      data: encoded,
      executable: account.executable,
      lamports: account.lamports,
      owner: account.programAddress,
      rentEpoch: RENT_EXEMPT_EPOCH,
      space: account.data.length,
    };
  };

  const tokenAmount = (addr: Address): Record<string, unknown> => {
    const account = svm.getAccount(addr);
    if (!account.exists) throw invalidParams('Invalid param: could not find account');
    // Token-2022 accounts with extensions are longer and carry their type (2 = Account) at byte 165.
    const isTokenAccount = account.data.length === TOKEN_ACCOUNT_LEN || (account.data.length > TOKEN_ACCOUNT_LEN && account.data[TOKEN_ACCOUNT_LEN] === 2);
    if (!TOKEN_PROGRAMS.has(account.programAddress) || !isTokenAccount) {
      throw invalidParams('Invalid param: not a Token account');
    }
    const view = new DataView(account.data.buffer, account.data.byteOffset, account.data.byteLength);
    const amount = view.getBigUint64(64, true);
    const mint = svm.getAccount(getBase58Decoder().decode(account.data.subarray(0, 32)) as Address);
    if (!mint.exists || mint.data.length < MINT_LEN) throw invalidParams('Invalid param: could not find mint');
    const decimals = mint.data[44] ?? 0;
    const scale = 10n ** BigInt(decimals);
    const fraction = (amount % scale).toString().padStart(decimals, '0').replace(/0+$/, '');
    const uiAmountString = `${amount / scale}${fraction ? `.${fraction}` : ''}`;
    return { amount: amount.toString(), decimals, uiAmount: Number(uiAmountString), uiAmountString };
  };

  return {
    getHealth: () => 'ok',
    getSlot: () => ledger.tick(),
    getBlockHeight: () => ledger.tick(),
    getLatestBlockhash: () => ({ context: context(), value: ledger.latestBlockhash() }),
    isBlockhashValid: (params) => ({ context: context(), value: ledger.isBlockhashValid(String(params[0])) }),
    getMinimumBalanceForRentExemption: (params) => {
      const length = params[0];
      if (typeof length !== 'number' || !Number.isSafeInteger(length) || length < 0) throw invalidParams('Invalid params: expected a data length');
      return svm.minimumBalanceForRentExemption(BigInt(length));
    },
    getBalance: (params) => ({ context: context(), value: svm.getBalance(parseAddress(params[0])) ?? 0n }),
    getAccountInfo: (params) => ({ context: context(), value: encodeAccount(parseAddress(params[0]), config(params, 1)) }),
    getMultipleAccounts: (params) => {
      if (!Array.isArray(params[0]) || params[0].length > 100) throw invalidParams('Invalid params: expected up to 100 addresses');
      const cfg = config(params, 1);
      return { context: context(), value: params[0].map((a) => encodeAccount(parseAddress(a), cfg)) };
    },
    getTokenAccountBalance: (params) => ({ context: context(), value: tokenAmount(parseAddress(params[0])) }),
    getRecentPrioritizationFees: (params) => {
      const accounts = params[0] ?? [];
      if (!Array.isArray(accounts)) throw invalidParams('Invalid params: expected an array of addresses');
      if (accounts.length > MAX_PRIORITIZATION_FEE_ADDRESSES) throw invalidParams(`Too many inputs provided; max ${MAX_PRIORITIZATION_FEE_ADDRESSES}`);
      return ledger.prioritizationFees(accounts.map((a) => parseAddress(a)));
    },

    simulateTransaction: (params) => {
      const cfg = config(params, 1);
      const tx = decodeTransaction(params[0], cfg.encoding);
      const sigVerify = cfg.sigVerify === true;
      const replace = cfg.replaceRecentBlockhash === true;
      if (sigVerify && replace) throw invalidParams('sigVerify may not be used with replaceRecentBlockhash');
      if (cfg.accounts) throw invalidParams('Invalid params: `accounts` is not supported by the LiteSVM shim');
      // A failed sigverify is reported as the simulation's `err` (SignatureFailure), as agave does.
      const result = ledger.execute(tx, { simulate: true, sigVerify, checkBlockhash: !replace });
      const value = simulationResult(result, cfg.innerInstructions === true);
      if (replace) value.replacementBlockhash = ledger.latestBlockhash();
      return { context: context(), value };
    },

    sendTransaction: (params) => {
      const cfg = config(params, 1);
      const tx = decodeTransaction(params[0], cfg.encoding);
      const signature = transactionSignature(tx);
      if (!signature) throw new RpcError(-32003, 'Transaction signature verification failure');
      if (cfg.skipPreflight !== true) {
        // Preflight: sigverify + simulation at the current bank; a failure never reaches the chain.
        const preflight = ledger.execute(tx, { simulate: true, sigVerify: true, checkBlockhash: true });
        if (preflight.err === 'SignatureFailure') throw new RpcError(-32003, 'Transaction signature verification failure');
        if (preflight.err !== null) {
          throw new RpcError(-32002, `Transaction simulation failed: ${describe(preflight.err)}`, simulationResult(preflight, false));
        }
      }
      const result = ledger.execute(tx, { simulate: false, sigVerify: true, checkBlockhash: true });
      // A failure during execution lands (fee paid, status recorded): the sender learns of it
      // from getSignatureStatuses, as on a real cluster. A transaction a real cluster would drop
      // silently (duplicate, expired blockhash, bad signature, unfunded fee payer) is reported
      // here at once, in the same form as a preflight failure, instead of a confirmation timeout.
      if (result.err !== null && !lands(result.err)) {
        if (result.err === 'SignatureFailure') throw new RpcError(-32003, 'Transaction signature verification failure');
        throw new RpcError(-32002, `Transaction simulation failed: ${describe(result.err)}`, simulationResult(result, false));
      }
      return signature;
    },

    // base64 only: the caller decodes the instructions itself (no jsonParsed in the shim).
    getTransaction: (params) => {
      const cfg = config(params, 1);
      if (cfg.encoding !== 'base64') throw invalidParams('Invalid params: only the base64 encoding is supported by the LiteSVM shim');
      const status = ledger.status(String(params[0]));
      if (!status?.landed) return null;
      const { landed } = status;
      return {
        slot: status.slot,
        blockTime: landed.blockTime,
        version: getCompiledTransactionMessageDecoder().decode(getTransactionDecoder().decode(landed.wire).messageBytes).version,
        transaction: [getBase64Decoder().decode(landed.wire), 'base64'],
        meta: {
          err: status.err,
          status: status.err === null ? { Ok: null } : { Err: status.err },
          fee: landed.fee,
          preBalances: [],
          postBalances: [],
          preTokenBalances: landed.preTokenBalances,
          postTokenBalances: landed.postTokenBalances,
          innerInstructions: [],
          logMessages: [],
          loadedAddresses: { writable: [], readonly: [] },
        },
      };
    },

    getSignatureStatuses: (params) => {
      if (!Array.isArray(params[0]) || params[0].length > 256) throw invalidParams('Invalid params: expected up to 256 signatures');
      const slot = ledger.tick();
      const value = params[0].map((sig) => {
        const status = ledger.status(String(sig));
        if (!status) return null;
        const age = slot - status.slot;
        const finalized = age >= FINALITY_SLOTS;
        return {
          slot: status.slot,
          confirmations: finalized ? null : age,
          err: status.err,
          status: status.err === null ? { Ok: null } : { Err: status.err },
          confirmationStatus: finalized ? 'finalized' : 'confirmed',
        };
      });
      return { context: context(), value };
    },
  };
}

/** JSON with bigints written as plain integers (JSON.rawJSON is not on Node 20). */
function stringify(value: unknown): string {
  const marked = JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? `\u0000big:${v}` : v));
  return marked.replace(/"\\u0000big:(-?\d+)"/g, '$1');
}

export interface SolanaRpcServer {
  /** http://127.0.0.1:<port> */
  url: string;
  close(): Promise<void>;
}

export interface SolanaRpcServerOptions {
  log?: Logger;
  /** Clock for slots and blockhash expiry; tests inject one to jump ahead. Default Date.now. */
  now?: () => number;
}

/** Serves `svm` over Solana JSON-RPC on 127.0.0.1 (ephemeral port). */
export async function startSolanaRpcServer(svm: LiteSVM, options: SolanaRpcServerOptions = {}): Promise<SolanaRpcServer> {
  const ledger = new Ledger(svm, options.now ?? Date.now);
  const table = methods(ledger);

  const call = (request: unknown): Record<string, unknown> => {
    const req = (typeof request === 'object' && request !== null ? request : {}) as Record<string, unknown>;
    const id = req.id ?? null;
    try {
      if (req.jsonrpc !== '2.0' || typeof req.method !== 'string') throw new RpcError(-32600, 'Invalid request');
      const method = Object.hasOwn(table, req.method) ? table[req.method] : undefined;
      if (!method) throw new RpcError(-32601, 'Method not found');
      const params = req.params === undefined ? [] : req.params;
      if (!Array.isArray(params)) throw invalidParams('Invalid params: expected an array');
      options.log?.debug({ method: req.method }, 'solana rpc');
      return { jsonrpc: '2.0', result: method(params), id };
    } catch (error) {
      const rpcError = error instanceof RpcError ? error : new RpcError(-32603, 'Internal error');
      if (!(error instanceof RpcError)) options.log?.warn({ err: error instanceof Error ? error.message : 'unknown' }, 'solana rpc internal error');
      const body: Record<string, unknown> = { code: rpcError.code, message: rpcError.message };
      if (rpcError.data !== undefined) body.data = rpcError.data;
      return { jsonrpc: '2.0', error: body, id };
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        res.writeHead(413).end();
        return;
      }
      chunks.push(chunk);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      parsed = undefined;
    }
    const body =
      parsed === undefined
        ? { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null }
        : Array.isArray(parsed)
          ? parsed.map(call)
          : call(parsed);
    res.writeHead(200, { 'content-type': 'application/json' }).end(stringify(body));
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

