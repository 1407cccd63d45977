// link_client.hpp: the host end of the link (docs/link.md): stop-and-wait
// per PE over one byte pipe, with sequence numbers, resend on timeout and a
// bounded number of attempts (Hall's COP channel, seed 004 chapter IV: the
// node keeps a command until it is acknowledged, resends it, and traps after
// some number of failed attempts; the deadlock timer is the resend timeout).
//
// Pure logic: the byte pipe and its clock are injected (LinkPipe), so the
// same code runs over a serial line, a socket, a Verilated link_port or a
// fake that loses everything.
//
//   LinkClient c(pipe, "serial:/dev/ttyUSB1@3000000");
//   c.write(3, 0x1004, 0x2a, 1);             // PE 3, one byte
//   uint32_t v = c.read(3, 0x1005, 1);
//   v = c.wait(3, 0x1005, 0x80, 0x80, 1, std::chrono::seconds(1));
//
// Blocking calls throw LinkError (no reply after cfg.max_attempts frames,
// resend_timeout apart or backing off to resend_timeout_max,
// naming device, PE, op and address), RegisterError (the hub answered ERR),
// TimeoutError (a WAIT's condition did not hold in time, or a CALL did not
// finish; the hub keeps the WAIT until the next command for that PE cancels
// it, the engine keeps a CALL's operation until the engine's own cancel) or DeviceError (HELLO
// reports another protocol version, or the PE is not served by this port).
//
// The non-blocking interface (start_*, feed, poll, done, take) lets one
// thread drive several PEs at once; the blocking calls are built on it.
// Before a PE's first command the client sends HELLO for that PE (HELLO is
// never a duplicate, so it aligns the hub's sequence state with ours).
// Not thread-safe: one LinkClient per thread, or a lock around it.
#pragma once

#include <aggnet/error.hpp>
#include <aggnet/link_frame.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace aggnet::link {

/// A byte stream with a clock.  send() takes whole frames.
class LinkPipe {
public:
    virtual ~LinkPipe() = default;
    virtual void send(const uint8_t* data, size_t n) = 0;
    /// Wait until at least one byte is available or now() >= until; store up
    /// to cap bytes and return how many (0: the deadline passed).
    virtual size_t recv(uint8_t* buf, size_t cap, std::chrono::nanoseconds until) = 0;
    /// The clock all deadlines are measured on.
    virtual std::chrono::nanoseconds now() = 0;
};

struct LinkConfig {
    /// Resend a frame when no reply came for this long (also the keep-alive
    /// period of a pending WAIT).  Must exceed one round trip including the
    /// replies of every other PE queued on the same stream.
    std::chrono::nanoseconds resend_timeout = std::chrono::milliseconds(20);
    /// Back off: each unanswered resend doubles the wait before the next,
    /// up to this bound (zero, or anything <= resend_timeout: no backoff,
    /// every resend resend_timeout after the last).  A sign of life from the
    /// hub starts again at resend_timeout.  Backoff keeps several PEs from
    /// flooding a hub that is slow for a while (a loaded host running the
    /// virtual hub) with resends it must answer one by one.
    std::chrono::nanoseconds resend_timeout_max{0};
    /// Frames sent for one command (1 + resends) before it fails with LinkError.
    unsigned max_attempts = 5;
    /// ERR STALE answers to one command (the hub's sequence state for the
    /// PE is not ours: the host says HELLO and sends the command again, which
    /// is safe because a stale frame is never applied) before it fails with
    /// LinkError.  docs/link.md, "Exactly once", rules 2 and 4.
    unsigned max_stale = 3;
    /// Drop a partial received frame after this long without a byte.
    std::chrono::nanoseconds idle_timeout = std::chrono::milliseconds(5);

    /// How long a command goes unanswered before it fails: the sum of the
    /// max_attempts resend intervals, backoff included.
    std::chrono::nanoseconds give_up_time() const {
        std::chrono::nanoseconds t{0}, step = resend_timeout;
        for (unsigned i = 0; i < (max_attempts ? max_attempts : 1); ++i) {
            t += step;
            if (step < resend_timeout_max) step = std::min(step * 2, resend_timeout_max);
        }
        return t;
    }
};

/// What HELLO_R reports (docs/link.md, HELLO_R payload).
struct HelloInfo {
    unsigned version = 0, hub_pes = 0, first_pe = 0, port_pes = 0;
    uint16_t engines = 0;
    uint64_t clk_hz = 0;
};

/// The outcome of one command.
struct LinkResult {
    enum Kind { ok, hub_error, link_error, timeout, bad_version } kind = ok;
    uint8_t op = 0;            ///< the request's op
    uint16_t addr = 0;
    uint32_t value = 0;        ///< DATA value (READ, WAIT)
    uint64_t result = 0;       ///< RESULT value (CALL), right-aligned
    unsigned result_len = 0;   ///< RESULT bytes (CALL), 0..8
    uint8_t err = 0;           ///< ERR code (hub_error)
    unsigned attempts = 0;     ///< frames sent for the command
    HelloInfo hello{};         ///< for HELLO
    std::string message;       ///< for every kind but ok
};

struct ClientStats {
    uint64_t frames_sent = 0;
    uint64_t resends = 0;       ///< frames sent again (timeouts and keep-alives)
    uint64_t replies = 0;       ///< replies that matched an outstanding command
    uint64_t stale = 0;         ///< replies ignored (old seq, duplicate, wrong op)
    uint64_t resyncs = 0;       ///< ERR STALE for an outstanding frame: HELLO again
};

class LinkClient {
public:
    LinkClient(LinkPipe& pipe, std::string device, LinkConfig cfg = {});

    // ---- blocking calls -------------------------------------------------
    HelloInfo hello(unsigned pe);
    uint32_t read(unsigned pe, uint16_t addr, unsigned size);
    void write(unsigned pe, uint16_t addr, uint32_t value, unsigned size);
    /// Wait until (reg & mask) == value (size bytes); returns the register.
    uint32_t wait(unsigned pe, uint16_t addr, uint32_t mask, uint32_t value, unsigned size,
                  std::chrono::nanoseconds timeout);
    /// CALL (docs/link.md rule 8): hand `len` operand bytes (0..8, the value
    /// right-aligned) to an engine's CALL register and return its RESULT
    /// once the engine has finished.  A TimeoutError leaves the operation
    /// running in the engine: cancel it through the engine.
    struct CallResult {
        uint64_t value = 0;
        unsigned len = 0;
    };
    CallResult call(unsigned pe, uint16_t addr, uint64_t operands, unsigned len, std::chrono::nanoseconds timeout);
    /// The second half of call() for a CALL begun with start_call (the
    /// caller worked in between): drives the pipe until it has finished and
    /// throws as call() does.
    CallResult finish_call(unsigned pe);

    // ---- non-blocking interface -------------------------------------------
    /// Start a command; the PE must not be busy.  Arguments are checked here
    /// (size 1..4, value within size, value within mask, pe 0..63).
    void start_hello(unsigned pe);
    void start_read(unsigned pe, uint16_t addr, unsigned size);
    void start_write(unsigned pe, uint16_t addr, uint32_t value, unsigned size);
    /// `deadline` is absolute, on pipe.now().
    void start_wait(unsigned pe, uint16_t addr, uint32_t mask, uint32_t value, unsigned size,
                    std::chrono::nanoseconds deadline);
    void start_call(unsigned pe, uint16_t addr, uint64_t operands, unsigned len, std::chrono::nanoseconds deadline);
    /// Received bytes from the pipe.
    void feed(const uint8_t* data, size_t n);
    /// Resend, fail and expire on the clock; returns the earliest deadline
    /// still pending (or now + resend_timeout when nothing is).
    std::chrono::nanoseconds poll();
    bool busy(unsigned pe) const { return pes_.at(pe).active; }
    bool done(unsigned pe) const { return pes_.at(pe).finished; }
    /// The finished command's result; the PE is then free for the next one.
    LinkResult take(unsigned pe);

    const ClientStats& stats() const { return stats_; }
    const DecoderStats& rx_stats() const { return dec_.stats(); }
    const std::string& device() const { return device_; }
    /// The pipe's clock, on which start_*'s deadlines are measured.
    std::chrono::nanoseconds now() { return pipe_.now(); }
    const LinkConfig& config() const { return cfg_; }
    /// The last HELLO_R seen (port_pes == 0 before any).
    const HelloInfo& port_info() const { return info_; }

private:
    struct Pe {
        bool active = false;     ///< a command is in progress (not yet taken)
        bool finished = false;   ///< result is ready
        bool synced = false;     ///< HELLO done: the hub's seq state is ours
        bool in_hello = false;   ///< the frame in flight is the automatic HELLO
        bool accepted = false;   ///< WAIT or CALL: ACK seen
        unsigned stale_answers = 0;  ///< ERR STALE answers to this command
        uint8_t seq = 0;         ///< seq of the frame in flight
        uint8_t next_seq = 0;
        Frame req{};             ///< the user's command
        Frame inflight{};        ///< what is on the wire (req, or the HELLO before it)
        std::vector<uint8_t> bytes;
        unsigned attempts = 0;   ///< frames sent for inflight since the last sign of life
        unsigned total = 0;      ///< frames sent for the command
        std::chrono::nanoseconds resend_at{};
        std::chrono::nanoseconds interval{};  ///< wait before the next resend
        std::chrono::nanoseconds first_sent{};  ///< when attempts was 1
        std::chrono::nanoseconds wait_deadline{};
        bool has_deadline = false;
        LinkResult result{};
    };
    void begin(unsigned pe, const Frame& f, bool has_deadline, std::chrono::nanoseconds deadline);
    void send_inflight(Pe& p, bool resend);
    void alive(Pe& p);  ///< a sign of life: start the resend count and interval again
    void launch(unsigned pe, const Frame& f);
    void finish(Pe& p, LinkResult r);
    void on_frame(const Frame& f);
    LinkResult run(unsigned pe);
    std::string where(unsigned pe, const Frame& f) const;

    LinkPipe& pipe_;
    std::string device_;
    LinkConfig cfg_;
    Decoder dec_;
    std::array<Pe, 64> pes_{};
    ClientStats stats_{};
    HelloInfo info_{};
    std::chrono::nanoseconds last_byte_{};
};

}  // namespace aggnet::link
