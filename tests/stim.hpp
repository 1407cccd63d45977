// stim.hpp: seeded random stimulus for PAPERS tests.  Random bits alone almost
// never satisfy a barrier for N = 16, so masks are drawn from a random
// partition of the PEs (with occasional corruption: a missing member, a mask
// not containing its owner, a PE >= N, a fully random mask), and S follows a
// noisy version of the barrier protocol.
#pragma once

#include <aggnet/transport.hpp>

#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace aggnet::test {

inline std::string hex(reg_t v) {
    std::ostringstream o;
    o << "0x" << std::hex << uint64_t(v >> 64) << ":" << uint64_t(v);
    return o.str();
}

/// A random partition of n PEs: part[pe] = the mask of pe's group.
inline std::vector<uint64_t> random_partition(std::mt19937_64& rng, unsigned n) {
    std::vector<uint64_t> group(n);
    const unsigned groups = 1 + rng() % (n > 4 ? 4 : n);
    for (unsigned pe = 0; pe < n; ++pe) group[pe] = rng() % groups;
    std::vector<uint64_t> part(n);
    for (unsigned pe = 0; pe < n; ++pe)
        for (unsigned q = 0; q < n; ++q)
            if (group[q] == group[pe]) part[pe] |= uint64_t(1) << q;
    return part;
}

/// Maybe corrupt a mask (probability 1/16), for an n-PE hub with mw mask bits.
inline uint64_t noisy_mask(std::mt19937_64& rng, uint64_t m, unsigned n, unsigned mw) {
    const uint64_t all = mw >= 64 ? ~uint64_t(0) : (uint64_t(1) << mw) - 1;
    switch (rng() % 64) {
    case 0: return m & ~(uint64_t(1) << (rng() % n));  // drop a member
    case 1: return (m | (uint64_t(1) << (rng() % mw))) & all;  // add one (maybe absent)
    case 2: return rng() & all;
    case 3: return 0;
    default: return m;
    }
}

}  // namespace aggnet::test
