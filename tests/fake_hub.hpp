// fake_hub.hpp: a C++ hub register file behind one link port, answering
// frames by docs/link.md's rules (per PE: the last seq and its stored reply,
// HELLO carried out unless 1..HELLO_STALE behind, a duplicate answered again
// and never re-applied, WAIT answered with DATA at once or with ACK and later
// DATA, any other seq but last + 1 stale: answered ERR STALE, never applied,
// a new seq cancelling a pending WAIT silently).  For tests that need a hub at
// the far end of a byte stream without the RTL (test_link_client,
// test_serial_pipe): feed it decoded frames, send what it appends to `out`.
// Registers are per PE where it matters, so that several PEs on one stream
// can be checked independently.
//
// Registers:
//   0x1000..0x1FFF  per PE, read/write, start at 0
//   0x3000          shared, read-only; bump() adds 1 (a free-running counter)
//   0x4000..0x4FFF  shared, read/write (one PE writes, another waits on it)
//   0xE000..0xEFFF  missing: ERR NO_REG
//   0xF000..0xFFFF  read-only (reads 0xA5): a WRITE answers ERR REFUSED
//   anything else   ERR NO_REG
#pragma once

#include <aggnet/link_defs.hpp>
#include <aggnet/link_frame.hpp>

#include <array>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace aggnet::test {

class FakeHub {
public:
    unsigned first_pe = 0, port_pes = 4, hub_pes = 4;
    uint8_t version = link_defs::VERSION;
    uint16_t engines = 0x0003;
    uint16_t clk_10khz = 4800;  // 48 MHz

    uint64_t frames = 0, duplicates = 0, stale = 0, dropped = 0, applied = 0;
    /// Per PE, every write applied, in order: (addr, value).
    std::array<std::vector<std::pair<uint16_t, uint32_t>>, 64> writes{};

    /// Per PE link state (a test may set seq to play a hub that saw other frames).
    struct Pe {
        bool known = false, waiting = false;
        uint8_t seq = 0;
        link::Frame last{}, wait{};
    };
    std::array<Pe, 64> pes{};

    /// The register as the bus sees it (32 bits); reads of size s take the low s bytes.
    uint32_t get(unsigned pe, uint16_t addr) const {
        if (addr == 0x3000) return counter_;
        if (addr >= 0xF000) return 0xA5;
        auto it = regs_.find(key(pe, addr));
        return it == regs_.end() ? 0 : it->second;
    }
    void bump() { ++counter_; }
    /// Sets a register as the engine would (no write is counted).
    void set(unsigned pe, uint16_t addr, uint32_t v) { regs_[key(pe, addr)] = v; }
    /// Whether PE pe's WRITEs ever reached addr.
    bool written(unsigned pe, uint16_t addr) const {
        for (const auto& w : writes[pe])
            if (w.first == addr) return true;
        return false;
    }

    /// One received frame; replies are appended to out.
    void handle(const link::Frame& f, std::vector<link::Frame>& out) {
        namespace D = link_defs;
        ++frames;
        if (f.pe < first_pe || f.pe >= first_pe + port_pes) {
            ++dropped;  // not served by this port: the hub does not answer
            return;
        }
        Pe& p = pes[f.pe];
        if (f.op != D::OP_HELLO && p.known && f.seq == p.seq) {
            ++duplicates;
            out.push_back(p.waiting ? reply(f, D::OP_ACK) : p.last);
            return;
        }
        // stale (docs/link.md rules 2 and 4): never applied, answered ERR
        // STALE, the PE's state kept
        const uint8_t behind = uint8_t(p.seq - f.seq);
        if (p.known &&
            (f.op == D::OP_HELLO ? behind >= 1 && behind <= D::HELLO_STALE : f.seq != uint8_t(p.seq + 1))) {
            ++stale;
            out.push_back(error(f, D::ERR_STALE));
            return;
        }
        p.known = true;
        p.seq = f.seq;
        p.waiting = false;  // a new command cancels a pending WAIT, silently
        link::Frame r;
        switch (f.op) {
        case D::OP_HELLO:
            if (f.len != 0) {
                r = error(f, D::ERR_BAD_LEN);
                break;
            }
            r = reply(f, D::OP_HELLO_R);
            r.append(version, 1);
            r.append(hub_pes, 1);
            r.append(first_pe, 1);
            r.append(port_pes, 1);
            r.append(engines, 2);
            r.append(clk_10khz, 2);
            break;
        case D::OP_READ: {
            const unsigned size = f.len == 1 ? f.payload[0] : 0;
            if (size < 1 || size > 4) r = error(f, D::ERR_BAD_LEN);
            else if (!exists(f.addr)) r = error(f, D::ERR_NO_REG);
            else {
                r = reply(f, D::OP_DATA);
                r.append(get(f.pe, f.addr) & mask(size), size);
            }
            break;
        }
        case D::OP_WRITE:
            if (f.len < 1 || f.len > 4) r = error(f, D::ERR_BAD_LEN);
            else if (!exists(f.addr)) r = error(f, D::ERR_NO_REG);
            else if (!writable(f.addr)) r = error(f, D::ERR_REFUSED);
            else {
                regs_[key(f.pe, f.addr)] = f.value(0, f.len);
                writes[f.pe].push_back({f.addr, f.value(0, f.len)});
                ++applied;
                r = reply(f, D::OP_ACK);
            }
            break;
        case D::OP_WAIT:
            if (f.len == 0 || f.len % 2 != 0) r = error(f, D::ERR_BAD_LEN);
            else if (!exists(f.addr)) r = error(f, D::ERR_NO_REG);
            else if (holds(f)) r = data_for(f);
            else {
                p.waiting = true;
                p.wait = f;
                out.push_back(reply(f, D::OP_ACK));
                return;  // the stored reply stays the previous command's; a duplicate gets ACK
            }
            break;
        default: r = error(f, D::ERR_BAD_OP); break;
        }
        p.last = r;
        out.push_back(r);
    }

    /// Re-read the registers of pending WAITs (as link_port does round-robin).
    void poll(std::vector<link::Frame>& out) {
        for (auto& p : pes)
            if (p.waiting && holds(p.wait)) {
                p.waiting = false;
                p.last = data_for(p.wait);
                out.push_back(p.last);
            }
    }

private:
    static uint32_t mask(unsigned size) { return size >= 4 ? 0xffffffffu : (1u << (8 * size)) - 1; }
    static uint32_t key(unsigned pe, uint16_t addr) {
        return (addr & 0xF000) == 0x1000 ? (uint32_t(pe) << 16 | addr) : (uint32_t(0xFF) << 16 | addr);
    }
    static bool exists(uint16_t a) {
        return (a & 0xF000) == 0x1000 || a == 0x3000 || (a & 0xF000) == 0x4000 || (a & 0xF000) == 0xF000;
    }
    static bool writable(uint16_t a) { return (a & 0xF000) == 0x1000 || (a & 0xF000) == 0x4000; }
    static link::Frame reply(const link::Frame& req, uint8_t op) {
        link::Frame r;
        r.pe = req.pe;
        r.seq = req.seq;
        r.addr = req.addr;
        r.op = op;
        return r;
    }
    static link::Frame error(const link::Frame& req, uint8_t code) {
        link::Frame r = reply(req, link_defs::OP_ERR);
        r.append(code, 1);
        return r;
    }
    bool holds(const link::Frame& w) const {
        const unsigned s = w.len / 2;
        return (get(w.pe, w.addr) & mask(s) & w.value(0, s)) == w.value(s, s);
    }
    link::Frame data_for(const link::Frame& w) const {
        link::Frame r = reply(w, link_defs::OP_DATA);
        r.append(get(w.pe, w.addr) & mask(w.len / 2), w.len / 2);
        return r;
    }

    std::map<uint32_t, uint32_t> regs_;
    uint32_t counter_ = 0;
};

}  // namespace aggnet::test
