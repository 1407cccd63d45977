// link_frame.hpp: the link's frame codec (docs/link.md, constants in
// aggnet/link_defs.hpp generated from tools/linkgen.py).  libaggnet uses it on
// serial lines and sockets, and the tests use it as the reference model of
// rtl/link/frame_rx.v and frame_tx.v: the incremental Decoder follows exactly
// the RTL receiver's rules (resync on FLAG, len > 8 dropped, CRC residue 0,
// inter-byte timeout), and encode() produces exactly frame_tx's bytes.
#pragma once

#include <aggnet/link_defs.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace aggnet::link {

/// One byte step of CRC-32/MPEG-2 (poly 0x04C11DB7, MSB first, no reflection).
uint32_t crc32_step(uint32_t crc, uint8_t byte);
/// CRC-32/MPEG-2 of n bytes, starting from `crc` (0xFFFFFFFF for a new one).
/// crc32("123456789") == 0x0376E6E7.
uint32_t crc32(const uint8_t* data, size_t n, uint32_t crc = link_defs::CRC_INIT);

/// A frame's unstuffed fields.  payload[0..len) in wire order.
struct Frame {
    uint8_t pe = 0;
    uint8_t op = 0;
    uint8_t seq = 0;
    uint16_t addr = 0;
    uint8_t len = 0;  ///< 0..8
    std::array<uint8_t, link_defs::MAX_PAYLOAD> payload{};

    /// Big-endian value of payload[first .. first+n).
    uint32_t value(unsigned first, unsigned n) const;
    /// Append the n low bytes of v, big-endian (len grows by n, at most to 8).
    void append(uint32_t v, unsigned n);
    /// The CRC the frame carries (over pe..payload).
    uint32_t crc() const;
    bool operator==(const Frame& o) const;
    bool operator!=(const Frame& o) const { return !(*this == o); }
    /// "PE3 WRITE seq 7 addr 0x1004 len 1 [2a]"
    std::string describe() const;
};

/// Append FLAG and the stuffed frame (CRC included) to `out`.
void encode(const Frame& f, std::vector<uint8_t>& out);
std::vector<uint8_t> encode(const Frame& f);

/// What the decoder dropped, counted the way link_port's statistics count.
struct DecoderStats {
    uint64_t frames_ok = 0;  ///< good frames delivered
    uint64_t crc_err = 0;    ///< complete frames with a bad CRC
    uint64_t resync = 0;     ///< partial frames aborted by a FLAG
    uint64_t bad_len = 0;    ///< len > 8
    uint64_t timeout = 0;    ///< partial frames dropped by timeout()
    /// of the resync and timeout drops, whole frames of link versions 1-3
    /// (2 bytes of CRC-16/CCITT-FALSE where version 4 has 4 of CRC-32): a
    /// peer that speaks the old link, e.g. a board with an old bitstream
    uint64_t legacy = 0;
};

/// Incremental receiver: bytes in, good frames out.
class Decoder {
public:
    /// Feed one byte; true when it completed a good frame, then in frame().
    bool push(uint8_t byte);
    /// The inter-byte timeout passed: drop a partial frame (counted).
    void timeout();
    /// A frame is in progress (a FLAG was seen and the frame is not over).
    bool in_frame() const { return in_frame_; }
    const Frame& frame() const { return out_; }
    const DecoderStats& stats() const { return stats_; }

private:
    bool in_frame_ = false;
    bool esc_ = false;
    unsigned idx_ = 0;
    uint32_t crc_ = link_defs::CRC_INIT;
    uint16_t crc16_ = 0xFFFF;  ///< the frame so far as versions 1-3 checked it
    void drop_partial();
    Frame cur_{};
    Frame out_{};
    DecoderStats stats_{};
};

}  // namespace aggnet::link
