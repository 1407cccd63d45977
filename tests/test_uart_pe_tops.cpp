// The board configurations with one UART per PE (issue 24: fw/<board>_uart/
// top.v, rtl/hub/aggnet_mux_hub.v, docs/link_mux.md), Verilated whole with
// the PLL model of rtl/common/pll.v (the oscillator pin is the hub clock)
// and their power-on reset, so that what is tested is each top's wiring:
//
//   * every stream driven bit by bit: 8N1 on its pe_rx pin at the stream's
//     own baud (the top's BAUD, FAST_BAUD for PEs below FAST_STREAMS: mixed
//     rates on one board), its pe_tx pin sampled mid-bit back into bytes
//     (every bit exactly one bit time long: no framing error anywhere);
//   * one libaggnet LinkClient per PE on its own pins, and on it the PAPERS
//     API (Papers over LinkPapersPort) on the PE's own thread, as one
//     computer per cable;
//   * barriers and waitvec exact against the reference: the data vector of
//     every round is the D bits the PEs of the mask chose (bit k = PE k's),
//     drawn from the printed seed;
//   * faults on four streams at once: a babbling stream, a stream sending
//     good frames for another PE (every one refused and counted in the
//     mux's BIND counter, read over the link in the INFO window, nothing
//     applied), a stream with 10% of its frames damaged each way (its PE
//     still finishes every barrier exactly), and a stream that goes silent
//     in the middle of a barrier: after the keep-alive bound it is absent
//     (INFO MUX_ABSENT, PAPERS PRESENT), the survivors' waits time out
//     naming it, and it rejoins with HELLO (and a CANCEL of the barrier it
//     left behind) and barriers with them again;
//   * the well-behaved PEs lose nothing (every round exact) and are not
//     delayed beyond their own frames: measured on the hub's clock, from the
//     last SYNC request's stop bit to the first PE's result start bit, no
//     round of theirs takes longer under the faults than the clean run's
//     longest plus one longest frame of every other stream
//     (docs/link_mux.md, Forwarding);
//   * `aggnet board-check` of every stream (board_check::check_streams) on
//     the board with the fewest streams: a sound board passes every check,
//     its counters wrapping at CNT_W on the way; cables swapped between two
//     streams are named with the BIND count on the stream each is on (every
//     frame of the probe); a header cable on the USB UART, an unplugged
//     cable, a broken hub -> PE wire and a stream damaging 10% of its
//     frames each fail naming the stream and the counters that show it.
//
// Time is the hub's clock (cycles x ns per cycle): the threads' deadlines,
// resends and timeouts are all simulated time, as in sim/link_hub.hpp.
#include "harness.hpp"
#include "link_util.hpp"
#include "pe_threads.hpp"
#include "seed.hpp"
#include "shared_clock.hpp"
#include "test_board_tops_boards.hpp"  // generated: AGGNET_BOARD_TOPS(X, P)

#include <aggnet/board_check.hpp>
#include <aggnet/error.hpp>
#include <aggnet/link_client.hpp>
#include <aggnet/link_defs.hpp>
#include <aggnet/link_frame.hpp>
#include <aggnet/link_papers.hpp>
#include <aggnet/papers.hpp>
#include <aggnet/papers_regs.hpp>
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdio>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

using namespace aggnet;
using std::chrono::nanoseconds;
namespace D = aggnet::link_defs;
namespace R = aggnet::papers_regs;

namespace {

template <class M, class = void>
struct has_pe_rx : std::false_type {};
template <class M>
struct has_pe_rx<M, std::void_t<decltype(std::declval<M&>().pe_rx)>> : std::true_type {};
template <class M, class = void>
struct has_btn_n : std::false_type {};
template <class M>
struct has_btn_n<M, std::void_t<decltype(std::declval<M&>().btn_n)>> : std::true_type {};
template <class M, class = void>
struct has_btn_fire1 : std::false_type {};
template <class M>
struct has_btn_fire1<M, std::void_t<decltype(std::declval<M&>().btn_fire1)>> : std::true_type {};

using Params = std::map<std::string, long>;

template <class T>
void set_field(T& field, uint64_t v) {
    field = static_cast<std::decay_t<T>>(v);
}

/// One UART line seen from the far end of the cable: bytes out as 8N1 bits
/// at `baud` on the hub's clock (host -> hub), and the hub's line sampled
/// mid-bit back into bytes (hub -> host).
struct Line {
    uint64_t hz = 1, baud = 1;
    // host -> hub: (byte, tag) queue; a tagged byte records when its stop bit ends
    std::deque<std::pair<uint8_t, bool>> q;
    bool busy = false, tagged = false;
    uint64_t start = 0;
    uint16_t bits = 0;
    uint64_t tag_done = UINT64_MAX;  // cycle the last tagged byte's stop bit ended
    int level(uint64_t cyc) {
        if (busy && (cyc - start) * baud >= 10 * hz) {
            busy = false;
            if (tagged) tag_done = cyc;
        }
        if (!busy) {
            if (q.empty()) return 1;
            busy = true;
            start = cyc;
            bits = uint16_t(uint16_t(q.front().first) << 1 | 0x200);
            tagged = q.front().second;
            q.pop_front();
        }
        return (bits >> ((cyc - start) * baud / hz)) & 1;
    }
    // hub -> host
    bool rbusy = false;
    int last = 1;
    uint64_t rstart = 0;
    unsigned rbit = 0;
    uint8_t rbyte = 0;
    uint64_t ferr = 0;
    /// Feeds the line level of cycle cyc; true with a byte (started at `began`).
    bool sample(int line, uint64_t cyc, uint8_t& out, uint64_t& began) {
        bool got = false;
        if (!rbusy) {
            if (last == 1 && line == 0) {
                rbusy = true;
                rstart = cyc;
                rbit = 0;
                rbyte = 0;
            }
        } else if (cyc >= rstart + ((2 * rbit + 1) * hz) / (2 * baud)) {
            if (rbit == 0 && line != 0) {
                rbusy = false;  // a glitch, not a start bit
            } else if (rbit >= 1 && rbit <= 8) {
                rbyte = uint8_t(rbyte | (line << (rbit - 1)));
            } else if (rbit == 9) {
                rbusy = false;
                if (line) {
                    out = rbyte;
                    began = rstart;
                    got = true;
                } else {
                    ++ferr;
                }
            }
            ++rbit;
        }
        last = line;
        return got;
    }
};

/// A Verilated UART-PE board top, its lines 0..H-1 on pe_rx/pe_tx and line H on
/// uart_rx/uart_tx (the USB stream).
class UartTop {
public:
    virtual ~UartTop() = default;
    virtual void tick() = 0;
    virtual uint64_t cycle() const = 0;
    std::vector<Line> lines;
    /// Bytes that came out of the hub in the last tick: (line, byte, start cycle).
    std::vector<std::tuple<unsigned, uint8_t, uint64_t>> got;
};

template <class V>
class UartTopOf final : public UartTop {
public:
    UartTopOf(const std::string& board, const Params& p, uint64_t max_cycles) : h_(board + "_top", max_cycles) {
        const unsigned h = unsigned(p.at("H"));
        const uint64_t hz = uint64_t(p.at("HUB_KHZ")) * 1000;
        lines.resize(h + 1);
        for (unsigned k = 0; k <= h; ++k) {
            lines[k].hz = hz;
            lines[k].baud = uint64_t(k == h ? p.at("USB_BAUD") : k < unsigned(p.at("FAST_STREAMS")) ? p.at("FAST_BAUD")
                                                                                               : p.at("BAUD"));
        }
        if constexpr (has_btn_n<V>::value) h_->btn_n = 1;
        if constexpr (has_btn_fire1<V>::value) h_->btn_fire1 = 0;
        set_field(h_->pe_rx, ~uint64_t(0));
        h_->uart_rx = 1;
        for (unsigned i = 0; i < 64; ++i) tick();  // the por's reset
    }
    void tick() override {
        const uint64_t cyc = h_.cycle();
        const unsigned h = unsigned(lines.size() - 1);
        uint64_t rx = 0;
        for (unsigned k = 0; k < h; ++k) rx |= uint64_t(lines[k].level(cyc)) << k;
        set_field(h_->pe_rx, rx);
        h_->uart_rx = uint8_t(lines[h].level(cyc));
        h_.tick();
        got.clear();
        const uint64_t tx = uint64_t(h_->pe_tx);
        for (unsigned k = 0; k <= h; ++k) {
            const int lvl = k < h ? int((tx >> k) & 1) : int(h_->uart_tx);
            uint8_t b;
            uint64_t began;
            if (lines[k].sample(lvl, cyc, b, began)) got.emplace_back(k, b, began);
        }
    }
    uint64_t cycle() const override { return h_.cycle(); }

private:
    sim::Harness<V> h_;
};

/// Frame-level damage (seeded): each frame is dropped or has one bit flipped
/// with probability percent/100.
struct Damage {
    unsigned percent = 0;
    std::mt19937_64 rng{1};
    uint64_t damaged = 0;
    bool apply(std::vector<uint8_t>& f) {
        if (!percent || rng() % 100 >= percent) return true;
        ++damaged;
        if (rng() % 2 == 0 || f.size() < 2) return false;
        f[1 + rng() % (f.size() - 1)] ^= uint8_t(1u << (rng() % 8));
        return true;
    }
};

/// The top shared by PE threads, one LinkPipe endpoint per stream, on the
/// hub's clock (the scheme of sim/link_hub.hpp, with a stream per PE).
class MuxHub {
public:
    using Mutex = sim::SharedClock::Mutex;
    struct Stream {
        std::deque<uint8_t> out;   // hub -> host bytes for the endpoint
        std::vector<uint8_t> raw;  // the frame coming out of the hub
        uint64_t raw_start = 0;
        link::Decoder dec;
        Damage up, down;
        bool cut = false;          // cable unplugged: nothing either way
        bool cut_after_sync = false;  // unplug right after the next SYNC CALL
        bool babble = false;
        // SYNC requests and results on the hub's clock (the first copy of each)
        bool req_open = false;
        uint8_t req_seq = 0;
        std::vector<uint64_t> req_end, res_start;
    };

    MuxHub(std::unique_ptr<UartTop> top, uint64_t ns_per_cycle, uint64_t seed)
        : top_(std::move(top)), ns_(ns_per_cycle), rng_(seed) {
        s_.resize(top_->lines.size());
        for (unsigned k = 0; k < s_.size(); ++k) {
            s_[k].up.rng.seed(seed ^ (k * 7919 + 1));
            s_[k].down.rng.seed(seed ^ (k * 7919 + 2));
            eps_.push_back(std::make_unique<Endpoint>(*this, k));
        }
        eps_.push_back(std::make_unique<Endpoint>(*this, unsigned(s_.size())));  // the clock
    }

    class Endpoint final : public link::LinkPipe {
    public:
        Endpoint(MuxHub& hub, unsigned k) : hub_(hub), k_(k) {}
        void send(const uint8_t* data, size_t n) override {
            std::lock_guard<Mutex> lk(hub_.mu());
            if (k_ >= hub_.s_.size()) return;
            Stream& s = hub_.s_[k_];
            if (s.cut) return;
            std::vector<uint8_t> f(data, data + n);
            link::Decoder d;
            bool sync = false;
            uint8_t seq = 0;
            for (uint8_t b : f)
                if (d.push(b)) {
                    sync = d.frame().op == D::OP_CALL && d.frame().addr == (D::WIN_PAPERS << 12 | R::W_SYNC);
                    seq = d.frame().seq;
                }
            if (!s.up.apply(f)) return;
            Line& l = hub_.top_->lines[k_];
            for (size_t i = 0; i < f.size(); ++i) l.q.emplace_back(f[i], sync && !s.req_open && i + 1 == f.size());
            if (sync && !s.req_open) {
                s.req_open = true;
                s.req_seq = seq;
                l.tag_done = UINT64_MAX;
            }
            if (sync && s.cut_after_sync) s.cut = true;
        }
        size_t recv(uint8_t* buf, size_t cap, nanoseconds until) override {
            std::unique_lock<Mutex> lk(hub_.mu());
            auto ready = [&] { return k_ < hub_.s_.size() && !hub_.s_[k_].out.empty(); };
            if (!hub_.clock_.wait(lk, k_, until, [&] { return hub_.now_locked(); }, ready,
                                  [&](const auto& wake) { hub_.tick_locked(wake); }))
                return 0;
            auto& q = hub_.s_[k_].out;
            const size_t k = std::min(cap, q.size());
            std::copy(q.begin(), q.begin() + long(k), buf);
            q.erase(q.begin(), q.begin() + long(k));
            return k;
        }
        nanoseconds now() override {
            std::lock_guard<Mutex> lk(hub_.mu());
            return hub_.now_locked();
        }

    private:
        MuxHub& hub_;
        unsigned k_;
    };

    Endpoint& endpoint(unsigned k) { return *eps_.at(k); }
    /// Sleeps (simulated time) on the clock endpoint.
    void sleep(nanoseconds d) {
        Endpoint& c = *eps_.back();
        const auto until = c.now() + d;
        uint8_t buf[8];
        while (c.now() < until) c.recv(buf, sizeof buf, until);
    }
    /// Waits (simulated time, at most `limit`) until cond() holds under the lock.
    bool until(const std::function<bool()>& cond, nanoseconds limit, nanoseconds step) {
        const auto end = eps_.back()->now() + limit;
        for (;;) {
            {
                std::lock_guard<Mutex> lk(mu());
                if (cond()) return true;
            }
            if (eps_.back()->now() >= end) return false;
            sleep(step);
        }
    }
    std::unique_lock<Mutex> guard() { return std::unique_lock<Mutex>(mu()); }
    Stream& stream(unsigned k) { return s_.at(k); }  // under guard()
    UartTop& top() { return *top_; }
    uint64_t cycle() {
        std::lock_guard<Mutex> lk(mu());
        return top_->cycle();
    }

private:
    nanoseconds now_locked() const { return nanoseconds(top_->cycle() * ns_); }
    /// One hub cycle; wake(k) when it hands bytes to stream k.
    template <class Wake>
    void tick_locked(const Wake& wake) {
        for (unsigned k = 0; k < s_.size(); ++k) {
            Stream& s = s_[k];
            Line& l = top_->lines[k];
            if (s.babble && l.q.size() < 2) l.q.emplace_back(test::spicy_byte(rng_), false);
            if (s.req_open && l.tag_done != UINT64_MAX && s.req_end.size() == s.res_start.size()) {
                s.req_end.push_back(l.tag_done);
                l.tag_done = UINT64_MAX;
            }
        }
        top_->tick();
        for (auto& [k, b, began] : top_->got) {
            Stream& s = s_[k];
            if (b == D::FLAG && !s.dec.in_frame()) s.raw.clear(), s.raw_start = began;
            s.raw.push_back(b);
            if (!s.dec.push(b)) continue;
            const link::Frame& f = s.dec.frame();
            if (f.op == D::OP_RESULT && f.addr == (D::WIN_PAPERS << 12 | R::W_SYNC) && s.req_open && f.seq == s.req_seq &&
                s.req_end.size() == s.res_start.size() + 1) {
                s.res_start.push_back(s.raw_start);
                s.req_open = false;
            }
            std::vector<uint8_t> bytes = s.raw;
            s.raw.clear();
            if (!s.cut && s.down.apply(bytes)) {
                s.out.insert(s.out.end(), bytes.begin(), bytes.end());
                wake(k);
            }
        }
    }

    Mutex& mu() { return clock_.mutex(); }
    sim::SharedClock clock_;
    std::unique_ptr<UartTop> top_;
    uint64_t ns_;
    std::mt19937_64 rng_;
    std::vector<Stream> s_;
    std::vector<std::unique_ptr<Endpoint>> eps_;
};

using Factory = std::function<std::unique_ptr<UartTop>(uint64_t max_cycles)>;
using BoardFn = std::function<void(const std::string&, const Params&, const Factory&)>;

bool board_selected(const std::string& b) {
    const char* env = std::getenv("AGGNET_BOARDS");
    if (!env || !*env) return true;
    return ("," + std::string(env) + ",").find("," + b + ",") != std::string::npos;
}
template <class V>
void run_board(const char* b, const Params& p, const BoardFn& fn) {
    if constexpr (has_pe_rx<V>::value)
        fn(b, p, [&](uint64_t mc) { return std::unique_ptr<UartTop>(new UartTopOf<V>(b, p, mc)); });
}
/// Every UART-PE board of tools/boards/ (or those named in AGGNET_BOARDS).
unsigned for_each_uart_board(const BoardFn& fn) {
    unsigned n = 0;
#define AGGNET_P(k, v) p[#k] = long(v)
#define AGGNET_X(b, V, ...)                                                                       \
    if (has_pe_rx<V>::value && board_selected(#b)) {                                              \
        Params p;                                                                                 \
        (void)(__VA_ARGS__);                                                                      \
        ++n;                                                                                      \
        run_board<V>(#b, p, fn);                                                                  \
    }
    AGGNET_BOARD_TOPS(AGGNET_X, AGGNET_P)
#undef AGGNET_X
#undef AGGNET_P
    return n;
}

uint64_t ns_per_cycle(const Params& p) { return uint64_t((1000000 + p.at("HUB_KHZ") / 2) / p.at("HUB_KHZ")); }
uint64_t baud_of(const Params& p, unsigned k) {
    return uint64_t(k == unsigned(p.at("H")) ? p.at("USB_BAUD")
                    : k < unsigned(p.at("FAST_STREAMS")) ? p.at("FAST_BAUD")
                                                         : p.at("BAUD"));
}
/// A client of one PE on its own stream: resends after 600 bit times of the
/// stream (well inside the hub's keep-alive bound of the simulation), so a
/// waiting PE keeps its stream present.
link::LinkConfig cfg(const Params& p, unsigned k) {
    const auto bit = nanoseconds(1000000000LL / int64_t(baud_of(p, k)));
    link::LinkConfig c;
    c.resend_timeout = bit * 600;
    c.max_attempts = 12;
    c.idle_timeout = bit * 200;
    return c;
}
std::string device(const std::string& board, const Params& p, unsigned k) {
    return "serial:" + board + "-pe" + std::to_string(k) + "@" + std::to_string(baud_of(p, k));
}
/// Cycles one other stream's frame may hold a PE's frame back at the mux:
/// the longest frame (one a cycle), the forwarding gap, and link_port's
/// turn-around until it takes the next frame (rx_held).
constexpr uint64_t FRAME_TURN = D::MAX_FRAME + 8 + 60;
uint16_t info(uint16_t reg) { return uint16_t(D::WIN_INFO << 12 | reg); }
uint16_t mux_count(unsigned k, unsigned i) { return info(uint16_t(D::INFO_MUX_COUNT + 8 * k + i)); }

/// The keep-alive bound of the simulation: rtl/hub/manifest.json's board_args
/// -GKEEPALIVE (a top's `parameter integer KEEPALIVE`), in hub cycles.
constexpr uint64_t KEEPALIVE_SIM = 100000;
uint64_t keepalive(const Params&) { return KEEPALIVE_SIM; }

/// PE pe's D in round r (seeded).
bool flag_of(uint64_t seed, unsigned pe, unsigned r) {
    std::mt19937_64 g(seed ^ (uint64_t(pe) << 32) ^ r);
    return g() & 1;
}
uint64_t expected_vec(uint64_t seed, uint64_t mask, unsigned r) {
    uint64_t v = 0;
    for (unsigned q = 0; q < 64; ++q)
        if ((mask >> q) & 1 && flag_of(seed, q, r)) v |= uint64_t(1) << q;
    return v;
}

/// Round latencies of a group on the hub's clock: for round r, the first
/// result start bit of any PE of the group after the last SYNC request's
/// stop bit (the last arrival's own wait).
std::vector<uint64_t> group_latency(MuxHub& hub, uint64_t mask, unsigned from, unsigned rounds) {
    auto lk = hub.guard();
    std::vector<uint64_t> out;
    for (unsigned r = from; r < from + rounds; ++r) {
        uint64_t last_req = 0, first_res = UINT64_MAX;
        for (unsigned k = 0; k < 64; ++k) {
            if (!((mask >> k) & 1)) continue;
            const auto& s = hub.stream(k);
            if (r >= s.res_start.size()) return {};
            last_req = std::max(last_req, s.req_end[r]);
            first_res = std::min(first_res, s.res_start[r]);
        }
        out.push_back(first_res > last_req ? first_res - last_req : 0);
    }
    return out;
}

}  // namespace

TEST_CASE("UART-PE board tops: HELLO and INFO on every PE's own pins and on the USB UART", "[boards][uartpe]") {
    const unsigned n = for_each_uart_board([](const std::string& board, const Params& p, const Factory& make) {
        const unsigned h = unsigned(p.at("H"));
        INFO(board << ": H " << h << ", HUB_KHZ " << p.at("HUB_KHZ"));
        MuxHub hub(make(40'000'000), ns_per_cycle(p), 1);
        for (unsigned k = 0; k <= h; ++k) {
            const unsigned pe = k < h ? k : h - 1;  // the USB stream speaks for any PE
            INFO("stream " << k << " as PE" << pe << " at " << baud_of(p, k) << " baud");
            link::LinkClient c(hub.endpoint(k), device(board, p, k), cfg(p, k));
            const link::HelloInfo hi = c.hello(pe);
            CHECK(hi.hub_pes == unsigned(p.at("N")));
            CHECK(hi.clk_hz == uint64_t(p.at("HUB_KHZ")) * 1000);
            CHECK(c.read(pe, info(D::INFO_MUX_STREAMS), 4) == h + 1);
            CHECK(c.read(pe, info(D::INFO_MUX_CNT_W), 4) == unsigned(p.at("CNT_W")));
            CHECK(c.read(pe, info(D::INFO_MUX_USB_ANY), 4) == 1);
            // this stream has spoken and is present; those after it have not (yet)
            const uint32_t absent = c.read(pe, info(D::INFO_MUX_ABSENT), 4);
            CHECK(((absent >> k) & 1) == 0);
            if (k < h) CHECK(absent >> (k + 1) == ((1u << (h - k)) - 1));
            const uint32_t frames = c.read(pe, mux_count(k, D::MUX_FRAMES), 2);
            CHECK(frames == c.stats().frames_sent);
            CHECK(c.read(pe, mux_count(k, D::MUX_BIND), 2) == 0);
        }
        link::LinkClient c(hub.endpoint(0), device(board, p, 0), cfg(p, 0));
        // a stream past the last, and a counter past the fifth, answer NO_REG
        CHECK_THROWS_AS(c.read(0, mux_count(h + 1, 0), 2), RegisterError);
        CHECK_THROWS_AS(c.read(0, mux_count(0, D::MUX_COUNTERS), 2), RegisterError);
        auto lk = hub.guard();
        for (unsigned k = 0; k <= h; ++k) CHECK(hub.top().lines[k].ferr == 0);
    });
    CHECK(n >= 1);
}

namespace {

struct RunResult {
    std::vector<uint64_t> lat_a;  ///< group A's round latencies (cycles)
};

/// Barriers of every PE on its own thread.  Group A: mask_a, rounds_a
/// rounds; with `faults`, streams 2 (babbling), 3 (frames for PE 0), 4
/// (10% damaged), 5 (silent in a barrier of group B = {1, 4, 5}); else group B
/// = every other PE, as many rounds.
RunResult barrier_run(const std::string& board, const Params& p, const Factory& make, uint64_t seed, bool faults,
                      unsigned rounds) {
    const unsigned h = unsigned(p.at("H"));
    const uint64_t cnt_mask = (uint64_t(1) << p.at("CNT_W")) - 1;  // the mux's counters wrap at CNT_W bits
    REQUIRE((h >= 8 || !faults));
    const uint64_t all = (uint64_t(1) << h) - 1;
    const uint64_t mask_b = all & (faults ? 0x32 : 0xaa);  // {1, 4, 5} or the odd PEs
    const uint64_t mask_a = faults ? all & ~uint64_t(0x3e) : all & ~uint64_t(0xaa);
    const uint64_t ka = keepalive(p);
    MuxHub hub(make(400'000'000), ns_per_cycle(p), seed);
    const nanoseconds cyc(ns_per_cycle(p));
    // A barrier round takes a few frames; a timeout well past the keep-alive bound.
    const nanoseconds to = cyc * (ka * 4);
    if (faults) {
        auto lk = hub.guard();
        hub.stream(2).babble = true;
        hub.stream(4).up.percent = hub.stream(4).down.percent = 10;
    }
    std::atomic<unsigned> survivors_out{0};
    std::atomic<bool> rejoined{false}, impostor_stop{false};
    std::vector<std::vector<uint64_t>> got(h);
    std::vector<uint64_t> sent(h + 1);
    std::vector<std::string> timeouts(h);
    std::vector<uint64_t> missing(h);
    std::vector<uint64_t> absent_seen(h), present_seen(h);
    sim::PeThreads th;
    const unsigned rounds_b = faults ? 3 : rounds;
    for (unsigned pe = 0; pe < h; ++pe) {
        const bool in_a = (mask_a >> pe) & 1, in_b = (mask_b >> pe) & 1;
        if (!in_a && !in_b) continue;
        th.start([&, pe, in_a] {
            const uint64_t mask = in_a ? mask_a : mask_b;
            const unsigned nr = in_a ? rounds : rounds_b;
            auto c = std::make_unique<link::LinkClient>(hub.endpoint(pe), device(board, p, pe), cfg(p, pe));
            auto port = std::make_unique<LinkPapersPort>(*c, hub.endpoint(pe), pe);
            auto papers = std::make_unique<Papers>(*port, to);
            papers->enqueue(mask, to);
            for (unsigned r = 0; r < nr; ++r) got[pe].push_back(papers->waitvec(flag_of(seed, pe, r), to));
            if (faults && !in_a) {
                const unsigned r = nr;  // the round PE 5 leaves in the middle of
                if (pe == 5) {
                    {
                        auto lk = hub.guard();
                        hub.stream(5).cut_after_sync = true;
                    }
                    try {
                        papers->waitvec(flag_of(seed, pe, r), to);
                        throw std::runtime_error("PE5's barrier completed with its cable unplugged");
                    } catch (const Error&) {
                    }
                    // Back when both survivors have timed out: a new program says HELLO,
                    // cancels the barrier it left, and barriers with them once more.
                    if (!hub.until([&] { return survivors_out.load() >= 2; }, cyc * (ka * 20), cyc * 2000))
                        throw Error("PE5: the survivors never timed out");
                    papers.reset();
                    port.reset();
                    c.reset();
                    {
                        auto lk = hub.guard();
                        hub.stream(5).cut = hub.stream(5).cut_after_sync = false;
                        hub.stream(5).req_open = false;
                    }
                    c = std::make_unique<link::LinkClient>(hub.endpoint(pe), device(board, p, pe), cfg(p, pe));
                    c->hello(pe);
                    c->call(pe, uint16_t(D::WIN_PAPERS << 12 | R::W_CANCEL), 0, 0, to);
                    port = std::make_unique<LinkPapersPort>(*c, hub.endpoint(pe), pe);
                    papers = std::make_unique<Papers>(*port, to);
                    papers->enqueue(mask, to);
                    rejoined = true;
                } else {
                    // The survivors arrive once PE5 has been silent past the keep-alive bound.
                    if (!hub.until([&] { return hub.stream(5).cut; }, to, cyc * 1000))
                        throw Error("PE" + std::to_string(pe) + ": PE5 never left");
                    for (unsigned i = 0; !(c->read(pe, info(D::INFO_MUX_ABSENT), 4) >> 5 & 1); ++i) {
                        if (i == 32) throw Error("PE" + std::to_string(pe) + ": PE5 never absent in INFO MUX_ABSENT");
                        hub.sleep(cyc * (ka / 8));
                    }
                    absent_seen[pe] = 1;
                    present_seen[pe] = c->read(pe, uint16_t(D::WIN_PAPERS << 12 | R::W_PRESENT0), 4);
                    try {
                        papers->waitvec(flag_of(seed, pe, r), cyc * (ka * 2));
                        throw std::runtime_error("PE" + std::to_string(pe) + "'s barrier completed without PE5");
                    } catch (const TimeoutError& e) {
                        timeouts[pe] = e.what();
                        missing[pe] = e.missing_pes;
                    }
                    ++survivors_out;  // (a failure above ends the run: PE5 then stops waiting, bounded)
                    if (!hub.until([&] { return rejoined.load(); }, cyc * (ka * 20), cyc * 2000))
                        throw Error("PE" + std::to_string(pe) + ": PE5 never rejoined");
                    papers->enqueue(mask, to);
                }
                got[pe].push_back(papers->waitvec(flag_of(seed, pe, r + 1), to));
            }
            sent[pe] = c->stats().frames_sent;
        });
    }
    // Stream 3: good frames, each a WRITE of SIG (S up) for PE 0, which it may not speak for.
    std::thread impostor;
    uint64_t impostor_frames = 0;
    if (faults)
        impostor = std::thread([&] {
            uint8_t seq = 0;
            while (!impostor_stop.load()) {
                link::Frame f;
                f.pe = 0;
                f.op = D::OP_WRITE;
                f.seq = seq++;
                f.addr = uint16_t(D::WIN_PAPERS << 12 | R::W_SIG);
                f.append(uint32_t(1u << R::DATA_S), 1);
                const auto bytes = link::encode(f);
                hub.endpoint(3).send(bytes.data(), bytes.size());
                ++impostor_frames;
                hub.sleep(cyc * (20 * bytes.size() * uint64_t(p.at("HUB_KHZ")) * 1000 / baud_of(p, 3)));
            }
        });
    auto stop_impostor = [&] {
        impostor_stop = true;
        if (impostor.joinable()) impostor.join();
    };
    try {
        th.join();
    } catch (...) {
        stop_impostor();
        throw;
    }
    stop_impostor();
    // let the impostor's last frame through, then read the counters over PE 0's own stream
    hub.sleep(cyc * 20000);
    link::LinkClient c0(hub.endpoint(0), device(board, p, 0), cfg(p, 0));
    // every round of every PE exact: the D bits of its mask's PEs in that round
    for (unsigned pe = 0; pe < h; ++pe) {
        const bool in_a = (mask_a >> pe) & 1, in_b = (mask_b >> pe) & 1;
        if (!in_a && !in_b) continue;
        std::vector<unsigned> rs;
        for (unsigned r = 0; r < (in_a ? rounds : rounds_b); ++r) rs.push_back(r);
        if (faults && in_b) rs.push_back(rounds_b + 1);  // after the round PE5 left
        INFO("PE" << pe);
        REQUIRE(got[pe].size() == rs.size());
        for (size_t i = 0; i < rs.size(); ++i) {
            INFO("round " << rs[i]);
            CHECK(got[pe][i] == expected_vec(seed, in_a ? mask_a : mask_b, rs[i]));
        }
    }
    if (faults) {
        for (unsigned pe : {1u, 4u}) {
            INFO("survivor PE" << pe << ": " << timeouts[pe]);
            CHECK(absent_seen[pe] == 1);
            CHECK(((present_seen[pe] >> 5) & 1) == 0);  // PRESENT: PE5 counts as unplugged
            CHECK(((missing[pe] >> 5) & 1) == 1);
            CHECK(timeouts[pe].find("absent at the hub: PE5") != std::string::npos);
        }
        // every impostor frame refused and counted, none forwarded
        const uint32_t bind = c0.read(0, mux_count(3, D::MUX_BIND), 2);
        CHECK(bind == (impostor_frames & cnt_mask));
        CHECK(c0.read(0, mux_count(3, D::MUX_FRAMES), 2) == 0);
        std::printf("[uartpe] %s: impostor frames %llu refused (BIND %u); babble PARTIAL %u BIND %u; "
                    "damaged stream: %llu up, %llu down\n",
                    board.c_str(), (unsigned long long)impostor_frames, bind,
                    unsigned(c0.read(0, mux_count(2, D::MUX_PARTIAL), 2)),
                    unsigned(c0.read(0, mux_count(2, D::MUX_BIND), 2)),
                    (unsigned long long)hub.stream(4).up.damaged, (unsigned long long)hub.stream(4).down.damaged);
    }
    // the well-behaved streams: every frame forwarded, nothing refused or cut
    for (unsigned pe = 0; pe < h; ++pe) {
        if (!((mask_a >> pe) & 1)) continue;
        INFO("stream " << pe);
        CHECK(c0.read(0, mux_count(pe, D::MUX_BIND), 2) == 0);
        CHECK(c0.read(0, mux_count(pe, D::MUX_OVERRUN), 2) == 0);
        CHECK(c0.read(0, mux_count(pe, D::MUX_PARTIAL), 2) == 0);
        if (pe != 0) CHECK(c0.read(0, mux_count(pe, D::MUX_FRAMES), 2) == (sent[pe] & cnt_mask));
    }
    RunResult rr;
    rr.lat_a = group_latency(hub, mask_a, 0, rounds);
    auto lk = hub.guard();
    for (unsigned k = 0; k <= h; ++k) CHECK(hub.top().lines[k].ferr == 0);  // the hub's bits, every one
    return rr;
}

}  // namespace

TEST_CASE("UART-PE board tops: barriers of every PE on its own UART at mixed bauds, exact; faults cost the "
          "others nothing",
          "[boards][uartpe][papers]") {
    const uint64_t seed = sim::test_seed("uart_pe_tops");
    for_each_uart_board([&](const std::string& board, const Params& p, const Factory& make) {
        INFO(board);
        const RunResult clean = barrier_run(board, p, make, seed, false, 4);
        if (p.at("H") < 8) {  // too few streams for four faulty ones beside good ones
            std::printf("[uartpe] %s: %ld UART PEs: the clean run only\n", board.c_str(), p.at("H"));
            return;
        }
        const RunResult faulty = barrier_run(board, p, make, seed, true, 4);
        REQUIRE(clean.lat_a.size() == 4);
        REQUIRE(faulty.lat_a.size() == 4);
        // One longest frame (a byte a cycle, the forwarding gap)
        // and link_port's handling of it, for every other stream.
        const uint64_t s = uint64_t(p.at("H")) + 1;
        const uint64_t slack = (s - 1) * FRAME_TURN;
        const uint64_t worst_clean = *std::max_element(clean.lat_a.begin(), clean.lat_a.end());
        const uint64_t worst_faulty = *std::max_element(faulty.lat_a.begin(), faulty.lat_a.end());
        std::printf("[uartpe] %s: group A round latency, last request to first result (cycles): clean",
                    board.c_str());
        for (uint64_t v : clean.lat_a) std::printf(" %llu", (unsigned long long)v);
        std::printf("; under faults");
        for (uint64_t v : faulty.lat_a) std::printf(" %llu", (unsigned long long)v);
        std::printf(" (bound %llu + %llu)\n", (unsigned long long)worst_clean, (unsigned long long)slack);
        std::fflush(stdout);
        CHECK(worst_faulty <= worst_clean + slack);
    });
}

// ---- aggnet board-check on every stream (board_check::check_streams) ----------------

namespace {

/// A cable: the endpoint (pins) it is on, the stream it is given as, its PE.
struct Cable {
    unsigned endpoint, stream, pe;
};

struct StreamReport {
    bool ok = false;
    std::map<std::string, board_check::Check> by;  ///< each check by name
    std::string text;                              ///< every line
    std::string verdict(const std::string& name) const {
        auto it = by.find(name);
        if (it == by.end()) return "none";
        return it->second.verdict == board_check::Verdict::pass ? "PASS"
             : it->second.verdict == board_check::Verdict::fail ? "FAIL" : "SKIP";
    }
    const std::string& detail(const std::string& name) const {
        static const std::string none;
        auto it = by.find(name);
        return it == by.end() ? none : it->second.detail;
    }
};

/// check_streams with a LinkClient per cable; the FAIL lines are printed.
StreamReport check_cables(MuxHub& hub, const std::string& board, const Params& p, const std::vector<Cable>& cables,
                          const char* what, unsigned round_trips = 20) {
    std::vector<std::unique_ptr<link::LinkClient>> clients;
    std::vector<board_check::Stream> streams;
    for (const Cable& c : cables) {
        clients.push_back(std::make_unique<link::LinkClient>(hub.endpoint(c.endpoint), device(board, p, c.endpoint),
                                                             cfg(p, c.endpoint)));
        streams.push_back({*clients.back(), c.stream, c.pe});
    }
    board_check::Options o;
    o.round_trips = round_trips;
    StreamReport r;
    r.ok = board_check::check_streams(streams, o, [&](const board_check::Check& c) {
        r.by[c.name] = c;
        r.text += board_check::format(c) + "\n";
        if (c.verdict == board_check::Verdict::fail)
            std::printf("[uartpe] board-check, %s: %s\n", what, board_check::format(c).c_str());
    });
    std::fflush(stdout);
    return r;
}

/// A number after `key` in a line ("BIND +12" -> 12), or -1.
long number_after(const std::string& s, const std::string& key) {
    const size_t at = s.find(key);
    if (at == std::string::npos) return -1;
    size_t i = at + key.size();
    while (i < s.size() && (s[i] == ' ' || s[i] == '+')) ++i;
    return i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])) ? std::stol(s.substr(i)) : -1;
}

}  // namespace

TEST_CASE("UART-PE board tops: board-check of every stream passes a sound board and names each fault",
          "[boards][uartpe][board-check]") {
    // The board with the fewest streams of those selected (the check is the same on every one).
    std::string smallest;
    long fewest = 1000;
    for_each_uart_board([&](const std::string& b, const Params& p, const Factory&) {
        if (p.at("H") < fewest) fewest = p.at("H"), smallest = b;
    });
    REQUIRE(!smallest.empty());
    unsigned ran = 0;
    for_each_uart_board([&](const std::string& board, const Params& p, const Factory& make) {
        if (board != smallest) return;
        ++ran;
        const unsigned h = unsigned(p.at("H")), usb = board_check::Stream::usb;
        REQUIRE(h >= 2);
        INFO(board << ": " << h << " header streams and the USB UART");
        std::vector<std::string> names{"map hashes"};
        for (unsigned k = 0; k <= h; ++k)
            for (const char* c : {"hello", "pins", "loopback", "present", "counters"})
                names.push_back("stream " + std::to_string(k) + " " + c);

        // A sound board: every cable on its own pins, and the USB UART as PE 0.
        // Enough round trips that every stream's counters (CNT_W bits) wrap.
        std::vector<Cable> sound;
        for (unsigned k = 0; k < h; ++k) sound.push_back({k, k, k});
        sound.push_back({h, usb, 0});
        {
            MuxHub hub(make(40'000'000), ns_per_cycle(p), 11);
            const StreamReport r = check_cables(hub, board, p, sound, "sound board", 150);
            INFO(r.text);
            CHECK(r.ok);
            CHECK(r.verdict("streams") == "PASS");
            for (const auto& n : names) {
                INFO(n);
                CHECK(r.verdict(n) == "PASS");
            }
            for (unsigned k = 0; k <= h; ++k) {
                const std::string& d = r.detail("stream " + std::to_string(k) + " counters");
                CHECK(number_after(d, "FRAMES") == number_after(d, "for the"));  // every frame sent counted
                CHECK(number_after(d, "FRAMES") > (1L << p.at("CNT_W")));
                CHECK(number_after(d, "BIND") == 0);
                CHECK(number_after(d, "PARTIAL") == 0);
            }
            CHECK_THAT(r.detail("streams"), Catch::Contains(std::to_string(h + 1) + " streams"));
        }

        // Cables on each other's pins: PE 0's on stream 1, PE 1's on stream 0.
        {
            std::vector<Cable> swapped = sound;
            swapped[0].endpoint = 1;
            swapped[1].endpoint = 0;
            MuxHub hub(make(40'000'000), ns_per_cycle(p), 12);
            const StreamReport r = check_cables(hub, board, p, swapped, "cables 0 and 1 swapped");
            INFO(r.text);
            CHECK_FALSE(r.ok);
            for (unsigned k : {0u, 1u}) {
                const unsigned on = 1 - k;
                const std::string& d = r.detail("stream " + std::to_string(k) + " hello");
                INFO(d);
                CHECK(r.verdict("stream " + std::to_string(k) + " hello") == "FAIL");
                CHECK_THAT(d, Catch::Contains("stream " + std::to_string(k) + " (PE" + std::to_string(k) +
                                              "): no answer to HELLO; BIND +") &&
                                  Catch::Contains("on stream " + std::to_string(on) + ": its frames, for PE" +
                                                  std::to_string(k) + ", are refused there") &&
                                  Catch::Contains("the cable is on stream " + std::to_string(on) + "'s pins"));
                // every frame of the probe's HELLO refused and counted, on that stream
                const long bind = number_after(d, "BIND");
                CHECK(bind == number_after(d, "counters during"));
                CHECK(bind == long(cfg(p, k).max_attempts));
                CHECK(r.verdict("stream " + std::to_string(k) + " the rest") == "SKIP");
            }
            for (const char* c : {"hello", "pins", "loopback", "present", "counters"})
                CHECK(r.verdict("stream " + std::to_string(h) + " " + c) == "PASS");  // the USB UART still reads
        }

        // PE 1's cable on the USB UART, given as stream 1: it answers (the USB
        // UART speaks for any PE), but its frames arrive on the wrong stream.
        {
            const std::vector<Cable> on_usb{{0, 0, 0}, {h, 1, 1}};
            MuxHub hub(make(40'000'000), ns_per_cycle(p), 13);
            const StreamReport r = check_cables(hub, board, p, on_usb, "PE 1's cable on the USB UART");
            INFO(r.text);
            CHECK_FALSE(r.ok);
            CHECK(r.verdict("stream 1 hello") == "PASS");
            CHECK(r.verdict("stream 1 pins") == "FAIL");
            CHECK_THAT(r.detail("stream 1 pins"), Catch::Contains("do not arrive on stream 1") &&
                                                      Catch::Contains("on stream " + std::to_string(h) + " +"));
            CHECK(r.verdict("stream 1 present") == "FAIL");  // stream 1 has never spoken
            CHECK(r.verdict("stream 1 counters") == "FAIL");
            CHECK_THAT(r.detail("stream 1 counters"), Catch::Contains("FRAMES +0 but it sent") &&
                                                          Catch::Contains("none came in on stream 1's pins"));
            for (const char* c : {"hello", "pins", "loopback", "present", "counters"})
                CHECK(r.verdict(std::string("stream 0 ") + c) == "PASS");
        }

        // Stream 1's cable unplugged (nothing either way), then only its
        // hub -> PE wire broken (every reply damaged or lost).
        for (const bool unplugged : {true, false}) {
            MuxHub hub(make(40'000'000), ns_per_cycle(p), 15);
            {
                auto lk = hub.guard();
                if (unplugged) hub.stream(1).cut = true;
                else hub.stream(1).down.percent = 100;
            }
            const StreamReport r =
                check_cables(hub, board, p, sound, unplugged ? "stream 1 unplugged" : "stream 1's RX wire broken");
            INFO(r.text);
            CHECK_FALSE(r.ok);
            const std::string& d = r.detail("stream 1 hello");
            CHECK(r.verdict("stream 1 hello") == "FAIL");
            const long sent = number_after(d, "counters during");
            CHECK(sent == long(cfg(p, 1).max_attempts));
            if (unplugged) {
                CHECK_THAT(d, Catch::Contains("none of the " + std::to_string(sent) + " frames it sent arrived") &&
                                  Catch::Contains("stream 1 absent") && Catch::Contains("none stepped"));
            } else {
                CHECK_THAT(d, Catch::Contains("the hub took its frames on stream 1 (FRAMES +" + std::to_string(sent)) &&
                                  Catch::Contains("stream 1's TX pin"));
            }
            for (const char* c : {"hello", "pins", "loopback", "present", "counters"})
                CHECK(r.verdict(std::string("stream 0 ") + c) == "PASS");
        }

        // Stream 1's cable damages 10 % of the frames each way: the loopback
        // still passes on resends, its counters say what was lost.
        {
            MuxHub hub(make(40'000'000), ns_per_cycle(p), 14);
            {
                auto lk = hub.guard();
                hub.stream(1).up.percent = hub.stream(1).down.percent = 10;
            }
            const StreamReport r = check_cables(hub, board, p, sound, "stream 1 damaging 10 % of frames");
            INFO(r.text);
            uint64_t damaged_up = 0;
            {
                auto lk = hub.guard();
                damaged_up = hub.stream(1).up.damaged;
            }
            REQUIRE(damaged_up > 0);
            CHECK_FALSE(r.ok);
            CHECK(r.verdict("stream 1 loopback") == "PASS");
            CHECK(number_after(r.detail("stream 1 loopback"), "resends") > 0);
            CHECK(r.verdict("stream 1 counters") == "FAIL");
            const std::string& d = r.detail("stream 1 counters");
            CHECK_THAT(d, Catch::Contains("never reached the hub whole") || Catch::Contains("CRC_ERR +") ||
                              Catch::Contains("PARTIAL +"));
            for (unsigned k = 0; k <= h; ++k)
                if (k != 1) CHECK(r.verdict("stream " + std::to_string(k) + " counters") == "PASS");
        }
    });
    CHECK(ran == 1);
}
