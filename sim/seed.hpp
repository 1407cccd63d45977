// seed.hpp: seeded randomness for tests.  The seed comes from AGGNET_SEED
// (a decimal number, or "random" for a fresh one from std::random_device) or,
// when unset, is a fixed seed derived from the test's name, so that `make test`
// is reproducible.  Either way it is printed once per test so that a failure
// can be replayed with AGGNET_SEED=<seed>.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

namespace aggnet::sim {

inline uint64_t test_seed(const char* what) {
    uint64_t seed;
    const char* env = std::getenv("AGGNET_SEED");
    if (env && *env && std::string(env) != "random") {
        seed = std::strtoull(env, nullptr, 10);
    } else if (env && *env) {
        std::random_device rd;
        seed = (uint64_t(rd()) << 32) | rd();
    } else {
        seed = 1469598103934665603ull;  // FNV-1a of the test's name
        for (const char* p = what; *p; ++p) seed = (seed ^ uint8_t(*p)) * 1099511628211ull;
    }
    std::fprintf(stderr, "[seed] %s: AGGNET_SEED=%llu\n", what, static_cast<unsigned long long>(seed));
    return seed;
}

/// Scale for long random runs: AGGNET_CYCLES_SCALE (a float, default 1).
inline double cycles_scale() {
    const char* env = std::getenv("AGGNET_CYCLES_SCALE");
    return (env && *env) ? std::strtod(env, nullptr) : 1.0;
}

}  // namespace aggnet::sim
