// rtl/fpu/: the COP's floating point (seed 004 Table I; issue 23), checked
// bit for bit against the host's IEEE 754 binary64 arithmetic (round to
// nearest even, no flush to zero) and against the special-value rules of
// docs/fpu.md: any NaN result is the canonical quiet NaN 0x7FF8000000000000.
// Random operands are seeded (sim/seed.hpp); AGGNET_CYCLES_SCALE scales the
// counts.
#include "harness.hpp"
#include "seed.hpp"

#include <Vfpu_add64.h>
#include <Vfpu_minmax64.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <random>
#include <string>

using aggnet::sim::Harness;

namespace {

constexpr uint64_t QNAN = 0x7FF8000000000000ull;
constexpr uint64_t PINF = 0x7FF0000000000000ull;
constexpr uint64_t NINF = 0xFFF0000000000000ull;
constexpr uint64_t SIGN = 0x8000000000000000ull;

double to_d(uint64_t b) {
    double d;
    std::memcpy(&d, &b, 8);
    return d;
}
uint64_t to_b(double d) {
    uint64_t b;
    std::memcpy(&b, &d, 8);
    return b;
}
bool is_nan(uint64_t b) { return (b & ~SIGN) > PINF; }

std::string hex(uint64_t b) {
    char s[64];
    std::snprintf(s, sizeof s, "0x%016llx (%.17g)", static_cast<unsigned long long>(b), to_d(b));
    return s;
}

uint64_t count(uint64_t base) {
    return uint64_t(double(base) * aggnet::sim::cycles_scale()) + 1;
}

/// docs/fpu.md: the host's sum, with every NaN made canonical.
uint64_t ref_add(uint64_t a, uint64_t b) {
    const uint64_t z = to_b(to_d(a) + to_d(b));
    return is_nan(z) ? QNAN : z;
}

uint64_t make(uint64_t sign, uint64_t exp, uint64_t frac) {
    return (sign << 63) | ((exp & 0x7FF) << 52) | (frac & 0xFFFFFFFFFFFFFull);
}

/// Random operand pairs from several classes that stress different parts of
/// an adder.
struct PairGen {
    std::mt19937_64& rng;
    uint64_t frac() {
        // random bits, or runs of ones / zeros (carry and rounding ties)
        switch (rng() % 4) {
        case 0: return rng() >> (rng() % 64);
        case 1: return ~uint64_t(0) << (rng() % 53);
        case 2: return (uint64_t(1) << (rng() % 52)) ^ (rng() % 4 == 0 ? rng() & 7 : 0);
        default: return rng();
        }
    }
    uint64_t special() {
        switch (rng() % 8) {
        case 0: return PINF;
        case 1: return NINF;
        case 2: return make(rng() & 1, 0x7FF, 1 + rng() % 0xFFFFFFFFFFFFFull);  // NaN, quiet or signalling
        case 3: return make(rng() & 1, 0, 0);                                    // +-0
        case 4: return make(rng() & 1, 0x7FE, ~uint64_t(0));                     // +-max finite
        case 5: return make(rng() & 1, 1, 0);                                    // +-min normal
        case 6: return make(rng() & 1, 0, 1);                                    // +-min subnormal
        default: return make(rng() & 1, 0, ~uint64_t(0));                        // +-max subnormal
        }
    }
    std::pair<uint64_t, uint64_t> next() {
        const uint64_t sa = rng() & 1, sb = rng() & 1;
        switch (rng() % 10) {
        case 0:  // random bits
            return {rng(), rng()};
        case 1: {  // random normals, any exponents
            return {make(sa, 1 + rng() % 2046, rng()), make(sb, 1 + rng() % 2046, rng())};
        }
        case 2: {  // close exponents, including the alignment edges (d around 53..57)
            const uint64_t ea = 1 + rng() % 2046;
            const int64_t d = int64_t(rng() % 130) - 65;
            const int64_t eb = std::clamp<int64_t>(int64_t(ea) + d, 0, 2046);
            return {make(sa, ea, frac()), make(sb, uint64_t(eb), frac())};
        }
        case 3: {  // near cancellation: b close to -a
            const uint64_t a = make(sa, rng() % 2047, frac());
            uint64_t b = a ^ SIGN;
            switch (rng() % 4) {
            case 0: break;                                         // exact cancellation
            case 1: b += (rng() % 16) - 8; break;                  // a few ulps apart
            case 2: b ^= uint64_t(1) << (rng() % 52); break;       // one fraction bit apart
            default: b ^= uint64_t(1) << (52 + rng() % 2); break;  // exponent one or two apart
            }
            if (is_nan(b) || (b & ~SIGN) == PINF) b = a ^ SIGN;
            return {a, b};
        }
        case 4: {  // subnormals with subnormals and the smallest normals
            return {make(sa, rng() % 3, frac()), make(sb, rng() % 3, frac())};
        }
        case 5: {  // near overflow
            return {make(sa, 2040 + rng() % 7, frac()), make(sb, 2030 + rng() % 17, frac())};
        }
        case 6: {  // one special operand
            return rng() & 1 ? std::make_pair(special(), rng()) : std::make_pair(rng(), special());
        }
        case 7:  // two special operands
            return {special(), special()};
        case 8: {  // huge exponent difference
            return {make(sa, 1 + rng() % 2046, frac()), make(sb, rng() % 2047, frac())};
        }
        default: {  // small integers and halves: exact results and ties
            const double x = double(int64_t(rng() % 4096) - 2048) / double(1 << (rng() % 4));
            const double y = double(int64_t(rng() % 4096) - 2048) / double(1 << (rng() % 4));
            return {to_b(x), to_b(y)};
        }
        }
    }
};

constexpr unsigned ADD_LATENCY = 6;  // rtl/fpu/fpu_add64.v's header

/// Streams operand pairs through fpu_add64 (one per cycle, or with random
/// bubbles) and checks every result, its tag and its latency.
struct AddBench {
    Harness<Vfpu_add64> h;
    struct Op {
        uint64_t a, b, cycle;
        uint32_t tag;
    };
    std::deque<Op> pending;
    uint32_t next_tag = 0;
    uint64_t checked = 0;

    explicit AddBench(const char* name) : h(name) { h.reset(); }

    void step(bool valid, uint64_t a, uint64_t b) {
        h->in_valid = valid;
        h->in_a = a;
        h->in_b = b;
        h->in_tag = next_tag;
        if (valid) pending.push_back({a, b, h.cycle(), next_tag++});
        h.tick();
        check_out();
    }
    void check_out() {
        if (!h->out_valid) {
            if (!pending.empty()) REQUIRE(h.cycle() - pending.front().cycle < ADD_LATENCY);
            return;
        }
        REQUIRE(!pending.empty());
        const Op op = pending.front();
        pending.pop_front();
        REQUIRE(h.cycle() - op.cycle == ADD_LATENCY);
        REQUIRE(uint32_t(h->out_tag) == op.tag);
        const uint64_t want = ref_add(op.a, op.b);
        const uint64_t got = h->out_z;
        if (got != want) {
            INFO("a = " << hex(op.a) << "  b = " << hex(op.b));
            INFO("want " << hex(want) << "  got " << hex(got));
            REQUIRE(got == want);
        }
        ++checked;
    }
    void drain() {
        for (unsigned i = 0; i < ADD_LATENCY + 1; ++i) step(false, 0, 0);
        REQUIRE(pending.empty());
    }
};

}  // namespace

TEST_CASE("fpu_add64: directed cases", "[fpu][add]") {
    struct Case {
        uint64_t a, b, want;
        const char* what;
    };
    const uint64_t one = to_b(1.0);
    const Case cases[] = {
        {one, one, to_b(2.0), "1 + 1"},
        {make(1, 0, 0), make(1, 0, 0), make(1, 0, 0), "-0 + -0 = -0"},
        {make(0, 0, 0), make(1, 0, 0), 0, "+0 + -0 = +0"},
        {make(1, 0, 0), make(0, 0, 0), 0, "-0 + +0 = +0"},
        {one, one ^ SIGN, 0, "1 + -1 = +0"},
        {make(1, 0, 5), make(0, 0, 5), 0, "subnormal x + -x = +0"},
        {one ^ SIGN, make(1, 0, 0), one ^ SIGN, "-1 + -0 = -1"},
        {PINF, NINF, QNAN, "inf + -inf = NaN"},
        {NINF, PINF, QNAN, "-inf + inf = NaN"},
        {PINF, PINF, PINF, "inf + inf"},
        {NINF, one, NINF, "-inf + 1"},
        {PINF, make(1, 0x7FE, ~0ull), PINF, "inf + -max"},
        {make(0, 0x7FF, 1), one, QNAN, "signalling NaN in: canonical NaN out"},
        {one, make(1, 0x7FF, 0x8000000000001ull), QNAN, "negative quiet NaN with payload"},
        {make(0, 0x7FF, 1), PINF, QNAN, "NaN + inf"},
        {make(0, 0x7FE, ~0ull), make(0, 0x7FE, ~0ull), PINF, "max + max overflows"},
        {make(0, 0x7FE, ~0ull), make(0, 0x7C9, 0), PINF, "max + half an ulp: tie to even rounds up to inf"},
        {make(0, 0x7FE, ~0ull), make(0, 0x7C8, ~0ull), make(0, 0x7FE, ~0ull), "max + less than half an ulp"},
        {make(0, 0, 1), make(0, 0, 1), make(0, 0, 2), "min subnormal twice"},
        {make(0, 0, ~0ull), make(0, 0, 1), make(0, 1, 0), "max subnormal + min subnormal = min normal"},
        {make(0, 1, 0), make(1, 0, 1), make(0, 0, ~0ull), "min normal - min subnormal = max subnormal"},
        {make(0, 1, 5), make(1, 1, 3), make(0, 0, 2), "normal - normal = subnormal"},
        {one, make(0, 0x3CA, 0), one, "1 + 2^-53: tie to even stays at 1"},
        {make(0, 0x3FF, 1), make(0, 0x3CA, 0), make(0, 0x3FF, 2), "(1 + ulp) + 2^-53: tie to even rounds up"},
        {one, make(0, 0x3CA, 1), make(0, 0x3FF, 1), "1 + just over half an ulp"},
        {one, make(1, 0x3CA, 0), make(0, 0x3FE, ~0ull), "1 - 2^-53: exact, below 1"},
        {one, make(1, 0x3C9, 0), one, "1 - 2^-54: a tie below 1, to even (1)"},
        {one, make(1, 0x3C9, 1), make(0, 0x3FE, ~0ull), "1 - just over 2^-54 rounds down"},
        {one, make(1, 0x3C8, 1), one, "1 - a bit over 2^-55 rounds back to 1"},
        {make(0, 0x433, 0), make(1, 0, 1), make(0, 0x433, 0), "2^52 - min subnormal rounds to 2^52"},
    };
    for (const Case& c : cases) {
        INFO(c.what);
        REQUIRE(ref_add(c.a, c.b) == c.want);  // the host agrees with the rule
    }
    AddBench t("fpu_add64_directed");
    for (const Case& c : cases) t.step(true, c.a, c.b);
    t.drain();
    REQUIRE(t.checked == sizeof cases / sizeof cases[0]);
}

TEST_CASE("fpu_add64: random operands, one per cycle, against the host", "[fpu][add]") {
    std::mt19937_64 rng(aggnet::sim::test_seed("fpu_add64_random"));
    AddBench t("fpu_add64_random");
    PairGen gen{rng};
    const uint64_t n = count(4000000);
    for (uint64_t i = 0; i < n; ++i) {
        const auto [a, b] = gen.next();
        t.step(true, a, b);
    }
    t.drain();
    REQUIRE(t.checked == n);
}

TEST_CASE("fpu_add64: bubbles and reset", "[fpu][add]") {
    std::mt19937_64 rng(aggnet::sim::test_seed("fpu_add64_bubbles"));
    AddBench t("fpu_add64_bubbles");
    PairGen gen{rng};
    for (int i = 0; i < 20000; ++i) {
        const auto [a, b] = gen.next();
        t.step(rng() % 3 != 0, a, b);
    }
    t.drain();
    // rst drops everything in flight
    for (int i = 0; i < 3; ++i) t.step(true, to_b(1.0), to_b(2.0));
    t.h->rst = 1;
    t.h->in_valid = 0;
    t.h.tick();
    t.h->rst = 0;
    for (unsigned i = 0; i < ADD_LATENCY + 2; ++i) {
        t.h.tick();
        REQUIRE(!t.h->out_valid);
    }
}

namespace {

/// docs/fpu.md: IEEE 754-2019 maximum / minimum (9.6) with the canonical
/// NaN, written from the standard's text with the host's comparisons.
uint64_t ref_minmax(uint64_t a, uint64_t b, bool min) {
    if (is_nan(a) || is_nan(b)) return QNAN;  // "if either operand is a NaN"
    const double x = to_d(a), y = to_d(b);
    if (x == y) {
        // "+0 compares greater than -0"; equal nonzero values have equal bits
        const bool neg = min ? ((a | b) & SIGN) : ((a & b) & SIGN);
        return x == 0 ? (neg ? SIGN : 0) : a;
    }
    return (min ? x < y : x > y) ? a : b;
}

constexpr unsigned MINMAX_LATENCY = 1;  // rtl/fpu/fpu_minmax64.v's header

struct MinMaxBench {
    Harness<Vfpu_minmax64> h;
    struct Op {
        uint64_t a, b, cycle;
        bool min;
        uint32_t tag;
    };
    std::deque<Op> pending;
    uint32_t next_tag = 0;
    uint64_t checked = 0;

    explicit MinMaxBench(const char* name) : h(name) { h.reset(); }

    void step(bool valid, bool min, uint64_t a, uint64_t b) {
        h->in_valid = valid;
        h->in_min = min;
        h->in_a = a;
        h->in_b = b;
        h->in_tag = next_tag;
        if (valid) pending.push_back({a, b, h.cycle(), min, next_tag++});
        h.tick();
        if (!h->out_valid) {
            REQUIRE((pending.empty() || h.cycle() - pending.front().cycle < MINMAX_LATENCY));
            return;
        }
        REQUIRE(!pending.empty());
        const Op op = pending.front();
        pending.pop_front();
        REQUIRE(h.cycle() - op.cycle == MINMAX_LATENCY);
        REQUIRE(uint32_t(h->out_tag) == op.tag);
        const uint64_t want = ref_minmax(op.a, op.b, op.min);
        const uint64_t got = h->out_z;
        if (got != want) {
            INFO((op.min ? "min" : "max") << "(" << hex(op.a) << ", " << hex(op.b) << ")");
            INFO("want " << hex(want) << "  got " << hex(got));
            REQUIRE(got == want);
        }
        ++checked;
    }
};

}  // namespace

TEST_CASE("fpu_minmax64: directed cases", "[fpu][minmax]") {
    struct Case {
        uint64_t a, b;
        bool min;
        uint64_t want;
        const char* what;
    };
    const uint64_t one = to_b(1.0), two = to_b(2.0);
    const Case cases[] = {
        {one, two, false, two, "max(1, 2)"},
        {one, two, true, one, "min(1, 2)"},
        {two ^ SIGN, one, false, one, "max(-2, 1)"},
        {two ^ SIGN, one ^ SIGN, true, two ^ SIGN, "min(-2, -1)"},
        {0, SIGN, false, 0, "max(+0, -0) = +0"},
        {SIGN, 0, false, 0, "max(-0, +0) = +0"},
        {0, SIGN, true, SIGN, "min(+0, -0) = -0"},
        {SIGN, 0, true, SIGN, "min(-0, +0) = -0"},
        {SIGN, SIGN, false, SIGN, "max(-0, -0) = -0"},
        {NINF, PINF, false, PINF, "max(-inf, inf)"},
        {NINF, make(1, 0x7FE, ~0ull), true, NINF, "min(-inf, -max)"},
        {make(0, 0, 1), SIGN, false, make(0, 0, 1), "max(min subnormal, -0)"},
        {make(1, 0, 1), 0, true, make(1, 0, 1), "min(-min subnormal, +0)"},
        {make(0, 0x7FF, 1), one, false, QNAN, "max(sNaN, 1) = NaN"},
        {one, make(1, 0x7FF, 0x8000000000000ull), true, QNAN, "min(1, -qNaN) = NaN"},
        {PINF, make(0, 0x7FF, 5), false, QNAN, "max(inf, NaN) = NaN (2019 maximum, not maximumNumber)"},
    };
    for (const Case& c : cases) {
        INFO(c.what);
        REQUIRE(ref_minmax(c.a, c.b, c.min) == c.want);
    }
    MinMaxBench t("fpu_minmax64_directed");
    for (const Case& c : cases) t.step(true, c.min, c.a, c.b);
    t.step(false, false, 0, 0);
    REQUIRE(t.checked == sizeof cases / sizeof cases[0]);
}

TEST_CASE("fpu_minmax64: random operands against the host's comparisons", "[fpu][minmax]") {
    std::mt19937_64 rng(aggnet::sim::test_seed("fpu_minmax64_random"));
    MinMaxBench t("fpu_minmax64_random");
    PairGen gen{rng};
    const uint64_t n = count(2000000);
    for (uint64_t i = 0; i < n; ++i) {
        auto [a, b] = gen.next();
        switch (rng() % 8) {
        case 0: b = a; break;         // equal operands
        case 1: b = a ^ SIGN; break;  // opposite signs, +0 / -0 among them
        default: break;
        }
        t.step(rng() % 8 != 0, rng() & 1, a, b);
    }
    t.step(false, false, 0, 0);
    REQUIRE(t.pending.empty());
}
