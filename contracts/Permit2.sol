// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title Permit2 (SignatureTransfer subset)
/// @notice Our own minimal stand-in for Uniswap's Permit2 on the local development chain only.
/// It is written with `anvil_setCode` to the canonical Permit2 address, so it has no constructor
/// state: the EIP-712 domain separator is computed on every call from the chain id and address(this).
/// Implemented: `permitWitnessTransferFrom` (the call the x402 Permit2 proxies make), the unordered
/// nonce bitmap (`nonceBitmap`, `invalidateUnorderedNonces`) and `DOMAIN_SEPARATOR()`, with the same
/// ABI, EIP-712 hashing and custom errors as Permit2's SignatureTransfer. The payer approves this
/// contract on the ERC-20 itself; the token enforces that allowance in `transferFrom`.
/// Not implemented: AllowanceTransfer, batch transfers, plain `permitTransferFrom`.
/// Not audited; never deploy to a real network.
contract Permit2 {
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

    bytes32 private constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,uint256 chainId,address verifyingContract)");
    bytes32 private constant NAME_HASH = keccak256("Permit2");
    bytes32 private constant TOKEN_PERMISSIONS_TYPEHASH = keccak256("TokenPermissions(address token,uint256 amount)");
    /// The caller appends its witness type string (e.g. "Witness witness)TokenPermissions(...)Witness(...)").
    string private constant PERMIT_WITNESS_STUB =
        "PermitWitnessTransferFrom(TokenPermissions permitted,address spender,uint256 nonce,uint256 deadline,";

    // secp256k1n / 2: signatures with a larger s are malleable copies and are rejected (EIP-2).
    uint256 private constant MAX_S = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;
    bytes4 private constant ERC1271_MAGIC_VALUE = 0x1626ba7e;

    /// owner => word position => bitmap of used (or invalidated) nonces; nonce = wordPos << 8 | bitPos.
    mapping(address => mapping(uint256 => uint256)) public nonceBitmap;

    event UnorderedNonceInvalidation(address indexed owner, uint256 word, uint256 mask);

    error SignatureExpired(uint256 signatureDeadline);
    error InvalidAmount(uint256 maxAmount);
    error InvalidNonce();
    error InvalidSignature();
    error InvalidSigner();
    error InvalidSignatureLength();
    error InvalidContractSignature();
    error TransferFromFailed();

    function DOMAIN_SEPARATOR() public view returns (bytes32) {
        return keccak256(abi.encode(DOMAIN_TYPEHASH, NAME_HASH, block.chainid, address(this)));
    }

    /// @notice Moves `transferDetails.requestedAmount` (at most `permit.permitted.amount`) of
    /// `permit.permitted.token` from `owner` to `transferDetails.to`, authorised by `owner`'s EIP-712
    /// signature over the permit, the caller (spender) and the caller's witness.
    function permitWitnessTransferFrom(
        PermitTransferFrom calldata permit,
        SignatureTransferDetails calldata transferDetails,
        address owner,
        bytes32 witness,
        string calldata witnessTypeString,
        bytes calldata signature
    ) external {
        if (block.timestamp > permit.deadline) revert SignatureExpired(permit.deadline);
        if (transferDetails.requestedAmount > permit.permitted.amount) revert InvalidAmount(permit.permitted.amount);

        bytes32 typeHash = keccak256(abi.encodePacked(PERMIT_WITNESS_STUB, witnessTypeString));
        bytes32 permittedHash =
            keccak256(abi.encode(TOKEN_PERMISSIONS_TYPEHASH, permit.permitted.token, permit.permitted.amount));
        bytes32 structHash =
            keccak256(abi.encode(typeHash, permittedHash, msg.sender, permit.nonce, permit.deadline, witness));
        bytes32 digest = keccak256(abi.encodePacked("\x19\x01", DOMAIN_SEPARATOR(), structHash));

        _useUnorderedNonce(owner, permit.nonce);
        _verifySignature(signature, digest, owner);
        _transferFrom(permit.permitted.token, owner, transferDetails.to, transferDetails.requestedAmount);
    }

    /// @notice Marks the nonces in `mask` of word `wordPos` as used, so signatures carrying them can never settle.
    function invalidateUnorderedNonces(uint256 wordPos, uint256 mask) external {
        nonceBitmap[msg.sender][wordPos] |= mask;
        emit UnorderedNonceInvalidation(msg.sender, wordPos, mask);
    }

    function _useUnorderedNonce(address owner, uint256 nonce) private {
        uint256 wordPos = nonce >> 8;
        uint256 bit = 1 << (nonce & 0xff);
        uint256 word = nonceBitmap[owner][wordPos];
        if (word & bit != 0) revert InvalidNonce();
        nonceBitmap[owner][wordPos] = word | bit;
    }

    /// EOAs: 65-byte (r, s, v) or 64-byte EIP-2098 (r, vs) ECDSA signatures. Contracts: ERC-1271.
    function _verifySignature(bytes calldata signature, bytes32 digest, address owner) private view {
        if (owner.code.length > 0) {
            (bool ok, bytes memory ret) =
                owner.staticcall(abi.encodeWithSelector(ERC1271_MAGIC_VALUE, digest, signature));
            if (!ok || ret.length < 32 || abi.decode(ret, (bytes32)) != bytes32(ERC1271_MAGIC_VALUE)) {
                revert InvalidContractSignature();
            }
            return;
        }

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
            revert InvalidSignatureLength();
        }
        if (uint256(s) > MAX_S || (v != 27 && v != 28)) revert InvalidSignature();
        address signer = ecrecover(digest, v, r, s);
        if (signer == address(0)) revert InvalidSignature();
        if (signer != owner) revert InvalidSigner();
    }

    /// ERC-20 transferFrom that accepts tokens returning nothing, and bubbles up the token's revert reason.
    function _transferFrom(address token, address from, address to, uint256 amount) private {
        if (token.code.length == 0) revert TransferFromFailed();
        (bool ok, bytes memory ret) = token.call(abi.encodeWithSelector(0x23b872dd, from, to, amount));
        if (!ok) {
            if (ret.length > 0) {
                assembly {
                    revert(add(ret, 32), mload(ret))
                }
            }
            revert TransferFromFailed();
        }
        if (ret.length > 0 && (ret.length < 32 || !abi.decode(ret, (bool)))) revert TransferFromFailed();
    }
}
