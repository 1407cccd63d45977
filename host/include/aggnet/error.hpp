// error.hpp: the exceptions libaggnet throws.  Every one names what went wrong
// specifically enough to act on: the mask and the PEs, the device string, the
// PEs that never arrived.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace aggnet {

/// Base of every libaggnet error.
struct Error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// A barrier mask names a PE the hub does not have (seed 000 section 4.3.1, PARANOID).
struct MaskError : Error {
    MaskError(const std::string& what, uint64_t bad) : Error(what), bad_pes(bad) {}
    uint64_t bad_pes;  ///< bit k set: PE k does not exist
};

/// A wait did not complete in time.  missing_pes names the PEs of the mask
/// that kept the barrier from completing, split in two:
///   never_arrived: waiting for GO, PEs never seen arrived during this wait
///                  (S high with a mask naming us); waiting for the GO reset
///                  of a finished barrier, the PEs that never released it
///                  (still holding S), i.e. a dead PE's held pins;
///   left_pes:      PEs seen arrived during this wait that withdrew before
///                  the barrier completed: they timed out themselves (or
///                  passed the barrier with a mask that differs from ours).
struct TimeoutError : Error {
    TimeoutError(const std::string& what, uint64_t never, uint64_t left = 0)
        : Error(what), missing_pes(never | left), never_arrived(never), left_pes(left) {}
    uint64_t missing_pes;
    uint64_t never_arrived;
    uint64_t left_pes;
};

/// A device string that is malformed or does not open, or a transport failure.
struct DeviceError : Error {
    using Error::Error;
};

/// A device string that is malformed (as opposed to one that does not open):
/// a usage error for command-line tools (exit 2).
struct DeviceSyntaxError : DeviceError {
    using DeviceError::DeviceError;
};

/// The link (docs/link.md) gave up: no reply to a command after the bounded
/// number of attempts (seed 004 chapter IV: the node traps after some number
/// of unsuccessful attempts).  The message names the device, PE, op and address.
struct LinkError : Error {
    LinkError(const std::string& what, unsigned pe_, uint8_t op_, uint16_t addr_, unsigned attempts_)
        : Error(what), pe(pe_), op(op_), addr(addr_), attempts(attempts_) {}
    unsigned pe;
    uint8_t op;        ///< link_defs::OP_*
    uint16_t addr;
    unsigned attempts; ///< frames sent without an answer
};

/// The hub answered a command over the link with ERR (no such register,
/// refused, ...): the command was not carried out.  code is link_defs::ERR_*.
struct RegisterError : Error {
    RegisterError(const std::string& what, unsigned pe_, uint8_t op_, uint16_t addr_, uint8_t code_)
        : Error(what), pe(pe_), op(op_), addr(addr_), code(code_) {}
    unsigned pe;
    uint8_t op;
    uint16_t addr;
    uint8_t code;
};

/// A call out of an engine's protocol order (for example a second NAND
/// acknowledge before the first completed): refused, nothing changed.
struct ProtocolError : Error {
    using Error::Error;
};

/// Render a PE set as "PE1, PE3".
std::string pe_list(uint64_t set);

}  // namespace aggnet
