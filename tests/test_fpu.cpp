// rtl/fpu/: the COP's floating point (seed 004 Table I; issue 23), checked
// bit for bit against the host's IEEE 754 binary64 arithmetic (round to
// nearest even, no flush to zero) and against the special-value rules of
// docs/fpu.md: any NaN result is the canonical quiet NaN 0x7FF8000000000000.
// Random operands are seeded (sim/seed.hpp); AGGNET_CYCLES_SCALE scales the
// counts.
#include "fp_ref.hpp"
#include "harness.hpp"
#include "seed.hpp"

#include <Vfpu_add64.h>
#include <Vfpu_exact_acc.h>
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
#include <type_traits>
#include <vector>

using aggnet::sim::Harness;
using namespace aggnet::sim::fp;

namespace {

std::string hex(uint64_t b) {
    char s[64];
    std::snprintf(s, sizeof s, "0x%016llx (%.17g)", static_cast<unsigned long long>(b), to_d(b));
    return s;
}

uint64_t count(uint64_t base) {
    return uint64_t(double(base) * aggnet::sim::cycles_scale()) + 1;
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

/// Streams operand pairs through a fully pipelined unit of rtl/fpu/ (in_valid,
/// in_a, in_b, in_tag and, for fpu_minmax64, in_min; out_valid, out_z,
/// out_tag), one per cycle or with bubbles, and checks every result against
/// `ref`, with its tag and its latency.
template <class Model>
struct PipeBench {
    using Ref = uint64_t (*)(uint64_t a, uint64_t b, bool min);
    Harness<Model> h;
    const uint64_t latency;
    const Ref ref;
    struct Op {
        uint64_t a, b, cycle;
        bool min;
        uint32_t tag;
    };
    std::deque<Op> pending;
    uint32_t next_tag = 0;
    uint64_t checked = 0;

    PipeBench(const char* name, uint64_t lat, Ref r) : h(name), latency(lat), ref(r) { h.reset(); }

    void step(bool valid, uint64_t a, uint64_t b, bool min = false) {
        h->in_valid = valid;
        h->in_a = a;
        h->in_b = b;
        h->in_tag = next_tag;
        if constexpr (std::is_same_v<Model, Vfpu_minmax64>) h->in_min = min;
        if (valid) pending.push_back({a, b, h.cycle(), min, next_tag++});
        h.tick();
        check_out();
    }
    void check_out() {
        if (!h->out_valid) {
            if (!pending.empty()) REQUIRE(h.cycle() - pending.front().cycle < latency);
            return;
        }
        REQUIRE(!pending.empty());
        const Op op = pending.front();
        pending.pop_front();
        REQUIRE(h.cycle() - op.cycle == latency);
        REQUIRE(uint32_t(h->out_tag) == op.tag);
        const uint64_t want = ref(op.a, op.b, op.min);
        const uint64_t got = h->out_z;
        if (got != want) {
            INFO("a = " << hex(op.a) << "  b = " << hex(op.b) << (op.min ? "  (min)" : ""));
            INFO("want " << hex(want) << "  got " << hex(got));
            REQUIRE(got == want);
        }
        ++checked;
    }
    void drain() {
        for (uint64_t i = 0; i <= latency; ++i) step(false, 0, 0);
        REQUIRE(pending.empty());
    }
};

constexpr uint64_t ADD_LATENCY = 6;  // rtl/fpu/fpu_add64.v's header

struct AddBench : PipeBench<Vfpu_add64> {
    explicit AddBench(const char* name)
        : PipeBench(name, ADD_LATENCY, [](uint64_t a, uint64_t b, bool) { return ref_add(a, b); }) {}
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


constexpr uint64_t MINMAX_LATENCY = 1;  // rtl/fpu/fpu_minmax64.v's header

struct MinMaxBench : PipeBench<Vfpu_minmax64> {
    explicit MinMaxBench(const char* name) : PipeBench(name, MINMAX_LATENCY, ref_minmax) {}
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
    for (const Case& c : cases) t.step(true, c.a, c.b, c.min);
    t.drain();
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
        const bool valid = rng() % 8 != 0;
        const bool min = rng() & 1;
        t.step(valid, a, b, min);
    }
    t.drain();
}

// ---- fpu_exact_acc: the reproducible double sum ------------------------

namespace {


enum AccOp : unsigned {
    ACC_ADD = 0, ACC_CLEAR = 1, ACC_ROUND = 2, ACC_ROUND_CLEAR = 3, ACC_MERGE_LIMB = 4, ACC_MERGE_FLAGS = 5
};
constexpr unsigned ACC_LIMBS = 33, ACC_FLAGS = 33;  // rd_idx of the flag word
// rtl/fpu/fpu_exact_acc.v's header: ROUND accepted at edge t, res_valid
// after edge t + 43 whatever the terms (the carry sweep takes every limb);
// cop_core counts on at most 44 (EX_RND)
constexpr uint64_t ROUND_MIN = 43, ROUND_MAX = 43;

struct AccBench {
    Harness<Vfpu_exact_acc> h;
    uint64_t min_lat = ~uint64_t(0), max_lat = 0, rounds = 0;

    explicit AccBench(const char* name) : h(name, 500000000) { h.reset(); }

    void cmd(unsigned op, uint64_t x = 0, unsigned idx = 0) {
        REQUIRE(h->cmd_ready);
        h->cmd_valid = 1;
        h->cmd_op = op;
        h->cmd_x = x;
        h->cmd_idx = idx;
        h.tick();
        h->cmd_valid = 0;
        REQUIRE(!h->res_valid);
    }
    void add_all(const std::vector<uint64_t>& t) {
        for (uint64_t x : t) cmd(ACC_ADD, x);
    }
    uint64_t round(bool clear) {
        cmd(clear ? ACC_ROUND_CLEAR : ACC_ROUND);
        const uint64_t accepted = h.cycle();  // the edge that took ROUND
        while (!h->res_valid) {
            REQUIRE(!h->cmd_ready);
            REQUIRE(h.cycle() - accepted < ROUND_MAX);
            h.tick();
        }
        const uint64_t lat = h.cycle() - accepted;
        REQUIRE(lat >= ROUND_MIN);
        REQUIRE(lat <= ROUND_MAX);
        const uint64_t z = h->res_z;
        REQUIRE(!h->cmd_ready);  // ready again the cycle after res_valid
        h.tick();
        REQUIRE(!h->res_valid);  // one pulse
        REQUIRE(h->cmd_ready);
        min_lat = std::min(min_lat, lat);
        max_lat = std::max(max_lat, lat);
        ++rounds;
        return z;
    }
    /// rd_data for rd_idx 0..33: the 33 limbs and the flag word
    std::vector<uint64_t> export_all() {
        std::vector<uint64_t> v;
        for (unsigned i = 0; i <= ACC_FLAGS; ++i) {
            h->rd_idx = i;
            h.tick();
            v.push_back(h->rd_data);
        }
        return v;
    }
    void merge(const std::vector<uint64_t>& v) {
        for (unsigned i = 0; i < ACC_LIMBS; ++i) cmd(ACC_MERGE_LIMB, v[i], i);
        cmd(ACC_MERGE_FLAGS, v[ACC_FLAGS]);
    }
    uint64_t sum(const std::vector<uint64_t>& t) {
        add_all(t);
        return round(true);
    }
};


}  // namespace

TEST_CASE("fpu_exact_acc: the software exact sum rounds like the host's addition", "[fpu][exact]") {
    // two terms: the correctly rounded sum is IEEE addition (NaN made canonical)
    std::mt19937_64 rng(aggnet::sim::test_seed("fpu_exact_ref"));
    PairGen gen{rng};
    const uint64_t n = count(300000);
    for (uint64_t i = 0; i < n; ++i) {
        const auto [a, b] = gen.next();
        INFO("a = " << hex(a) << "  b = " << hex(b));
        REQUIRE(ref_sum({a, b}) == ref_add(a, b));
        REQUIRE(ref_sum({a}) == (is_nan(a) ? QNAN : a));
    }
}

TEST_CASE("fpu_exact_acc: directed sums", "[fpu][exact]") {
    struct Case {
        std::vector<uint64_t> t;
        uint64_t want;
        const char* what;
    };
    const uint64_t one = to_b(1.0), max = make(0, 0x7FE, ~0ull);
    const uint64_t ulp1 = make(0, 0x3CB, 0), half1 = make(0, 0x3CA, 0), tiny = make(0, 0, 1);
    const Case cases[] = {
        {{}, 0, "empty sum is +0"},
        {{SIGN}, SIGN, "-0"},
        {{SIGN, SIGN, SIGN}, SIGN, "-0 + -0 + -0 = -0"},
        {{SIGN, 0}, 0, "-0 + +0 = +0"},
        {{one, one ^ SIGN}, 0, "x - x = +0"},
        {{max, max, max ^ SIGN}, max, "max + max - max: the intermediate overflow is exact"},
        {{max, max}, PINF, "max + max = inf"},
        {{max ^ SIGN, max ^ SIGN}, NINF, "-max - max = -inf"},
        {{one, to_b(1e100), to_b(-1e100)}, one, "1 + 1e100 - 1e100 = 1 (not 0)"},
        {{PINF, NINF}, QNAN, "inf - inf = NaN"},
        {{PINF, max, max, max ^ SIGN}, PINF, "inf + finite = inf"},
        {{NINF, one}, NINF, "-inf + 1"},
        {{make(0, 0x7FF, 1), PINF}, QNAN, "sNaN"},
        {{one, make(1, 0x7FF, 0x8000000000000ull)}, QNAN, "-qNaN"},
        {{tiny, tiny}, make(0, 0, 2), "subnormals"},
        {{make(0, 0, ~0ull), tiny}, make(0, 1, 0), "max subnormal + min subnormal = min normal"},
        {{tiny ^ SIGN}, tiny ^ SIGN, "-min subnormal alone"},
        {{one, half1}, one, "1 + half an ulp: a tie, to even"},
        {{one, half1, tiny}, make(0, 0x3FF, 1), "1 + half an ulp + 2^-1074: above the tie"},
        {{one ^ SIGN, half1 ^ SIGN, tiny ^ SIGN}, make(1, 0x3FF, 1), "the same, negative"},
        {{one, half1, tiny ^ SIGN}, one, "1 + half an ulp - 2^-1074: below the tie"},
        {{make(0, 0x3FF, 1), half1}, make(0, 0x3FF, 2), "(1 + ulp) + half an ulp: tie to even rounds up"},
        {{one ^ SIGN, tiny}, one ^ SIGN, "-1 + 2^-1074 rounds back to -1"},
        {{one ^ SIGN, ulp1}, make(1, 0x3FE, 0xFFFFFFFFFFFFEull), "-1 + 2^-52 = -(1 - 2^-52), exact"},
        {{make(0, 0x7E7, 0), tiny ^ SIGN}, make(0, 0x7E7, 0), "2^1000 - 2^-1074: a carry rippling through every limb"},
        {{make(1, 0x7E7, 0), tiny}, make(1, 0x7E7, 0), "-2^1000 + 2^-1074"},
        {{max, make(0, 0x7C9, 0)}, PINF, "max + half an ulp: tie to even overflows"},
        {{max, make(0, 0x7C9, 0), tiny ^ SIGN}, max, "max + just under half an ulp"},
    };
    AccBench t("fpu_exact_acc_directed");
    for (const Case& c : cases) {
        INFO(c.what);
        REQUIRE(ref_sum(c.t) == c.want);
        REQUIRE(t.sum(c.t) == c.want);
    }
    // the empty sum and a borrow rippling from limb 0 to limb 32
    // (2^1000 - 2^-1074) take the same time: the sweep is data-free
    REQUIRE(t.max_lat == ROUND_MAX);
    REQUIRE(t.min_lat == ROUND_MIN);
}

TEST_CASE("fpu_exact_acc: every order of a term set gives the same bits", "[fpu][exact]") {
    std::mt19937_64 rng(aggnet::sim::test_seed("fpu_exact_orders"));
    AccBench t("fpu_exact_acc_orders");
    const unsigned sets = 48, orders = 24;  // 1,152 orders
    for (unsigned s = 0; s < sets; ++s) {
        std::vector<uint64_t> terms = term_set(rng, s);
        const uint64_t want = ref_sum(terms);
        INFO("set " << s << " (kind " << s % 8 << ", " << terms.size() << " terms), exact sum " << hex(want));
        for (unsigned o = 0; o < orders; ++o) {
            std::shuffle(terms.begin(), terms.end(), rng);
            uint64_t got;
            switch (o % 3) {
            case 0:  // ROUND_CLEAR
                got = t.sum(terms);
                break;
            case 1:  // ROUND, then CLEAR
                t.add_all(terms);
                got = t.round(false);
                t.cmd(ACC_CLEAR);
                break;
            default: {  // a ROUND in the middle leaves the accumulator as it was
                const size_t cut = rng() % (terms.size() + 1);
                t.add_all(std::vector<uint64_t>(terms.begin(), terms.begin() + cut));
                const uint64_t part = t.round(false);
                REQUIRE(part == ref_sum(std::vector<uint64_t>(terms.begin(), terms.begin() + cut)));
                t.add_all(std::vector<uint64_t>(terms.begin() + cut, terms.end()));
                got = t.round(true);
                break;
            }
            }
            INFO("order " << o);
            REQUIRE(got == want);
        }
    }
    std::fprintf(stderr, "[fpu_exact_acc] %llu rounds, ROUND latency %llu..%llu edges\n",
                 static_cast<unsigned long long>(t.rounds), static_cast<unsigned long long>(t.min_lat),
                 static_cast<unsigned long long>(t.max_lat));
}

TEST_CASE("fpu_exact_acc: the term limit and the carry headroom", "[fpu][exact]") {
    AccBench t("fpu_exact_acc_limit");
    const uint64_t max = make(0, 0x7FE, ~0ull), one = to_b(1.0);
    // MAX_TERMS terms that push every carry field to its edge
    std::vector<uint64_t> terms(ExactRef::MAX_TERMS, max);
    REQUIRE(t.sum(terms) == PINF);
    std::fill(terms.begin(), terms.end(), max ^ SIGN);
    REQUIRE(t.sum(terms) == NINF);
    // half up, half down, then a small survivor: exact
    std::vector<uint64_t> mix;
    for (unsigned i = 0; i < ExactRef::MAX_TERMS / 2 - 1; ++i) {
        mix.push_back(max);
        mix.push_back(max ^ SIGN);
    }
    mix.push_back(max);
    mix.push_back(one);
    REQUIRE(mix.size() == ExactRef::MAX_TERMS);
    REQUIRE(ref_sum(mix) == max);
    REQUIRE(t.sum(mix) == max);
    // one term more than the limit: NaN, until CLEAR
    terms.assign(ExactRef::MAX_TERMS + 1, one);
    REQUIRE(ref_sum(terms) == QNAN);
    t.add_all(terms);
    REQUIRE(t.round(false) == QNAN);
    t.cmd(ACC_CLEAR);
    REQUIRE(t.sum({one, one}) == to_b(2.0));
}

TEST_CASE("fpu_exact_acc: a two-level tree merges exact accumulators", "[fpu][exact]") {
    std::mt19937_64 rng(aggnet::sim::test_seed("fpu_exact_tree"));
    AccBench l1("fpu_exact_acc_level1"), l2("fpu_exact_acc_level2");
    for (unsigned s = 0; s < 64; ++s) {
        std::vector<uint64_t> terms = term_set(rng, s);
        std::shuffle(terms.begin(), terms.end(), rng);
        const uint64_t want = ref_sum(terms);
        INFO("set " << s << " (kind " << s % 8 << ", " << terms.size() << " terms), exact sum " << hex(want));
        // split into 1..5 level-1 groups (some may be empty) and a few terms
        // added at level 2 directly
        const unsigned groups = 1 + unsigned(rng() % 5);
        std::vector<std::vector<uint64_t>> part(groups + 1);
        for (uint64_t x : terms) part[rng() % (groups + 1)].push_back(x);
        for (unsigned g = 0; g < groups; ++g) {
            ExactRef r;
            for (uint64_t x : part[g]) r.add(x);
            l1.add_all(part[g]);
            REQUIRE(l1.round(false) == r.round());
            const std::vector<uint64_t> ex = l1.export_all();
            // the export is the carry-free two's complement sum, limb 32 signed
            for (unsigned i = 0; i < ACC_LIMBS; ++i) {
                INFO("group " << g << " limb " << i);
                REQUIRE(ex[i] == r.w[i]);
            }
            const uint64_t flags = (r.nan ? 1 : 0) | (r.pinf ? 2 : 0) | (r.ninf ? 4 : 0) |
                                   (r.allnegz ? 8 : 0) | (r.terms << 16);
            REQUIRE(ex[ACC_FLAGS] == flags);
            l1.cmd(ACC_CLEAR);
            if (rng() & 1) l2.merge(ex);
            else {  // merges and direct terms interleave freely
                l2.add_all(part[groups]);
                part[groups].clear();
                l2.merge(ex);
            }
        }
        l2.add_all(part[groups]);
        REQUIRE(l2.round(true) == want);
    }
    // the term limit counts the merged terms
    std::vector<uint64_t> ones(5000, to_b(1.0));
    l1.add_all(ones);
    REQUIRE(l1.round(false) == to_b(5000.0));
    const std::vector<uint64_t> ex = l1.export_all();
    l2.merge(ex);
    REQUIRE(l2.round(false) == to_b(5000.0));
    l2.merge(ex);
    REQUIRE(l2.round(true) == QNAN);  // 10,000 terms
}
