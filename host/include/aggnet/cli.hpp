// cli.hpp: the one option-value parser of every aggnet program (aggnet,
// aggnet-sim, the demo and the benchmarks), so that they all accept and
// refuse the same things, with the same messages, and exit 2 on a usage error.
#pragma once

#include <aggnet/error.hpp>

#include <cstdint>
#include <string>

namespace aggnet::cli {

/// A bad command line: the message names the option and the bad part.
/// Programs print it with their usage and exit kUsageExit.
struct UsageError : Error {
    using Error::Error;
};

constexpr int kUsageExit = 2;

/// The value of option `opt`: decimal digits, or hexadecimal after 0x.  No
/// sign, no octal (a leading 0 is still decimal: "010" is ten), no spaces, no
/// overflow; must lie in lo..hi.  Throws UsageError naming opt and text.
uint64_t number(const std::string& opt, const std::string& text, uint64_t lo, uint64_t hi);

/// A non-empty string value of option `opt` (a path, a device string).
std::string nonempty(const std::string& opt, const std::string& text);

}  // namespace aggnet::cli
