// The link CRC, CRC-16/CCITT-FALSE (docs/link.md): the catalogue check value
// and further vectors in C++ (host/src/link_frame.cpp), the same vectors and
// random bytes through rtl/link/crc16.v, and the residue property frame_rx
// relies on.
#include <verilated.h>
#include "seed.hpp"

#include <Vcrc16.h>
#include <aggnet/link_defs.hpp>
#include <aggnet/link_frame.hpp>
#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

using namespace aggnet;
namespace D = aggnet::link_defs;

namespace {
// A second, independent formulation: the reflected-table-free bitwise
// definition straight from the polynomial, one bit at a time.
uint16_t crc_bitwise(const std::vector<uint8_t>& v) {
    uint16_t c = 0xFFFF;
    for (uint8_t b : v)
        for (int i = 7; i >= 0; --i) {
            const bool fb = ((c >> 15) & 1) ^ ((b >> i) & 1);
            c = uint16_t(c << 1);
            if (fb) c ^= 0x1021;
        }
    return c;
}
std::vector<uint8_t> bytes(const std::string& s) { return {s.begin(), s.end()}; }

struct Vec {
    std::vector<uint8_t> in;
    uint16_t crc;
};
std::vector<Vec> vectors() {
    std::vector<uint8_t> all(256);
    for (int i = 0; i < 256; ++i) all[i] = uint8_t(i);
    return {
        {bytes("123456789"), 0x29B1},  // the catalogue check value
        {{}, 0xFFFF},
        {{0x00}, 0xE1F0},
        {{0xFF}, 0xFF00},
        {bytes("A"), 0xB915},
        {all, 0x3FBD},
    };
}
}  // namespace

TEST_CASE("CRC-16/CCITT-FALSE vectors in C++", "[link][crc]") {
    REQUIRE(D::CRC_CHECK == 0x29B1);
    REQUIRE(D::CRC_POLY == 0x1021);
    for (const auto& v : vectors()) {
        INFO("bytes " << v.in.size());
        CHECK(link::crc16(v.in.data(), v.in.size()) == v.crc);
        CHECK(crc_bitwise(v.in) == v.crc);
    }
    // appending the CRC big-endian leaves the residue 0 (what frame_rx checks)
    std::mt19937_64 rng(sim::test_seed("link_crc_residue"));
    for (int t = 0; t < 10000; ++t) {
        std::vector<uint8_t> m(rng() % 20);
        for (auto& b : m) b = uint8_t(rng());
        const uint16_t c = link::crc16(m.data(), m.size());
        REQUIRE(c == crc_bitwise(m));
        m.push_back(uint8_t(c >> 8));
        m.push_back(uint8_t(c));
        REQUIRE(link::crc16(m.data(), m.size()) == D::CRC_RESIDUE);
    }
}

TEST_CASE("rtl crc16 matches the C++ CRC byte by byte", "[link][crc][rtl]") {
    // crc16 is combinational (no clock): the model is evaluated directly.
    VerilatedContext ctx;
    Vcrc16 model(&ctx, "link_crc16");
    Vcrc16* h = &model;
    auto run = [&](const std::vector<uint8_t>& v) {
        uint16_t c = D::CRC_INIT;
        for (uint8_t b : v) {
            h->crc_in = c;
            h->data = b;
            h->eval();
            const uint16_t want = link::crc16_step(c, b);
            REQUIRE(h->crc_out == want);
            c = h->crc_out;
        }
        return c;
    };
    for (const auto& v : vectors()) CHECK(run(v.in) == v.crc);
    // every (crc, byte) pair would be 2^24; a seeded million instead
    std::mt19937_64 rng(sim::test_seed("link_crc16_rtl"));
    for (int t = 0; t < 1000000; ++t) {
        const uint16_t c = uint16_t(rng());
        const uint8_t b = uint8_t(rng());
        h->crc_in = c;
        h->data = b;
        h->eval();
        if (h->crc_out != link::crc16_step(c, b)) {
            INFO("crc_in " << c << " data " << unsigned(b));
            REQUIRE(h->crc_out == link::crc16_step(c, b));
        }
    }
}
