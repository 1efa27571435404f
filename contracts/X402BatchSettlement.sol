// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// The call x402BatchSettlement makes on a deposit collector (see contracts/X402BatchDepositCollectors.sol).
interface IX402BatchDepositCollector {
    function collect(address payer, address token, uint256 amount, bytes32 channelId, bytes calldata collectorData)
        external;
}

/// @title X402BatchSettlement
/// @notice Our own minimal implementation of the x402 `batch-settlement` EVM channel contract, for the local
/// development chain only, with the ABI, EIP-712 hashing, events and errors the official x402 EVM SDK
/// batch-settlement client, server and facilitator use (specs/schemes/batch-settlement/scheme_batch_settlement_evm.md).
///
/// A channel is identified by the EIP-712 hash of its immutable `ChannelConfig` under the
/// "x402 Batch Settlement" v1 domain. It tracks `balance` (deposited minus refunded and withdrawn; claimed funds
/// stay counted in it) and `totalClaimed` (cumulative, monotonic, never above `balance`). The payer signs
/// cumulative vouchers (`maxClaimableAmount`); the receiver side claims up to a voucher's ceiling (accounting
/// only), and `settle` sweeps claimed-but-unsettled funds of a (receiver, token) pair to the receiver. The
/// receiver side may refund unclaimed escrow (directly or with a `receiverAuthorizer` signature and nonce); the
/// payer may withdraw unclaimed escrow after `withdrawDelay` seconds (claims still land during that window).
///
/// It is written with `anvil_setCode` to the SDK's canonical address, so no constructor runs: there are no
/// immutables, the collectors are compile-time constants, the EIP-712 domain separator is computed on every
/// call from block.chainid and address(this), and the reentrancy lock lives in transient storage (EIP-1153).
/// Deposits are accepted only through the two canonical collectors (the only ones the SDK uses).
/// Not audited; never deploy to a real network.
contract X402BatchSettlement {
    struct ChannelConfig {
        address payer;
        address payerAuthorizer;
        address receiver;
        address receiverAuthorizer;
        address token;
        uint40 withdrawDelay;
        bytes32 salt;
    }

    struct ChannelState {
        uint128 balance;
        uint128 totalClaimed;
    }

    struct WithdrawalState {
        uint128 amount;
        uint40 initiatedAt;
    }

    struct ReceiverState {
        uint128 totalClaimed;
        uint128 totalSettled;
    }

    struct Voucher {
        ChannelConfig channel;
        uint128 maxClaimableAmount;
    }

    /// One payer-signed voucher and the cumulative amount the receiver side claims with it.
    struct VoucherClaim {
        Voucher voucher;
        bytes signature;
        uint128 totalClaimed;
    }

    /// The canonical deposit collectors (SDK ERC3009_DEPOSIT_COLLECTOR_ADDRESS, PERMIT2_DEPOSIT_COLLECTOR_ADDRESS).
    address public constant ERC3009_DEPOSIT_COLLECTOR = 0x4020806089470a89826cB9fB1f4059150b550004;
    address public constant PERMIT2_DEPOSIT_COLLECTOR = 0x4020425FAf3B746C082C2f942b4E5159887B0005;

    uint40 public constant MIN_WITHDRAW_DELAY = 15 minutes;
    uint40 public constant MAX_WITHDRAW_DELAY = 30 days;

    bytes32 public constant CHANNEL_CONFIG_TYPEHASH = keccak256(
        "ChannelConfig(address payer,address payerAuthorizer,address receiver,address receiverAuthorizer,address token,uint40 withdrawDelay,bytes32 salt)"
    );
    bytes32 public constant VOUCHER_TYPEHASH = keccak256("Voucher(bytes32 channelId,uint128 maxClaimableAmount)");
    bytes32 public constant REFUND_TYPEHASH = keccak256("Refund(bytes32 channelId,uint256 nonce,uint128 amount)");
    bytes32 public constant CLAIM_ENTRY_TYPEHASH =
        keccak256("ClaimEntry(bytes32 channelId,uint128 maxClaimableAmount,uint128 totalClaimed)");
    bytes32 public constant CLAIM_BATCH_TYPEHASH = keccak256(
        "ClaimBatch(ClaimEntry[] claims)ClaimEntry(bytes32 channelId,uint128 maxClaimableAmount,uint128 totalClaimed)"
    );

    bytes32 private constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 private constant NAME_HASH = keccak256("x402 Batch Settlement");
    bytes32 private constant VERSION_HASH = keccak256("1");

    // secp256k1n / 2: signatures with a larger s are malleable copies and are rejected (EIP-2).
    uint256 private constant MAX_S = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;
    bytes4 private constant ERC1271_MAGIC_VALUE = 0x1626ba7e;
    /// Transient-storage slot of the reentrancy lock: keccak256("percall.X402BatchSettlement.lock").
    uint256 private constant LOCK_SLOT = 0x936a0d85b521db3eff672fb7c2465b9189019e984090097fb5683ff461cac72d;

    mapping(bytes32 channelId => ChannelState) public channels;
    /// Next nonce a `refundWithSignature` must carry; every executed refund advances it, even one that moves nothing.
    mapping(bytes32 channelId => uint256) public refundNonce;
    mapping(bytes32 channelId => WithdrawalState) public pendingWithdrawals;
    mapping(address receiver => mapping(address token => ReceiverState)) public receivers;

    event ChannelCreated(bytes32 indexed channelId, ChannelConfig config);
    event ChannelClosed(bytes32 indexed channelId, ChannelConfig config);
    event Deposited(bytes32 indexed channelId, address indexed sender, uint128 amount, uint128 newBalance);
    event Claimed(bytes32 indexed channelId, address indexed sender, uint128 claimAmount, uint128 newTotalClaimed);
    event Settled(address indexed receiver, address indexed token, address indexed sender, uint128 amount);
    event Refunded(bytes32 indexed channelId, address indexed sender, uint128 amount);
    event WithdrawInitiated(bytes32 indexed channelId, uint128 amount, uint40 finalizeAfter);
    event WithdrawFinalized(bytes32 indexed channelId, address indexed sender, uint128 amount);

    error InvalidChannel();
    error ZeroDeposit();
    error DepositOverflow();
    error InvalidSignature();
    error NotReceiverAuthorizer();
    error NotAuthorizedToClaim();
    error NotAuthorizedToRefund();
    error ClaimExceedsCeiling();
    error ClaimExceedsBalance();
    error WithdrawalAlreadyPending();
    error WithdrawalNotPending();
    error NotAuthorizedToFinalizeWithdraw();
    error WithdrawDelayNotElapsed();
    error NothingToWithdraw();
    error WithdrawAmountExceedsAvailable();
    error WithdrawDelayOutOfRange();
    error EmptyBatch();
    error DepositCollectionFailed();
    error InvalidCollector();
    error InvalidRefundNonce();
    error ZeroRefund();
    error TransferFailed();
    error ReentrancyGuardReentrantCall();

    modifier nonReentrant() {
        uint256 slot = LOCK_SLOT;
        bool locked;
        assembly {
            locked := tload(slot)
        }
        if (locked) revert ReentrancyGuardReentrantCall();
        assembly {
            tstore(slot, 1)
        }
        _;
        assembly {
            tstore(slot, 0)
        }
    }

    // ------------------------------------------------------------------ batching

    /// @notice Runs several calls of this contract in one transaction (the facilitator's claim + refund).
    /// Each call keeps msg.sender; the first failing call reverts the whole batch with its revert data.
    function multicall(bytes[] calldata data) external returns (bytes[] memory results) {
        results = new bytes[](data.length);
        for (uint256 i = 0; i < data.length; ++i) {
            (bool ok, bytes memory ret) = address(this).delegatecall(data[i]);
            if (!ok) {
                assembly {
                    revert(add(ret, 32), mload(ret))
                }
            }
            results[i] = ret;
        }
    }

    // ------------------------------------------------------------------ deposits

    /// @notice Adds exactly `amount` of `config.token` to the channel, pulled from `config.payer` by one of the
    /// canonical collectors with the payer's authorization in `collectorData` (which binds the channel id).
    function deposit(ChannelConfig calldata config, uint128 amount, address collector, bytes calldata collectorData)
        external
        nonReentrant
    {
        _checkConfig(config);
        if (amount == 0) revert ZeroDeposit();
        if (collector != ERC3009_DEPOSIT_COLLECTOR && collector != PERMIT2_DEPOSIT_COLLECTOR) revert InvalidCollector();

        bytes32 channelId = getChannelId(config);
        ChannelState storage ch = channels[channelId];
        uint128 previous = ch.balance;
        if (amount > type(uint128).max - previous) revert DepositOverflow();
        ch.balance = previous + amount;

        uint256 held = _balanceOf(config.token);
        IX402BatchDepositCollector(collector).collect(config.payer, config.token, amount, channelId, collectorData);
        if (_balanceOf(config.token) != held + amount) revert DepositCollectionFailed();

        if (previous == 0 && ch.totalClaimed == 0) emit ChannelCreated(channelId, config);
        emit Deposited(channelId, msg.sender, amount, ch.balance);
    }

    // ------------------------------------------------------------------ claim and settle

    /// @notice Applies voucher claims; msg.sender must be the `receiver` or `receiverAuthorizer` of every row.
    function claim(VoucherClaim[] calldata voucherClaims) external nonReentrant {
        if (voucherClaims.length == 0) revert EmptyBatch();
        for (uint256 i = 0; i < voucherClaims.length; ++i) {
            if (!_isReceiverSide(msg.sender, voucherClaims[i].voucher.channel)) revert NotAuthorizedToClaim();
            _processVoucherClaim(voucherClaims[i]);
        }
    }

    /// @notice Applies voucher claims authorized by the rows' common `receiverAuthorizer`, which signed the EIP-712
    /// `ClaimBatch` over them (`getClaimBatchDigest`). Anyone may submit it.
    function claimWithSignature(VoucherClaim[] calldata voucherClaims, bytes calldata authorizerSignature)
        external
        nonReentrant
    {
        if (voucherClaims.length == 0) revert EmptyBatch();
        address authorizer = voucherClaims[0].voucher.channel.receiverAuthorizer;
        if (!_isValidSignatureNow(authorizer, getClaimBatchDigest(voucherClaims), authorizerSignature)) {
            revert InvalidSignature();
        }
        for (uint256 i = 0; i < voucherClaims.length; ++i) {
            if (voucherClaims[i].voucher.channel.receiverAuthorizer != authorizer) revert NotReceiverAuthorizer();
            _processVoucherClaim(voucherClaims[i]);
        }
    }

    /// @notice Transfers everything claimed but not yet settled for (`receiver`, `token`) to `receiver`. Anyone may call it.
    function settle(address receiver, address token) external nonReentrant {
        ReceiverState storage rs = receivers[receiver][token];
        uint128 amount = rs.totalClaimed - rs.totalSettled;
        if (amount == 0) return;
        rs.totalSettled = rs.totalClaimed;
        _transfer(token, receiver, amount);
        emit Settled(receiver, token, msg.sender, amount);
    }

    // ------------------------------------------------------------------ timed withdrawal

    /// @notice The payer (or its authorizer) starts withdrawing up to `amount` of unclaimed escrow; it can be
    /// finalized `withdrawDelay` seconds later, and claims still land in between.
    function initiateWithdraw(ChannelConfig calldata config, uint128 amount) external nonReentrant {
        if (msg.sender != config.payer && msg.sender != config.payerAuthorizer) revert InvalidChannel();
        if (amount == 0) revert NothingToWithdraw();
        bytes32 channelId = getChannelId(config);
        WithdrawalState storage ws = pendingWithdrawals[channelId];
        if (ws.initiatedAt != 0) revert WithdrawalAlreadyPending();
        ChannelState storage ch = channels[channelId];
        if (amount > ch.balance - ch.totalClaimed) revert WithdrawAmountExceedsAvailable();
        ws.amount = amount;
        ws.initiatedAt = uint40(block.timestamp);
        emit WithdrawInitiated(channelId, amount, uint40(block.timestamp) + config.withdrawDelay);
    }

    /// @notice After the delay, sends the pending withdrawal to the payer, capped to what is still unclaimed.
    function finalizeWithdraw(ChannelConfig calldata config) external nonReentrant {
        if (msg.sender != config.payer && msg.sender != config.payerAuthorizer) revert NotAuthorizedToFinalizeWithdraw();
        bytes32 channelId = getChannelId(config);
        WithdrawalState storage ws = pendingWithdrawals[channelId];
        if (ws.initiatedAt == 0) revert WithdrawalNotPending();
        if (block.timestamp < uint256(ws.initiatedAt) + uint256(config.withdrawDelay)) revert WithdrawDelayNotElapsed();

        ChannelState storage ch = channels[channelId];
        uint128 available = ch.balance - ch.totalClaimed;
        uint128 amount = ws.amount > available ? available : ws.amount;
        ws.amount = 0;
        ws.initiatedAt = 0;
        ch.balance -= amount;

        emit WithdrawFinalized(channelId, msg.sender, amount);
        if (ch.balance == 0 && ch.totalClaimed == 0) emit ChannelClosed(channelId, config);
        if (amount > 0) _transfer(config.token, config.payer, amount);
    }

    // ------------------------------------------------------------------ cooperative refund

    /// @notice The receiver or its authorizer returns up to `amount` of unclaimed escrow to the payer.
    function refund(ChannelConfig calldata config, uint128 amount) external nonReentrant {
        if (!_isReceiverSide(msg.sender, config)) revert NotAuthorizedToRefund();
        _executeRefund(config, amount);
    }

    /// @notice As `refund`, submitted by anyone with the `receiverAuthorizer`'s EIP-712 `Refund` signature over
    /// (channelId, nonce, amount); `nonce` must be the channel's current `refundNonce`.
    function refundWithSignature(
        ChannelConfig calldata config,
        uint128 amount,
        uint256 nonce,
        bytes calldata receiverAuthorizerSignature
    ) external nonReentrant {
        bytes32 channelId = getChannelId(config);
        if (nonce != refundNonce[channelId]) revert InvalidRefundNonce();
        if (!_isValidSignatureNow(config.receiverAuthorizer, getRefundDigest(channelId, nonce, amount), receiverAuthorizerSignature)) {
            revert InvalidSignature();
        }
        _executeRefund(config, amount);
    }

    // ------------------------------------------------------------------ views

    function DOMAIN_SEPARATOR() public view returns (bytes32) {
        return keccak256(abi.encode(DOMAIN_TYPEHASH, NAME_HASH, VERSION_HASH, block.chainid, address(this)));
    }

    /// @notice The channel id: the EIP-712 typed-data hash of `config` under this contract's domain.
    function getChannelId(ChannelConfig calldata config) public view returns (bytes32) {
        return _hashTypedData(keccak256(abi.encode(CHANNEL_CONFIG_TYPEHASH, config)));
    }

    function getVoucherDigest(bytes32 channelId, uint128 maxClaimableAmount) public view returns (bytes32) {
        return _hashTypedData(keccak256(abi.encode(VOUCHER_TYPEHASH, channelId, maxClaimableAmount)));
    }

    function getRefundDigest(bytes32 channelId, uint256 nonce, uint128 amount) public view returns (bytes32) {
        return _hashTypedData(keccak256(abi.encode(REFUND_TYPEHASH, channelId, nonce, amount)));
    }

    /// @notice The EIP-712 `ClaimBatch` digest over the rows' (channelId, maxClaimableAmount, totalClaimed).
    function getClaimBatchDigest(VoucherClaim[] calldata voucherClaims) public view returns (bytes32) {
        bytes32[] memory entries = new bytes32[](voucherClaims.length);
        for (uint256 i = 0; i < voucherClaims.length; ++i) {
            entries[i] = keccak256(
                abi.encode(
                    CLAIM_ENTRY_TYPEHASH,
                    getChannelId(voucherClaims[i].voucher.channel),
                    voucherClaims[i].voucher.maxClaimableAmount,
                    voucherClaims[i].totalClaimed
                )
            );
        }
        return _hashTypedData(keccak256(abi.encode(CLAIM_BATCH_TYPEHASH, keccak256(abi.encodePacked(entries)))));
    }

    // ------------------------------------------------------------------ internals

    function _checkConfig(ChannelConfig calldata config) private pure {
        if (
            config.payer == address(0) || config.receiver == address(0) || config.receiverAuthorizer == address(0)
                || config.token == address(0)
        ) revert InvalidChannel();
        if (config.withdrawDelay < MIN_WITHDRAW_DELAY || config.withdrawDelay > MAX_WITHDRAW_DELAY) {
            revert WithdrawDelayOutOfRange();
        }
    }

    function _isReceiverSide(address sender, ChannelConfig calldata config) private pure returns (bool) {
        return sender == config.receiver || sender == config.receiverAuthorizer;
    }

    /// Raises the channel's `totalClaimed` to the row's cumulative amount; a row at or below it is a no-op, so an
    /// old voucher or a replayed claim never changes anything. The row must stay within the voucher's signed
    /// ceiling and the channel's balance, and the voucher must carry the payer side's signature.
    function _processVoucherClaim(VoucherClaim calldata vc) private {
        ChannelConfig calldata config = vc.voucher.channel;
        bytes32 channelId = getChannelId(config);
        ChannelState storage ch = channels[channelId];
        uint128 claimed = ch.totalClaimed;
        if (vc.totalClaimed <= claimed) return;
        if (vc.totalClaimed > vc.voucher.maxClaimableAmount) revert ClaimExceedsCeiling();
        if (vc.totalClaimed > ch.balance) revert ClaimExceedsBalance();

        bytes32 digest = getVoucherDigest(channelId, vc.voucher.maxClaimableAmount);
        if (config.payerAuthorizer != address(0)) {
            // A committed EOA key: plain ECDSA only.
            address signer = _recover(digest, vc.signature);
            if (signer == address(0) || signer != config.payerAuthorizer) revert InvalidSignature();
        } else if (!_isValidSignatureNow(config.payer, digest, vc.signature)) {
            revert InvalidSignature();
        }

        uint128 delta = vc.totalClaimed - claimed;
        ch.totalClaimed = vc.totalClaimed;
        receivers[config.receiver][config.token].totalClaimed += delta;
        emit Claimed(channelId, msg.sender, delta, vc.totalClaimed);
    }

    /// Advances the refund nonce first (also when nothing is left to refund), then returns up to `amount` of
    /// unclaimed escrow to the payer and shrinks (or cancels) a pending withdrawal by what was refunded.
    function _executeRefund(ChannelConfig calldata config, uint128 amount) private {
        if (amount == 0) revert ZeroRefund();
        bytes32 channelId = getChannelId(config);
        unchecked {
            refundNonce[channelId]++;
        }
        ChannelState storage ch = channels[channelId];
        uint128 available = ch.balance - ch.totalClaimed;
        uint128 refunded = amount > available ? available : amount;
        if (refunded == 0) return;
        ch.balance -= refunded;

        WithdrawalState storage ws = pendingWithdrawals[channelId];
        if (ws.initiatedAt != 0) {
            if (refunded >= ws.amount) {
                ws.amount = 0;
                ws.initiatedAt = 0;
            } else {
                ws.amount -= refunded;
            }
        }

        emit Refunded(channelId, msg.sender, refunded);
        if (ch.balance == 0 && ch.totalClaimed == 0) emit ChannelClosed(channelId, config);
        _transfer(config.token, config.payer, refunded);
    }

    function _hashTypedData(bytes32 structHash) private view returns (bytes32) {
        return keccak256(abi.encodePacked("\x19\x01", DOMAIN_SEPARATOR(), structHash));
    }

    /// ECDSA over `digest`: 65-byte (r, s, v) or 64-byte EIP-2098 (r, vs). Returns address(0) for anything
    /// malformed or malleable (high s, v not 27/28), never reverts.
    function _recover(bytes32 digest, bytes calldata signature) private pure returns (address) {
        bytes32 r;
        bytes32 s;
        uint8 v;
        if (signature.length == 65) {
            r = bytes32(signature[0:32]);
            s = bytes32(signature[32:64]);
            v = uint8(signature[64]);
        } else if (signature.length == 64) {
            r = bytes32(signature[0:32]);
            bytes32 vs = bytes32(signature[32:64]);
            s = vs & bytes32(0x7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff);
            v = uint8(uint256(vs >> 255)) + 27;
        } else {
            return address(0);
        }
        if (uint256(s) > MAX_S || (v != 27 && v != 28)) return address(0);
        return ecrecover(digest, v, r, s);
    }

    /// An ECDSA signature by `signer`, or, when `signer` is a contract, its ERC-1271 approval.
    function _isValidSignatureNow(address signer, bytes32 digest, bytes calldata signature) private view returns (bool) {
        if (signer == address(0)) return false;
        address recovered = _recover(digest, signature);
        if (recovered == signer) return true;
        if (signer.code.length == 0) return false;
        (bool ok, bytes memory ret) = signer.staticcall(abi.encodeWithSelector(ERC1271_MAGIC_VALUE, digest, signature));
        return ok && ret.length >= 32 && abi.decode(ret, (bytes32)) == bytes32(ERC1271_MAGIC_VALUE);
    }

    function _balanceOf(address token) private view returns (uint256) {
        (bool ok, bytes memory ret) = token.staticcall(abi.encodeWithSelector(0x70a08231, address(this)));
        if (!ok || ret.length < 32) revert DepositCollectionFailed();
        return abi.decode(ret, (uint256));
    }

    /// ERC-20 transfer that accepts tokens returning nothing and bubbles up the token's revert reason.
    function _transfer(address token, address to, uint256 amount) private {
        if (token.code.length == 0) revert TransferFailed();
        (bool ok, bytes memory ret) = token.call(abi.encodeWithSelector(0xa9059cbb, to, amount));
        if (!ok) {
            if (ret.length > 0) {
                assembly {
                    revert(add(ret, 32), mload(ret))
                }
            }
            revert TransferFailed();
        }
        if (ret.length > 0 && (ret.length < 32 || !abi.decode(ret, (bool)))) revert TransferFailed();
    }
}
