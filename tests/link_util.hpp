// link_util.hpp: helpers shared by the link tests: random frames biased
// towards the bytes that need escaping, and an independent bitwise CRC.
#pragma once

#include <aggnet/link_defs.hpp>
#include <aggnet/link_frame.hpp>

#include <cstdint>
#include <random>
#include <vector>

namespace aggnet::test {

/// A byte that is FLAG or ESC one time in four.
inline uint8_t spicy_byte(std::mt19937_64& rng) {
    switch (rng() % 8) {
    case 0: return link_defs::FLAG;
    case 1: return link_defs::ESC;
    default: return uint8_t(rng());
    }
}

inline link::Frame random_frame(std::mt19937_64& rng) {
    link::Frame f;
    f.pe = spicy_byte(rng);
    f.op = spicy_byte(rng);
    f.seq = spicy_byte(rng);
    f.addr = uint16_t(spicy_byte(rng) << 8 | spicy_byte(rng));
    f.len = uint8_t(rng() % 9);
    for (unsigned i = 0; i < f.len; ++i) f.payload[i] = spicy_byte(rng);
    return f;
}

/// CRC-32/MPEG-2 bit by bit, written from the polynomial (independent of
/// link::crc32): register 0xFFFFFFFF, message bits MSB first, x^32 + x^26 +
/// x^23 + x^22 + x^16 + x^12 + x^11 + x^10 + x^8 + x^7 + x^5 + x^4 + x^2 + x + 1.
inline uint32_t crc_bits(const std::vector<uint8_t>& v) {
    uint32_t c = 0xFFFFFFFFu;
    for (uint8_t b : v)
        for (int i = 7; i >= 0; --i) {
            const bool fb = ((c >> 31) & 1) ^ ((b >> i) & 1);
            c <<= 1;
            if (fb) c ^= 0x04C11DB7u;
        }
    return c;
}

/// The unstuffed bytes a frame's CRC covers.
inline std::vector<uint8_t> covered(const link::Frame& f) {
    std::vector<uint8_t> v = {f.pe, f.op, f.seq, uint8_t(f.addr >> 8), uint8_t(f.addr), f.len};
    for (unsigned i = 0; i < f.len; ++i) v.push_back(f.payload[i]);
    return v;
}

/// A request frame for the directed tests (payload bytes as given).
inline link::Frame req(uint8_t pe, uint8_t op, uint8_t seq, uint16_t addr, std::vector<uint8_t> pl = {}) {
    link::Frame f;
    f.pe = pe;
    f.op = op;
    f.seq = seq;
    f.addr = addr;
    for (uint8_t x : pl) f.payload[f.len++] = x;
    return f;
}


/// A frame as links of versions 1-3 sent it: the same stuffing, but 2 bytes
/// of CRC-16/CCITT-FALSE (poly 0x1021, MSB first, init 0xFFFF), bit by bit.
inline std::vector<uint8_t> encode_v3(const link::Frame& f) {
    std::vector<uint8_t> v = covered(f);
    uint16_t c = 0xFFFF;
    for (uint8_t b : v)
        for (int i = 7; i >= 0; --i) {
            const bool fb = ((c >> 15) & 1) ^ ((b >> i) & 1);
            c = uint16_t(c << 1);
            if (fb) c ^= 0x1021;
        }
    v.push_back(uint8_t(c >> 8));
    v.push_back(uint8_t(c));
    std::vector<uint8_t> out = {link_defs::FLAG};
    for (uint8_t b : v) {
        if (b == link_defs::FLAG || b == link_defs::ESC) {
            out.push_back(link_defs::ESC);
            out.push_back(uint8_t(b ^ link_defs::ESC_XOR));
        } else {
            out.push_back(b);
        }
    }
    return out;
}

}  // namespace aggnet::test
