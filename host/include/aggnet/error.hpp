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
/// that had not arrived (or, waiting for a barrier reset, still held S).
struct TimeoutError : Error {
    TimeoutError(const std::string& what, uint64_t missing) : Error(what), missing_pes(missing) {}
    uint64_t missing_pes;
};

/// A device string that is malformed or does not open, or a transport failure.
struct DeviceError : Error {
    using Error::Error;
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

/// Render a PE set as "PE1, PE3".
std::string pe_list(uint64_t set);

}  // namespace aggnet
