// fp_ref.hpp: software references for binary64 arithmetic as docs/fpu.md
// defines it (round to nearest even, no flush to zero, one canonical NaN):
// the host's addition and IEEE 754-2019 maximum/minimum with the canonical
// NaN, and an exact sum in a big integer rounded once.  Shared by the FPU's
// tests (tests/test_fpu.cpp) and the COP's model and tests
// (sim/cop_model.hpp, tests/test_cop_core.cpp), so every reference of a
// double result is written once.
#pragma once

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace aggnet::sim::fp {

constexpr uint64_t QNAN = 0x7FF8000000000000ull;
constexpr uint64_t PINF = 0x7FF0000000000000ull;
constexpr uint64_t NINF = 0xFFF0000000000000ull;
constexpr uint64_t SIGN = 0x8000000000000000ull;

inline double to_d(uint64_t b) {
    double d;
    std::memcpy(&d, &b, 8);
    return d;
}
inline uint64_t to_b(double d) {
    uint64_t b;
    std::memcpy(&b, &d, 8);
    return b;
}
inline bool is_nan(uint64_t b) { return (b & ~SIGN) > PINF; }

/// docs/fpu.md: the host's sum, with every NaN made canonical.
inline uint64_t ref_add(uint64_t a, uint64_t b) {
    const uint64_t z = to_b(to_d(a) + to_d(b));
    return is_nan(z) ? QNAN : z;
}

/// docs/cop.md SCANIF / SCANXF: the running SUMF over the terms in their order (term k's
/// inclusive sum adds term k to term k - 1's with ref_add, starting from the first term), or
/// for `exclusive` the one before it (+0 for the first); every NaN canonical.
inline std::vector<uint64_t> ref_prefix_sum(const std::vector<uint64_t>& xs, bool exclusive) {
    std::vector<uint64_t> out;
    uint64_t acc = 0;
    for (size_t k = 0; k < xs.size(); ++k) {
        const uint64_t before = acc;
        acc = k == 0 ? (is_nan(xs[0]) ? QNAN : xs[0]) : ref_add(acc, xs[k]);
        out.push_back(exclusive ? before : acc);
    }
    return out;
}

inline uint64_t make(uint64_t sign, uint64_t exp, uint64_t frac) {
    return (sign << 63) | ((exp & 0x7FF) << 52) | (frac & 0xFFFFFFFFFFFFFull);
}

/// docs/fpu.md: IEEE 754-2019 maximum / minimum (9.6) with the canonical
/// NaN, written from the standard's text with the host's comparisons.
inline uint64_t ref_minmax(uint64_t a, uint64_t b, bool min) {
    if (is_nan(a) || is_nan(b)) return QNAN;  // "if either operand is a NaN"
    const double x = to_d(a), y = to_d(b);
    if (x == y) {
        // "+0 compares greater than -0"; equal nonzero values have equal bits
        const bool neg = min ? ((a | b) & SIGN) : ((a & b) & SIGN);
        return x == 0 ? (neg ? SIGN : 0) : a;
    }
    return (min ? x < y : x > y) ? a : b;
}

/// The exact sum in software: a two's complement big integer of 35 64-bit
/// words counting units of 2^-1074 (so every double is an integer), each
/// term added with full carry propagation, then rounded once to nearest
/// even.  Written from the definitions (IEEE 754 4.3.1 roundTiesToEven,
/// 7.4 overflow) and the special-value rules of docs/fpu.md, not from the
/// RTL's limb scheme.
struct ExactRef {
    static constexpr int NW = 35;
    static constexpr uint64_t MAX_TERMS = 8192;  // rtl/fpu/fpu_exact_acc.v's header
    uint64_t w[NW] = {};
    bool nan = false, pinf = false, ninf = false, allnegz = true;
    uint64_t terms = 0;

    void add_at(unsigned word, uint64_t v, bool neg) {
        // add (or subtract) v * 2^(64*word), carrying through every word above
        for (int i = int(word); i < NW; ++i) {
            const uint64_t old = w[i];
            w[i] = neg ? old - v : old + v;
            v = neg ? uint64_t(old < v) : uint64_t(w[i] < old);  // borrow / carry
            if (v == 0) break;
        }
    }
    void add(uint64_t x) {
        ++terms;
        if (x != SIGN) allnegz = false;
        const uint64_t e = (x >> 52) & 0x7FF, f = x & 0xFFFFFFFFFFFFFull;
        const bool neg = x >> 63;
        if (e == 0x7FF) {
            if (f) nan = true;
            else (neg ? ninf : pinf) = true;
            return;
        }
        const uint64_t m = e ? f | (uint64_t(1) << 52) : f;
        const unsigned p = e ? unsigned(e) - 1 : 0;  // units of 2^-1074
        const unsigned q = p / 64, r = p % 64;
        add_at(q, m << r, neg);
        if (r) add_at(q + 1, m >> (64 - r), neg);
    }
    uint64_t round() const {
        if (nan || (pinf && ninf) || terms > MAX_TERMS) return QNAN;
        if (pinf) return PINF;
        if (ninf) return NINF;
        uint64_t mag[NW];
        const bool neg = w[NW - 1] >> 63;
        uint64_t c = 1;
        for (int i = 0; i < NW; ++i) {
            mag[i] = neg ? ~w[i] + c : w[i];
            if (neg) c = (c && mag[i] == 0) ? 1 : 0;
        }
        int h = -1;
        for (int i = NW * 64 - 1; i >= 0; --i)
            if ((mag[i / 64] >> (i % 64)) & 1) {
                h = i;
                break;
            }
        if (h < 0) return (allnegz && terms > 0) ? SIGN : 0;
        const uint64_t sign = neg ? SIGN : 0;
        auto bit = [&](int i) { return i >= 0 && ((mag[i / 64] >> (i % 64)) & 1); };
        if (h < 52) return sign | mag[0];  // subnormal: exact
        const uint64_t e = uint64_t(h) - 51;
        if (e >= 2047) return sign | PINF;
        uint64_t frac = 0;
        for (int i = h - 1; i >= h - 52; --i) frac = (frac << 1) | uint64_t(bit(i));
        const bool g = bit(h - 53);
        bool sticky = false;
        for (int i = h - 54; i >= 0 && !sticky; --i) sticky = bit(i);
        const uint64_t pk = ((e << 52) | frac) + uint64_t(g && (sticky || (frac & 1)));
        return sign | pk;  // a carry into exponent 2047 is inf
    }
};

inline uint64_t ref_sum(const std::vector<uint64_t>& t) {
    ExactRef r;
    for (uint64_t x : t) r.add(x);
    return r.round();
}

/// The exact prefix sums (EXSCANIF / EXSCANXF): term k's is the exact sum of
/// terms 0..k (exclusive: 0..k-1, +0 for the first), rounded once.
inline std::vector<uint64_t> ref_exact_prefix_sum(const std::vector<uint64_t>& xs, bool exclusive) {
    std::vector<uint64_t> out;
    ExactRef r;
    for (uint64_t x : xs) {
        if (exclusive) out.push_back(r.round());
        r.add(x);
        if (!exclusive) out.push_back(r.round());
    }
    return out;
}

/// Term sets that stress the exact sum: wide ranges, cancellation,
/// overflow, subnormals, ties, specials.
inline std::vector<uint64_t> term_set(std::mt19937_64& rng, unsigned kind) {
    const unsigned n = 1 + unsigned(rng() % 300);
    std::vector<uint64_t> t;
    auto rnd_normal = [&](uint64_t elo, uint64_t ehi) {
        return make(rng() & 1, elo + rng() % (ehi - elo + 1), rng());
    };
    switch (kind % 8) {
    case 0:  // any finite magnitudes
        for (unsigned i = 0; i < n; ++i) t.push_back(rnd_normal(0, 2046));
        break;
    case 1: {  // cancellation: pairs x, -x and a few small survivors
        for (unsigned i = 0; i < n; ++i) {
            const uint64_t x = rnd_normal(900, 2046);
            t.push_back(x);
            t.push_back(x ^ SIGN);
        }
        for (unsigned i = 0; i < 1 + rng() % 4; ++i) t.push_back(rnd_normal(0, 1100));
        break;
    }
    case 2:  // near overflow, mixed signs: finite or +-inf at the end
        for (unsigned i = 0; i < n; ++i) t.push_back(make(rng() % 3 == 0, 2040 + rng() % 7, rng()));
        break;
    case 3:  // subnormals and the smallest normals
        for (unsigned i = 0; i < n; ++i) t.push_back(make(rng() & 1, rng() % 3, rng()));
        break;
    case 4: {  // one big value, tiny corrections far below: ties and sticky bits
        const uint64_t big = rnd_normal(1000, 1100);
        t.push_back(big);
        const uint64_t e = (big >> 52) & 0x7FF;
        t.push_back(make(big >> 63, e - 53, 0));  // half an ulp: a tie
        for (unsigned i = 0; i < rng() % 3; ++i) t.push_back(make(rng() & 1, rng() % 3, 1 + rng() % 8));
        for (unsigned i = 0; i < n % 16; ++i) {
            const uint64_t x = rnd_normal(0, 2046);
            t.push_back(x);
            t.push_back(x ^ SIGN);
        }
        break;
    }
    case 5:  // small integers: exact sums, sign changes, zeros of both signs
        for (unsigned i = 0; i < n; ++i) {
            const int64_t v = int64_t(rng() % 2001) - 1000;
            t.push_back(v == 0 ? (rng() & 1 ? SIGN : 0) : to_b(double(v)));
        }
        break;
    case 6:  // random bits: NaNs and infinities now and then
        for (unsigned i = 0; i < n; ++i) t.push_back(rng() % 64 == 0 ? (rng() & 1 ? PINF : NINF) : rng());
        break;
    default:  // only negative zeros, sometimes one +0
        for (unsigned i = 0; i < 1 + n % 5; ++i) t.push_back(SIGN);
        if (rng() & 1) t.push_back(0);
        break;
    }
    return t;
}

}  // namespace aggnet::sim::fp
