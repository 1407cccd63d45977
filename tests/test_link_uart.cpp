// uart_rx / uart_tx (rtl/link): 8N1 at 4 clocks per bit (48 MHz, 12 Mbaud),
// a fractional ratio (100 MHz, 12 Mbaud: 8.33) and a large one (12 MHz,
// 115200: 104.17).
//
// The sender of the receiver tests is a continuous-time line model: bit k of
// a byte starting at time t0 (a random fraction of a clock) spans
// [t0 + k*P, t0 + (k+1)*P) with P = CLK/BAUD * (1 + error), sampled by the
// receiver's clock edges, so the phase of every start edge varies as it
// does against a real USB UART.  Random bytes and gaps, seeded.
//   * error 0, +2%, -2%: every byte arrives, no framing error;
//   * error +7% and -7%: the receiver must get bytes wrong (the test can fail);
//   * a low stop bit: ferr and no byte, then the next byte is fine;
//   * a start glitch shorter than half a bit is ignored;
//   * loopback uart_tx -> uart_rx, and uart_tx's bit timing against an ideal
//     decoder (bit j starts ceil(j*CLK/BAUD) cycles after the start edge).
#include "harness.hpp"
#include "seed.hpp"

#include <Vuart_rx_100_12.h>
#include <Vuart_rx_12_115k.h>
#include <Vuart_rx_48_12.h>
#include <Vuart_tx_100_12.h>
#include <Vuart_tx_12_115k.h>
#include <Vuart_tx_48_12.h>
#include <catch2/catch.hpp>

#include <cmath>
#include <deque>
#include <random>
#include <string>
#include <vector>

using aggnet::sim::Harness;
using aggnet::sim::test_seed;

namespace {

struct Sent {
    double t0;     // start edge, in clocks
    uint8_t byte;
    bool stop;     // stop bit level
};

/// The line level at time t for a schedule of characters.
struct Line {
    std::vector<Sent> chars;
    double period;  // clocks per bit at the sender
    size_t cur = 0;
    int level(double t) {
        while (cur < chars.size() && t >= chars[cur].t0 + 10 * period) ++cur;
        if (cur == chars.size() || t < chars[cur].t0) return 1;
        const int k = int((t - chars[cur].t0) / period);
        if (k == 0) return 0;
        if (k <= 8) return (chars[cur].byte >> (k - 1)) & 1;
        return chars[cur].stop ? 1 : 0;
    }
};

struct RxResult {
    std::vector<uint8_t> bytes;
    unsigned ferr = 0;
};

template <class Rx>
RxResult run_rx(const std::string& name, Line line, double cpb) {
    Harness<Rx> h(name);
    h->rx = 1;
    h.reset();
    RxResult r;
    const double end = line.chars.back().t0 + 12 * line.period + 4 * cpb;
    for (uint64_t c = 0; double(c) < end; ++c) {
        h->rx = line.level(double(c));
        h.tick();
        if (h->valid) r.bytes.push_back(h->data);
        r.ferr += h->ferr;
    }
    return r;
}

/// Random bytes with random gaps (0..2 bit times) and random start phases.
Line schedule(std::mt19937_64& rng, unsigned n, double period, double cpb) {
    Line l;
    l.period = period;
    double t = 20.0 + std::uniform_real_distribution<double>(0, 1)(rng);
    for (unsigned i = 0; i < n; ++i) {
        l.chars.push_back({t, uint8_t(rng()), true});
        const double gap = (rng() % 3 == 0) ? 0.0 : std::uniform_real_distribution<double>(0, 2 * cpb)(rng);
        t += 10 * period + gap;
    }
    return l;
}

template <class Rx>
void tolerance(const std::string& tag, double clk, double baud, unsigned n) {
    const double cpb = clk / baud;
    std::mt19937_64 rng(test_seed(("uart_rx_" + tag).c_str()));
    for (double err : {0.0, 0.02, -0.02, 0.07, -0.07}) {
        const Line l = schedule(rng, n, cpb * (1 + err), cpb);
        const RxResult r = run_rx<Rx>("uart_rx_" + tag, l, cpb);
        std::vector<uint8_t> want;
        for (const auto& c : l.chars) want.push_back(c.byte);
        INFO(tag << ": sender bit period " << cpb * (1 + err) << " clocks (error " << err * 100 << "%), "
                 << r.bytes.size() << " bytes, " << r.ferr << " framing errors");
        if (std::fabs(err) <= 0.021) {
            REQUIRE(r.ferr == 0);
            REQUIRE(r.bytes == want);
        } else {
            // beyond the tolerance the receiver must get something wrong
            CHECK((r.ferr > 0 || r.bytes != want));
        }
    }
}

template <class Rx>
void framing(const std::string& tag, double cpb) {
    Line l;
    l.period = cpb;
    l.chars.push_back({10.3, 0x55, true});
    l.chars.push_back({10.3 + 11 * cpb, 0xA7, false});  // stop bit low
    l.chars.push_back({10.3 + 30 * cpb, 0x3C, true});
    const RxResult r = run_rx<Rx>("uart_rx_ferr_" + tag, l, cpb);
    CHECK(r.ferr == 1);
    CHECK(r.bytes == std::vector<uint8_t>{0x55, 0x3C});
}

template <class Rx>
void glitch(const std::string& tag, double cpb) {
    Harness<Rx> h("uart_rx_glitch_" + tag);
    h->rx = 1;
    h.reset();
    h.ticks(5);
    // low for just under half a bit: the start bit re-check rejects it
    const int low = int(std::floor(cpb / 2)) - 1;
    for (int i = 0; i < std::max(1, low); ++i) {
        h->rx = 0;
        h.tick();
    }
    h->rx = 1;
    for (int i = 0; i < int(12 * cpb); ++i) {
        h.tick();
        REQUIRE(h->valid == 0);
        REQUIRE(h->ferr == 0);
    }
}

template <class Tx, class Rx>
void loopback(const std::string& tag, double cpb, unsigned n) {
    Harness<Tx> tx("uart_tx_" + tag);
    Harness<Rx> rx("uart_rx_loop_" + tag);
    std::mt19937_64 rng(test_seed(("uart_loop_" + tag).c_str()));
    tx->in_valid = 0;
    rx->rx = 1;
    tx.reset();
    rx.reset();
    std::vector<uint8_t> sent, got, ideal;
    // Ideal decoder of the tx line: start edge at cycle s, bit k sampled at
    // s + (k + 0.5) * cpb exactly.
    int prev = 1;
    int64_t start = -1;
    uint8_t shreg = 0;
    std::vector<int64_t> starts;
    uint64_t c = 0;
    while (got.size() < n && c < uint64_t(n * 14 * cpb + 1000)) {
        if (sent.size() < n && (rng() % 4 != 0 || tx->in_valid)) {
            if (!tx->in_valid) {
                tx->in_valid = 1;
                tx->in_data = uint8_t(rng());
            }
        }
        const bool take = tx->in_valid && tx->in_ready;
        const uint8_t byte = tx->in_data;
        tx.tick();
        ++c;
        if (take) {
            sent.push_back(byte);
            tx->in_valid = 0;
        }
        const int line = tx->tx;
        // ideal decoder, the line as it is after this edge (cycle c)
        if (start < 0 && prev == 1 && line == 0) {
            start = int64_t(c);
            starts.push_back(start);
        }
        if (start >= 0) {
            for (int k = 1; k <= 9; ++k) {
                if (int64_t(c) == start + int64_t(std::floor((k + 0.5) * cpb))) {
                    if (k <= 8) shreg = uint8_t((shreg >> 1) | (line << 7));
                    else {
                        REQUIRE(line == 1);  // stop bit
                        ideal.push_back(shreg);
                        start = -1;
                    }
                }
            }
        }
        prev = line;
        rx->rx = line;
        rx.tick();
        if (rx->valid) got.push_back(rx->data);
        REQUIRE(rx->ferr == 0);
    }
    sent.resize(got.size());
    REQUIRE(got.size() == n);
    REQUIRE(got == sent);
    REQUIRE(ideal.size() >= n - 1);
    for (size_t i = 0; i < ideal.size(); ++i) REQUIRE(ideal[i] == sent[i]);
    // back-to-back characters: 10 bit times apart (rounded to a clock)
    unsigned b2b = 0;
    for (size_t i = 1; i < starts.size(); ++i) {
        const double d = double(starts[i] - starts[i - 1]);
        REQUIRE(d >= std::floor(10 * cpb));
        if (d <= std::ceil(10 * cpb)) ++b2b;
    }
    CHECK(b2b > 0);
}

}  // namespace

TEST_CASE("uart_rx at 4 clocks per bit: +-2% passes, +-7% fails", "[link][uart]") {
    tolerance<Vuart_rx_48_12>("48_12", 48e6, 12e6, 3000);
    framing<Vuart_rx_48_12>("48_12", 4.0);
    glitch<Vuart_rx_48_12>("48_12", 4.0);
}
TEST_CASE("uart_rx at 8.33 clocks per bit: +-2% passes, +-7% fails", "[link][uart]") {
    tolerance<Vuart_rx_100_12>("100_12", 100e6, 12e6, 3000);
    framing<Vuart_rx_100_12>("100_12", 100.0 / 12);
    glitch<Vuart_rx_100_12>("100_12", 100.0 / 12);
}
TEST_CASE("uart_rx at 104.17 clocks per bit: +-2% passes, +-7% fails", "[link][uart]") {
    tolerance<Vuart_rx_12_115k>("12_115k", 12e6, 115200, 400);
    framing<Vuart_rx_12_115k>("12_115k", 12e6 / 115200);
    glitch<Vuart_rx_12_115k>("12_115k", 12e6 / 115200);
}
TEST_CASE("uart_tx -> uart_rx loopback and uart_tx bit timing", "[link][uart]") {
    loopback<Vuart_tx_48_12, Vuart_rx_48_12>("48_12", 4.0, 5000);
    loopback<Vuart_tx_100_12, Vuart_rx_100_12>("100_12", 100.0 / 12, 5000);
    loopback<Vuart_tx_12_115k, Vuart_rx_12_115k>("12_115k", 12e6 / 115200, 300);
}
