// vhub_protocol.hpp: the wire protocol between the virtual hub (aggnet-sim)
// and libaggnet's sim: transport.  One Unix stream socket per PE port; the
// client sends fixed-size requests, the hub answers each with one reply.
//
//   Request, 24 bytes:  u16 magic (kMagic) | u16 op | u32 reserved (0)
//                       | u64 lo | u64 hi            (the value, 128 bits)
//   Reply,   40 bytes:  u32 status (kOk / kErr) | u32 text_len
//                       | u64 lo | u64 hi | u64 cycle | u64 aux
//                       followed by text_len bytes of UTF-8 text (errors only)
//
// All integers are host byte order (the socket never leaves the machine).
// `cycle` is the hub's clock cycle after the operation.  Every register
// operation first advances the hub `cycles_per_access` clock cycles, then
// applies the write or samples the status pins, so simulated time passes only
// while somebody uses a port; an idle hub sleeps in poll().
//
// Register values are exactly those a PC's port registers hold (ppdev's
// PPWDATA, PPWCONTROL, PPRSTATUS): the hub applies the PC's own pin
// inversions itself (sim/pc_port.hpp), libaggnet's LptPort undoes them.
// Data and status carry W = max(N,4)+4 bits (up to 68), so 128 bits.
#pragma once

#include <cstdint>
#include <cstring>

namespace aggnet::vhub {

constexpr uint16_t kMagic = 0xA66E;
constexpr uint32_t kOk = 0;
constexpr uint32_t kErr = 1;
constexpr uint32_t kMaxText = 4096;

enum Op : uint16_t {
    HELLO = 1,    ///< reply: lo = hub PEs N, hi = this port's PE index, aux = cycles per access
    WDATA = 2,    ///< lo/hi = data register value
    WCTRL = 3,    ///< lo = control register value (8 bits)
    RSTATUS = 4,  ///< reply: lo/hi = status register value
    CYCLE = 5,    ///< reply: cycle (no clock advance); lo = this port's op count
    QUIT = 6,     ///< the hub replies, then shuts down
};

struct Request {
    uint16_t magic = kMagic;
    uint16_t op = 0;
    uint32_t reserved = 0;
    uint64_t lo = 0;
    uint64_t hi = 0;
};
static_assert(sizeof(Request) == 24, "vhub request is 24 bytes");

struct Reply {
    uint32_t status = kOk;
    uint32_t text_len = 0;
    uint64_t lo = 0;
    uint64_t hi = 0;
    uint64_t cycle = 0;
    uint64_t aux = 0;
};
static_assert(sizeof(Reply) == 40, "vhub reply is 40 bytes");

inline const char* op_name(uint16_t op) {
    switch (op) {
    case HELLO: return "HELLO";
    case WDATA: return "WDATA";
    case WCTRL: return "WCTRL";
    case RSTATUS: return "RSTATUS";
    case CYCLE: return "CYCLE";
    case QUIT: return "QUIT";
    default: return "?";
    }
}

}  // namespace aggnet::vhub
