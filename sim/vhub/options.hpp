// options.hpp: aggnet-sim's command line (docs/vhub.md).  Every value is
// checked before the hub starts; a bad one exits 2 with the usage, naming
// the option and the bad part.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace aggnet::vhub {

struct Options {
    unsigned pes = 0;                  ///< --pes N: a built hub size
    std::string dir;                   ///< --dir DIR
    bool have_dir = false;
    bool pty = false;                  ///< --pty
    bool mux = false;                  ///< --mux: a hub with the link multiplexer
    std::string engines_arg;           ///< --engines LIST, as given
    std::vector<unsigned> want_engines;  ///< its engines' windows
    std::string trace;                 ///< --trace FILE.fst (writable)
    unsigned faults = 0;               ///< --faults PERCENT
    uint64_t fault_seed = 0;           ///< --fault-seed S, or a random one
    bool have_seed = false;
};

/// Reads the command line into `o`.  Returns an exit status when the
/// program is done: 0 after --help, cli::kUsageExit after a usage error
/// (printed with the usage on stderr).
std::optional<int> parse_options(int argc, char** argv, Options& o);

/// The engines whose bits are set in a HELLO's engine bits, by name
/// ("papers,scratch"; "none").
std::string engine_list(uint16_t engines);

}  // namespace aggnet::vhub
