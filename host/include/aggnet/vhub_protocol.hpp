// vhub_protocol.hpp: the wire protocol between the virtual hub (aggnet-sim)
// and libaggnet's sim: transport.  One Unix stream socket per PE port; the
// client sends fixed-size requests, the hub answers each with one reply, in
// order.
//
//   Request, 48 bytes:  u16 magic (kMagic) | u16 op | u32 seq | u32 wait_ms
//                       | u32 reserved (0) | u64 lo | u64 hi | u64 mlo | u64 mhi
//   Reply,   48 bytes:  u32 status (kOk / kErr) | u32 text_len | u32 seq
//                       | u32 reserved (0) | u64 lo | u64 hi | u64 cycle | u64 aux
//                       followed by text_len bytes of UTF-8 text (errors only)
//
// All integers are host byte order (the socket never leaves the machine).
// `seq` is the client's request number (from 1), echoed in the reply, so a
// client can tell a reply from a stale one; an error reply with seq 0 is sent
// before any request was read (a port that is taken) and ends the connection.  `cycle` is the hub's clock cycle after the
// operation.  Every register operation first advances the hub
// `cycles_per_access` clock cycles, then applies the write or samples the
// status pins, so simulated time passes only while somebody uses a port (or
// waits on one, see WAIT); an idle hub sleeps in poll().
//
// WAIT is how a client waits without polling: value (lo/hi) is the status the
// client last saw, mask (mlo/mhi) the bits it watches.  The hub samples the
// status like RSTATUS; if (status ^ value) & mask is non-zero it replies at
// once, otherwise it parks the request and replies as soon as a watched bit
// changes (after any client's operation, or while the hub runs its clock on
// its own for parked waiters: see aggnet-sim), or after wait_ms milliseconds
// of wall time with the then current status (aux = 1: timed out).  A parked
// WAIT is the only request outstanding on its connection.
//
// A malformed request (bad magic, unknown op, reserved bits set) gets an
// error reply naming what was wrong, and the hub closes that connection: a
// byte stream that lost its framing cannot be trusted again.  A well-formed
// request with a bad value (wider than the register) gets an error reply and
// the connection carries on.
//
// Register values are exactly those a PC's port registers hold (ppdev's
// PPWDATA, PPWCONTROL, PPRSTATUS): the hub applies the PC's own pin
// inversions itself (sim/pc_port.hpp), libaggnet's LptPort undoes them.
// Data and status carry W = max(N,4)+4 bits (up to 68), so 128 bits.
#pragma once

#include <cstdint>
#include <cstring>

namespace aggnet::vhub {

constexpr uint16_t kMagic = 0xA66F;  ///< 0xA66E was the 24-byte protocol without seq / WAIT
constexpr uint32_t kOk = 0;
constexpr uint32_t kErr = 1;
constexpr uint32_t kMaxText = 4096;
constexpr uint32_t kMaxWaitMs = 3600u * 1000u;  ///< one hour, the longest a WAIT may park

enum Op : uint16_t {
    HELLO = 1,    ///< reply: lo = hub PEs N, hi = this port's PE index, aux = cycles per access
    WDATA = 2,    ///< lo/hi = data register value
    WCTRL = 3,    ///< lo = control register value (8 bits)
    RSTATUS = 4,  ///< reply: lo/hi = status register value
    CYCLE = 5,    ///< reply: cycle (no clock advance); lo = this port's op count
    QUIT = 6,     ///< the hub replies, then shuts down
    WAIT = 7,     ///< reply: lo/hi = status, aux = 1 if wait_ms passed without a change
};

struct Request {
    uint16_t magic = kMagic;
    uint16_t op = 0;
    uint32_t seq = 0;
    uint32_t wait_ms = 0;
    uint32_t reserved = 0;
    uint64_t lo = 0;
    uint64_t hi = 0;
    uint64_t mlo = 0;
    uint64_t mhi = 0;
};
static_assert(sizeof(Request) == 48, "vhub request is 48 bytes");

struct Reply {
    uint32_t status = kOk;
    uint32_t text_len = 0;
    uint32_t seq = 0;
    uint32_t reserved = 0;
    uint64_t lo = 0;
    uint64_t hi = 0;
    uint64_t cycle = 0;
    uint64_t aux = 0;
};
static_assert(sizeof(Reply) == 48, "vhub reply is 48 bytes");

inline const char* op_name(uint16_t op) {
    switch (op) {
    case HELLO: return "HELLO";
    case WDATA: return "WDATA";
    case WCTRL: return "WCTRL";
    case RSTATUS: return "RSTATUS";
    case CYCLE: return "CYCLE";
    case QUIT: return "QUIT";
    case WAIT: return "WAIT";
    default: return "?";
    }
}

}  // namespace aggnet::vhub
