// The link CRC, CRC-32/MPEG-2 (docs/link.md): the catalogue check value and
// further vectors in C++ (host/src/link_frame.cpp), the same vectors and
// random bytes through rtl/link/link_crc.v, and the residue property frame_rx
// relies on.  The reference is test::crc_bits (tests/link_util.hpp), bit by
// bit from the polynomial.
#include <verilated.h>
#include "link_util.hpp"
#include "seed.hpp"

#include <Vlink_crc.h>
#include <aggnet/link_defs.hpp>
#include <aggnet/link_frame.hpp>
#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

using namespace aggnet;
namespace D = aggnet::link_defs;

namespace {
std::vector<uint8_t> bytes(const std::string& s) { return {s.begin(), s.end()}; }

struct Vec {
    std::vector<uint8_t> in;
    uint32_t crc;
};
// The check value is the CRC catalogue's for CRC-32/MPEG-2; the others are
// docs/link.md's further vectors.
std::vector<Vec> vectors() {
    std::vector<uint8_t> all(256);
    for (int i = 0; i < 256; ++i) all[i] = uint8_t(i);
    return {
        {bytes("123456789"), 0x0376E6E7u},  // the catalogue check value
        {{}, 0xFFFFFFFFu},
        {{0x00}, 0x4E08BFB4u},
        {{0xFF}, 0xFFFFFF00u},
        {bytes("A"), 0x7E4FD274u},
        {all, 0x494A116Au},
    };
}
}  // namespace

TEST_CASE("CRC-32/MPEG-2 vectors in C++", "[link][crc]") {
    REQUIRE(D::CRC_CHECK == 0x0376E6E7u);
    REQUIRE(D::CRC_POLY == 0x04C11DB7u);
    REQUIRE(D::CRC_BYTES == 4);
    for (const auto& v : vectors()) {
        INFO("bytes " << v.in.size());
        CHECK(link::crc32(v.in.data(), v.in.size()) == v.crc);
        CHECK(test::crc_bits(v.in) == v.crc);
    }
    // appending the CRC big-endian leaves the residue 0 (what frame_rx checks)
    std::mt19937_64 rng(sim::test_seed("link_crc_residue"));
    for (int t = 0; t < 10000; ++t) {
        std::vector<uint8_t> m(rng() % 20);
        for (auto& b : m) b = uint8_t(rng());
        const uint32_t c = link::crc32(m.data(), m.size());
        REQUIRE(c == test::crc_bits(m));
        for (int k = 3; k >= 0; --k) m.push_back(uint8_t(c >> (8 * k)));
        REQUIRE(link::crc32(m.data(), m.size()) == D::CRC_RESIDUE);
    }
}

TEST_CASE("rtl link_crc matches the C++ CRC byte by byte", "[link][crc][rtl]") {
    // link_crc is combinational (no clock): the model is evaluated directly.
    VerilatedContext ctx;
    Vlink_crc model(&ctx, "link_crc");
    Vlink_crc* h = &model;
    auto run = [&](const std::vector<uint8_t>& v) {
        uint32_t c = D::CRC_INIT;
        for (uint8_t b : v) {
            h->crc_in = c;
            h->data = b;
            h->eval();
            const uint32_t want = link::crc32_step(c, b);
            REQUIRE(h->crc_out == want);
            c = h->crc_out;
        }
        return c;
    };
    for (const auto& v : vectors()) CHECK(run(v.in) == v.crc);
    // every (crc, byte) pair would be 2^40; a seeded million instead
    std::mt19937_64 rng(sim::test_seed("link_crc_rtl"));
    for (int t = 0; t < 1000000; ++t) {
        const uint32_t c = uint32_t(rng());
        const uint8_t b = uint8_t(rng());
        h->crc_in = c;
        h->data = b;
        h->eval();
        if (h->crc_out != link::crc32_step(c, b)) {
            INFO("crc_in " << c << " data " << unsigned(b));
            REQUIRE(h->crc_out == link::crc32_step(c, b));
        }
    }
}
