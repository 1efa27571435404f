// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// A minimal EIP-1967 proxy for the dev chain and tests: the implementation and admin live in the
/// standard slots (keccak256("eip1967.proxy.implementation") - 1 and keccak256("eip1967.proxy.admin") - 1),
/// every call is delegated to the implementation. The admin may upgrade it.
contract TestERC1967Proxy {
    bytes32 internal constant IMPLEMENTATION_SLOT = 0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc;
    bytes32 internal constant ADMIN_SLOT = 0xb53127684a568b3173ae13b9f8a6016e243e63b6e8ee1178d6a717850b5d6103;

    event Upgraded(address indexed implementation);
    event AdminChanged(address previousAdmin, address newAdmin);

    constructor(address implementation, address admin) {
        assembly {
            sstore(IMPLEMENTATION_SLOT, implementation)
            sstore(ADMIN_SLOT, admin)
        }
        emit Upgraded(implementation);
        emit AdminChanged(address(0), admin);
    }

    /// Only the admin; anyone else's call of this selector is delegated like any other.
    function upgradeTo(address implementation) external {
        address admin;
        assembly {
            admin := sload(ADMIN_SLOT)
        }
        if (msg.sender != admin) _delegate();
        assembly {
            sstore(IMPLEMENTATION_SLOT, implementation)
        }
        emit Upgraded(implementation);
    }

    fallback() external payable {
        _delegate();
    }

    receive() external payable {
        _delegate();
    }

    function _delegate() internal {
        assembly {
            let implementation := sload(IMPLEMENTATION_SLOT)
            calldatacopy(0, 0, calldatasize())
            let ok := delegatecall(gas(), implementation, 0, calldatasize(), 0, 0)
            returndatacopy(0, 0, returndatasize())
            switch ok
            case 0 { revert(0, returndatasize()) }
            default { return(0, returndatasize()) }
        }
    }
}

/// An implementation behind the test proxy: a counter.
contract TestCounterV1 {
    uint256 public count;

    function increment() external {
        count += 1;
    }
}
