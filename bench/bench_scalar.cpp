// bench_scalar: what a scalar message (seed 003 chapter 6, Pai's scsend() /
// screcv(); rtl/scalar/, docs/scalar.md) costs in the hub and over the link.
//
//   engine   the bare scalar_engine (N = 4, 16; depth 64) on its bus: cycles
//            from a SEND start to the message in the destination's buffer
//            (the engine's busy falls), and from a RECV start to its result
//            against the buffer's fill (the scan, fill + 1 by design), for
//            a match at the newest entry and for no match.
//   hub      the Verilated aggnet_hub of the hub family at N = 4 behind its
//            link port, fed frames byte by byte (sim/link_stream.hpp):
//            hub cycles from a SEND frame's last byte into the port to the
//            first byte of its RESULT out, and to the first byte of the
//            RESULT of a blocking RECV that was waiting for it at the
//            destination (the message receivable and received); frames and
//            bytes on the wire per message (send + receive).
//   vhub     the virtual hub (aggnet-sim --engines scalar) over its per-PE
//            sockets: ping-pong between PE0 and PE1 on two threads, each
//            with its own socket, PE0 timing send + receive (wall clock),
//            p50 / p90 / p99 round trip.
//   project  the round trip's wire time per link kind (the frames' bytes at
//            10 bits a byte) beside the seed's nCUBE 2 figures, 27 us send +
//            20 us receive (chapter 7).
// Writes CSV (part, what, n, value, unit) to argv[1] and prints a table.
//   bench_scalar OUT.csv [--sim PATH] [--pings P]
#include "harness.hpp"
#include "hub_rtl.hpp"
#include "link_stream.hpp"
#include "pe_threads.hpp"

#include "../host/tools/sim_child.hpp"

#include <Vscalar_engine_n4.h>
#include <Vscalar_engine_n16.h>
#include <aggnet/device.hpp>
#include <aggnet/link_frame.hpp>
#include <aggnet/papers_device.hpp>
#include <aggnet/scalar.hpp>
#include <aggnet/scalar_regs.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#ifndef AGGNET_SIM_EXE
#error "AGGNET_SIM_EXE: path of aggnet-sim"
#endif

using namespace aggnet;
namespace R = aggnet::scalar_regs;

namespace {

struct Row {
    std::string part, what;
    unsigned n;
    double value;
    std::string unit;
};
std::vector<Row> g_rows;
void row(const std::string& part, const std::string& what, unsigned n, double v, const std::string& unit) {
    g_rows.push_back({part, what, n, v, unit});
    std::printf("%-8s %-58s N=%-3u %12.2f %s\n", part.c_str(), what.c_str(), n, v, unit.c_str());
    std::fflush(stdout);
}

// ---- the bare engine --------------------------------------------------------------
template <class V>
struct Eng {
    sim::Harness<V> h;
    explicit Eng(const std::string& name) : h(name, 100'000'000) { h.reset(); }
    /// One CALL start; returns the cycles until the engine is idle again (busy low).
    uint64_t start(unsigned pe, uint16_t reg, uint64_t wdata, unsigned len) {
        h->bus_req_valid = 1;
        h->bus_req_we = 1;
        h->bus_req_call = 1;
        h->bus_req_pe = pe;
        h->bus_req_addr = R::addr(reg);
        h->bus_req_wdata = uint32_t(wdata);
        h->bus_req_wdata_hi = uint32_t(wdata >> 32);
        h->bus_req_len = len;
        h->bus_req_size = 4;
        h.tick_until([&] { return h->bus_req_ready != 0; }, 1000);
        h.tick();
        h->bus_req_valid = 0;
        h.tick();
        if (!h->bus_rsp_valid || h->bus_rsp_err != 3) throw std::runtime_error("bench: a scalar start was not accepted");
        return 2 + h.tick_until([&] { return h->busy == 0; }, 100000);
    }
    void ask(unsigned pe) {
        h->bus_req_valid = 1;
        h->bus_req_we = 0;
        h->bus_req_call = 1;
        h->bus_req_pe = pe;
        h->bus_req_addr = R::addr(R::SEND);
        h.tick_until([&] { return h->bus_req_ready != 0; }, 1000);
        h.tick();
        h->bus_req_valid = 0;
        h.tick();
        if (!h->bus_rsp_valid || h->bus_rsp_err != 0) throw std::runtime_error("bench: a scalar result was not ready");
        h.tick();
    }
};

template <class V>
void engine(unsigned n) {
    Eng<V> e("bench_scalar_engine_n" + std::to_string(n));
    // a send into an empty buffer, the controller's pointer anywhere: worst of all senders
    uint64_t worst = 0;
    for (unsigned s = 0; s < n; ++s) {
        worst = std::max(worst, e.start(s, uint16_t(R::SEND | ((s + 1) % n)), 1, R::SEND_BYTES));
        e.ask(s);
    }
    row("engine", "SEND start to the message in the buffer (worst sender)", n, double(worst), "cycles");
    // drain, then the scan against fill at PE0 (sources 1, type 0; the match is the newest)
    for (unsigned s = 0; s < n; ++s) {
        e.start(s, uint16_t(R::RECV | 1u << R::CA_RECV_ANYSRC | 1u << R::CA_RECV_ANYTYPE), 0, R::RECV_BYTES);
        e.ask(s);
    }
    unsigned fill = 0;
    for (unsigned target : {0u, 1u, 8u, 32u, 63u}) {
        while (fill < target) {
            e.start(1, uint16_t(R::SEND | 0), uint64_t(fill == target - 1 ? 7 : 0) << 32 | fill, R::SEND_BYTES);
            e.ask(1);
            ++fill;
        }
        // no match (type 9): scans everything, stays put
        const uint64_t none = e.start(0, uint16_t(R::RECV | 1u << R::CA_RECV_ANYSRC), 9, R::RECV_BYTES);
        e.ask(0);
        row("engine", "RECV start to answer (pointer wait + scan), no match, fill " + std::to_string(fill), n, double(none), "cycles");
        if (fill) {  // the match at the newest entry (type 7), then put one back
            const uint64_t hit = e.start(0, uint16_t(R::RECV | 1u << R::CA_RECV_ANYSRC), 7, R::RECV_BYTES);
            e.ask(0);
            row("engine", "RECV start to answer, match at the newest entry, fill " + std::to_string(fill), n, double(hit), "cycles");
            e.start(1, uint16_t(R::SEND | 0), uint64_t(0) << 32 | fill, R::SEND_BYTES);
            e.ask(1);
        }
    }
}

// ---- the hub over its link port ------------------------------------------------------
struct HubLink {
    std::unique_ptr<sim::HubModel> h;
    sim::LinkStream in;
    link::Decoder dec;
    uint64_t flag_at = 0, last_in = 0, bytes_out = 0;
    std::vector<std::pair<link::Frame, uint64_t>> got;  // frame, cycle of its first byte
    uint8_t seq[64] = {};
    HubLink() : h(sim::make_hub_rtl(4, "bench_scalar_hub", 100'000'000)) { h->reset(); }
    void tick() {
        const bool fed = in.drive(*h, h->cycle());
        if (fed && in.empty()) last_in = h->cycle();
        const bool v = h->tx_valid();
        const uint8_t b = h->tx_data();
        h->tick();
        if (v) {
            ++bytes_out;
            if (b == link_defs::FLAG && !dec.in_frame()) flag_at = h->cycle() - 1;
            if (dec.push(b)) got.push_back({dec.frame(), flag_at});
        }
    }
    size_t put(unsigned pe, uint8_t op, uint16_t addr, uint64_t v, unsigned len) {
        link::Frame f;
        f.pe = uint8_t(pe);
        f.op = op;
        f.seq = op == link_defs::OP_HELLO ? 0 : ++seq[pe];
        f.addr = addr;
        for (unsigned i = 0; i < len; ++i) f.payload[i] = uint8_t(v >> (8 * (len - 1 - i)));
        f.len = uint8_t(len);
        const auto bytes = link::encode(f);
        in.push(bytes);
        return bytes.size();
    }
    /// Run until a frame for pe arrives (or limit cycles); its first byte's cycle, and its bytes.
    std::pair<link::Frame, uint64_t> await(unsigned pe, uint64_t limit = 100000) {
        for (uint64_t i = 0; i < limit; ++i) {
            for (size_t k = 0; k < got.size(); ++k)
                if (got[k].first.pe == pe) {
                    auto r = got[k];
                    got.erase(got.begin() + long(k));
                    return r;
                }
            tick();
        }
        throw std::runtime_error("bench: no reply for PE" + std::to_string(pe));
    }
    void settle(uint64_t c) {
        for (uint64_t i = 0; i < c; ++i) tick();
    }
};

void hub() {
    HubLink L;
    for (unsigned pe = 0; pe < 2; ++pe) {
        L.put(pe, link_defs::OP_HELLO, 0, 0, 0);
        L.await(pe);
    }
    const uint16_t send_to0 = R::addr(uint16_t(R::SEND | 0)), send_to1 = R::addr(uint16_t(R::SEND | 1));
    const uint16_t recv_any =
        R::addr(uint16_t(R::RECV | 1u << R::CA_RECV_ANYSRC | 1u << R::CA_RECV_ANYTYPE | 1u << R::CA_RECV_BLOCK));
    std::vector<double> to_result, to_recv;
    size_t req_bytes = 0, res_bytes = 0, recv_req = 0, recv_res = 0;
    for (unsigned rep = 0; rep < 20; ++rep) {
        // a send: last byte in -> RESULT's first byte out
        const size_t rb = L.put(1, link_defs::OP_CALL, send_to0, uint64_t(3) << 32 | rep, R::SEND_BYTES);
        auto r = L.await(1);
        to_result.push_back(double(r.second - L.last_in));
        const uint64_t o0 = L.bytes_out;
        // the receive takes it (not waiting: the message is there)
        recv_req = L.put(0, link_defs::OP_CALL, recv_any, 0, R::RECV_BYTES);
        auto m = L.await(0);
        if (m.first.op != link_defs::OP_RESULT || m.first.value(4, 4) != rep)
            throw std::runtime_error("bench: the receive did not return the message sent");
        recv_res = L.bytes_out - o0;
        req_bytes = rb;
        res_bytes = link::encode(r.first).size();
        // a blocking receive waiting at PE1, then PE0 sends to it
        L.put(1, link_defs::OP_CALL, recv_any, 0, R::RECV_BYTES);
        L.settle(2000);  // the receive is in, scanned, waiting
        L.put(0, link_defs::OP_CALL, send_to1, uint64_t(4) << 32 | rep, R::SEND_BYTES);
        // the first frame of PE1 is its receive's RESULT
        auto w = L.await(1);
        if (w.first.op != link_defs::OP_RESULT || w.first.value(4, 4) != rep)
            throw std::runtime_error("bench: the waiting receive did not get the message");
        to_recv.push_back(double(w.second - L.last_in));
        L.await(0);  // the send's RESULT
        L.settle(200);
    }
    std::sort(to_result.begin(), to_result.end());
    std::sort(to_recv.begin(), to_recv.end());
    row("hub", "SEND last byte in to its RESULT's first byte out (median)", 4, to_result[to_result.size() / 2], "cycles");
    row("hub", "SEND last byte in to its RESULT's first byte out (max)", 4, to_result.back(), "cycles");
    row("hub", "SEND last byte in to a waiting RECV's RESULT out (median)", 4, to_recv[to_recv.size() / 2], "cycles");
    row("hub", "SEND last byte in to a waiting RECV's RESULT out (max)", 4, to_recv.back(), "cycles");
    row("hub", "frames per message (send + receive, request + reply each)", 4, 4, "frames");
    row("hub", "SEND request bytes on the wire", 4, double(req_bytes), "bytes");
    row("hub", "SEND RESULT bytes on the wire", 4, double(res_bytes), "bytes");
    row("hub", "RECV request bytes on the wire", 4, double(recv_req), "bytes");
    row("hub", "RECV RESULT bytes on the wire", 4, double(recv_res), "bytes");
    const double total = double(req_bytes + res_bytes + recv_req + recv_res);
    row("hub", "bytes per message (all four frames)", 4, total, "bytes");
    for (double baud : {115200.0, 1e6, 3e6})
        row("project", "send + receive wire time at " + std::to_string(int(baud)) + " baud (nCUBE 2: 27 + 20 us)", 4,
            total * 10 / baud * 1e6, "us");
}

// ---- ping-pong over the virtual hub -------------------------------------------------
void vhub(const std::string& sim, unsigned pings) {
    tools::SimChild child(sim, {"--pes", "4", "--engines", "scalar"});
    std::vector<double> us;
    std::atomic<bool> fail{false};
    sim::on_pe_threads(2, [&](unsigned pe) {
        LinkConnection lc = open_link(child.dev(pe));
        scalar::Port port(*lc.client, pe, std::chrono::seconds(20));
        for (unsigned i = 0; i < pings; ++i) {
            if (pe == 1) {
                const auto m = port.recv(0, 1);
                port.send(0, 1, m.value + 1);
            } else {
                const auto t0 = std::chrono::steady_clock::now();
                port.send(1, 1, 2 * i);
                const auto m = port.recv(1, 1);
                us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
                if (m.value != 2 * i + 1) fail = true;
            }
        }
    });
    if (fail) throw std::runtime_error("bench: a pong carried the wrong value");
    std::sort(us.begin(), us.end());
    auto pct = [&](double q) { return us[size_t(q * double(us.size() - 1) + 0.5)]; };
    row("vhub", "ping-pong round trip p50 (PE0: send + receive; PE1 on its own socket)", 4, pct(0.5), "us");
    row("vhub", "ping-pong round trip p90", 4, pct(0.9), "us");
    row("vhub", "ping-pong round trip p99", 4, pct(0.99), "us");
}

}  // namespace

int main(int argc, char** argv) try {
    std::string csv, sim = AGGNET_SIM_EXE;
    unsigned pings = 1000;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--sim" && i + 1 < argc) sim = argv[++i];
        else if (a == "--pings" && i + 1 < argc) pings = unsigned(std::strtoul(argv[++i], nullptr, 10));
        else if (csv.empty()) csv = a;
        else throw std::invalid_argument("usage: bench_scalar OUT.csv [--sim PATH] [--pings P]");
    }
    if (csv.empty()) throw std::invalid_argument("usage: bench_scalar OUT.csv [--sim PATH] [--pings P]");
    std::printf("%-8s %-58s %-5s %12s\n", "part", "what", "N", "value");
    engine<Vscalar_engine_n4>(4);
    engine<Vscalar_engine_n16>(16);
    hub();
    if (pings) vhub(sim, pings);
    std::ofstream o(csv);
    o << "part,what,n,value,unit\n";
    for (const Row& r : g_rows) o << r.part << ",\"" << r.what << "\"," << r.n << "," << r.value << "," << r.unit << "\n";
    return 0;
} catch (const std::exception& e) {
    std::fprintf(stderr, "bench_scalar: %s\n", e.what());
    return 1;
}
