// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// ERC-3009 `receiveWithAuthorization` with a bytes signature (USDC v2.2, contracts/TestUSDC.sol).
interface IERC3009Receive {
    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes calldata signature
    ) external;
}

/// The Permit2 SignatureTransfer call the Permit2 collector makes (see contracts/Permit2.sol).
interface IBatchPermit2 {
    struct TokenPermissions {
        address token;
        uint256 amount;
    }

    struct PermitTransferFrom {
        TokenPermissions permitted;
        uint256 nonce;
        uint256 deadline;
    }

    struct SignatureTransferDetails {
        address to;
        uint256 requestedAmount;
    }

    function permitWitnessTransferFrom(
        PermitTransferFrom calldata permit,
        SignatureTransferDetails calldata transferDetails,
        address owner,
        bytes32 witness,
        string calldata witnessTypeString,
        bytes calldata signature
    ) external;
}

interface IBatchERC20Permit {
    function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)
        external;
}

/// @title X402ERC3009DepositCollector
/// @notice Our own minimal x402 batch-settlement ERC-3009 deposit collector for the local development chain only,
/// written with `anvil_setCode` to the SDK's canonical ERC3009_DEPOSIT_COLLECTOR_ADDRESS (no constructor: the
/// settlement contract's address is a constant). Only x402BatchSettlement may call `collect`: it pulls `amount`
/// from the payer with the payer's `ReceiveWithAuthorization` (to = this collector, nonce =
/// keccak256(abi.encode(channelId, salt)), so the signature is bound to one channel) and forwards it to the
/// settlement contract. `collectorData` is abi.encode(validAfter, validBefore, salt, signature).
/// Not audited; never deploy to a real network.
contract X402ERC3009DepositCollector {
    address public constant x402BatchSettlement = 0x4020074e9dF2ce1deE5A9C1b5c3f541D02a10003;

    error OnlyX402BatchSettlement();
    error TransferFailed();

    function collect(address payer, address token, uint256 amount, bytes32 channelId, bytes calldata collectorData)
        external
    {
        if (msg.sender != x402BatchSettlement) revert OnlyX402BatchSettlement();
        (uint256 validAfter, uint256 validBefore, uint256 salt, bytes memory signature) =
            abi.decode(collectorData, (uint256, uint256, uint256, bytes));
        bytes32 nonce = keccak256(abi.encode(channelId, salt));
        IERC3009Receive(token).receiveWithAuthorization(
            payer, address(this), amount, validAfter, validBefore, nonce, signature
        );
        (bool ok, bytes memory ret) = token.call(abi.encodeWithSelector(0xa9059cbb, x402BatchSettlement, amount));
        if (!ok || (ret.length > 0 && (ret.length < 32 || !abi.decode(ret, (bool))))) revert TransferFailed();
    }
}

/// @title X402Permit2DepositCollector
/// @notice Our own minimal x402 batch-settlement Permit2 deposit collector for the local development chain only,
/// written with `anvil_setCode` to the SDK's canonical PERMIT2_DEPOSIT_COLLECTOR_ADDRESS (no constructor:
/// Permit2 and the settlement contract are constants). Only x402BatchSettlement may call `collect`: Permit2 moves
/// `amount` straight from the payer to the settlement contract against the payer's PermitWitnessTransferFrom
/// signature with this collector as spender and the witness DepositWitness(channelId). An optional EIP-2612
/// permit (payer -> Permit2) is tried first; if it fails the existing Permit2 allowance must suffice.
/// `collectorData` is abi.encode(nonce, deadline, permit2Signature, eip2612PermitData), the last being empty or
/// abi.encode(value, deadline, v, r, s).
/// Not audited; never deploy to a real network.
contract X402Permit2DepositCollector {
    address public constant x402BatchSettlement = 0x4020074e9dF2ce1deE5A9C1b5c3f541D02a10003;
    IBatchPermit2 public constant PERMIT2 = IBatchPermit2(0x000000000022D473030F116dDEE9F6B43aC78BA3);

    /// Appended by Permit2 to "PermitWitnessTransferFrom(TokenPermissions permitted,address spender,uint256 nonce,uint256 deadline,".
    /// Referenced struct types follow in alphabetical order, as EIP-712 requires.
    string public constant DEPOSIT_WITNESS_TYPE_STRING =
        "DepositWitness witness)DepositWitness(bytes32 channelId)TokenPermissions(address token,uint256 amount)";
    bytes32 public constant DEPOSIT_WITNESS_TYPEHASH = keccak256("DepositWitness(bytes32 channelId)");

    event EIP2612PermitFailedWithData(address indexed token, address indexed owner, bytes data);

    error OnlyX402BatchSettlement();
    error Permit2612AmountMismatch();

    function collect(address payer, address token, uint256 amount, bytes32 channelId, bytes calldata collectorData)
        external
    {
        if (msg.sender != x402BatchSettlement) revert OnlyX402BatchSettlement();
        (uint256 nonce, uint256 deadline, bytes memory signature, bytes memory eip2612PermitData) =
            abi.decode(collectorData, (uint256, uint256, bytes, bytes));
        if (eip2612PermitData.length > 0) _tryPermit(payer, token, amount, eip2612PermitData);

        PERMIT2.permitWitnessTransferFrom(
            IBatchPermit2.PermitTransferFrom({
                permitted: IBatchPermit2.TokenPermissions({token: token, amount: amount}),
                nonce: nonce,
                deadline: deadline
            }),
            IBatchPermit2.SignatureTransferDetails({to: x402BatchSettlement, requestedAmount: amount}),
            payer,
            keccak256(abi.encode(DEPOSIT_WITNESS_TYPEHASH, channelId)),
            DEPOSIT_WITNESS_TYPE_STRING,
            signature
        );
    }

    function _tryPermit(address payer, address token, uint256 amount, bytes memory data) private {
        (uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s) =
            abi.decode(data, (uint256, uint256, uint8, bytes32, bytes32));
        if (value != amount) revert Permit2612AmountMismatch();
        try IBatchERC20Permit(token).permit(payer, address(PERMIT2), value, deadline, v, r, s) {}
        catch (bytes memory reason) {
            emit EIP2612PermitFailedWithData(token, payer, reason);
        }
    }
}
