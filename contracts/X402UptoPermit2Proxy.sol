// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// The Permit2 call this proxy makes (see contracts/Permit2.sol); the structs have Permit2's ABI layout.
interface IPermit2SignatureTransfer {
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

interface IERC20PermitMinimal {
    function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)
        external;
}

/// @title X402UptoPermit2Proxy
/// @notice Our own minimal implementation of the x402 `upto` Permit2 proxy for the local development
/// chain only, with the ABI the official x402 EVM upto facilitator calls (`settle`, `settleWithPermit`,
/// `PERMIT2`, `WITNESS_TYPEHASH`, `WITNESS_TYPE_STRING`). The payer signs a Permit2
/// PermitWitnessTransferFrom with this proxy as spender and the witness (to, facilitator, validAfter);
/// the facilitator named in the witness may then charge any amount up to the permitted one, once,
/// to the witness's `to`.
/// It is written with `anvil_setCode` to the SDK's canonical proxy address, so no constructor runs:
/// the Permit2 address is a compile-time constant and the reentrancy lock's zero value means unlocked.
/// Not audited; never deploy to a real network.
contract X402UptoPermit2Proxy {
    struct Witness {
        address to;
        address facilitator;
        uint256 validAfter;
    }

    struct EIP2612Permit {
        uint256 value;
        uint256 deadline;
        bytes32 r;
        bytes32 s;
        uint8 v;
    }

    /// Canonical Permit2 address, the EIP-712 verifyingContract the x402 client signs for.
    IPermit2SignatureTransfer public constant PERMIT2 =
        IPermit2SignatureTransfer(0x000000000022D473030F116dDEE9F6B43aC78BA3);

    /// Appended by Permit2 to "PermitWitnessTransferFrom(TokenPermissions permitted,address spender,uint256 nonce,uint256 deadline,".
    /// Referenced struct types follow in alphabetical order, as EIP-712 requires.
    string public constant WITNESS_TYPE_STRING =
        "Witness witness)TokenPermissions(address token,uint256 amount)Witness(address to,address facilitator,uint256 validAfter)";
    bytes32 public constant WITNESS_TYPEHASH =
        keccak256("Witness(address to,address facilitator,uint256 validAfter)");

    uint256 private _locked;

    event Settled();
    event SettledWithPermit();
    /// The EIP-2612 permit reverted (already used, or the token has none); settlement still proceeds
    /// and succeeds if the Permit2 allowance is already in place.
    event EIP2612PermitFailedWithData(address indexed token, address indexed owner, bytes data);

    error AmountExceedsPermitted();
    error InvalidAmount();
    error InvalidDestination();
    error InvalidOwner();
    error PaymentTooEarly();
    error Permit2612AmountMismatch();
    error ReentrancyGuardReentrantCall();
    error UnauthorizedFacilitator();

    modifier nonReentrant() {
        if (_locked != 0) revert ReentrancyGuardReentrantCall();
        _locked = 1;
        _;
        _locked = 0;
    }

    /// @notice Charges `amount` (0 < amount <= permit.permitted.amount) from `owner` to `witness.to`.
    /// Only `witness.facilitator` may call it; the Permit2 nonce makes each signature single-use.
    function settle(
        IPermit2SignatureTransfer.PermitTransferFrom calldata permit,
        uint256 amount,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) external nonReentrant {
        _settle(permit, amount, owner, witness, signature);
        emit Settled();
    }

    /// @notice As `settle`, after trying the payer's EIP-2612 permit that approves Permit2 on the token.
    function settleWithPermit(
        EIP2612Permit calldata permit2612,
        IPermit2SignatureTransfer.PermitTransferFrom calldata permit,
        uint256 amount,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) external nonReentrant {
        if (permit2612.value != permit.permitted.amount) revert Permit2612AmountMismatch();
        try IERC20PermitMinimal(permit.permitted.token).permit(
            owner, address(PERMIT2), permit2612.value, permit2612.deadline, permit2612.v, permit2612.r, permit2612.s
        ) {} catch (bytes memory data) {
            emit EIP2612PermitFailedWithData(permit.permitted.token, owner, data);
        }
        _settle(permit, amount, owner, witness, signature);
        emit SettledWithPermit();
    }

    function _settle(
        IPermit2SignatureTransfer.PermitTransferFrom calldata permit,
        uint256 amount,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) private {
        if (amount == 0) revert InvalidAmount();
        if (amount > permit.permitted.amount) revert AmountExceedsPermitted();
        if (msg.sender != witness.facilitator) revert UnauthorizedFacilitator();
        if (owner == address(0)) revert InvalidOwner();
        if (witness.to == address(0)) revert InvalidDestination();
        if (block.timestamp < witness.validAfter) revert PaymentTooEarly();

        bytes32 witnessHash =
            keccak256(abi.encode(WITNESS_TYPEHASH, witness.to, witness.facilitator, witness.validAfter));
        PERMIT2.permitWitnessTransferFrom(
            permit,
            IPermit2SignatureTransfer.SignatureTransferDetails({to: witness.to, requestedAmount: amount}),
            owner,
            witnessHash,
            WITNESS_TYPE_STRING,
            signature
        );
    }
}
