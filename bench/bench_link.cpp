// bench_link: the PAPERS barrier over the link, measured on the Verilated
// aggnet_hub with libaggnet's Papers over LinkPapersPort, 4 PEs sharing the
// hub's one byte stream (sim/link_hub.hpp), once as one SYNC CALL per
// barrier (the default) and once pin by pin (SIG writes and WAITs on STAT,
// as through a PC's port: use_sync(false)):
//   * frames and bytes on the wire per barrier per PE, each way;
//   * their wire time at 3 and 12 Mbaud (8N1: 10 bits a byte), the floor of
//     a barrier on a UART;
//   * hub cycles from the last byte of the last PE's SYNC CALL (as link_port
//     takes it) to GO on every PE, and to every PE's RESULT delivered;
//   * a projected round trip per link kind: the measured wire time plus a
//     bridge's scheduling latency per exchange (USB full speed polls every
//     1 ms, high speed every 125 us, a single-board computer's own UART has
//     none) plus the hub's cycles at its clock: derived, labelled so.
// Writes CSV to argv[1] and prints a table.
#include "counting_pipe.hpp"
#include "link_hub.hpp"
#include "pe_threads.hpp"

#include <aggnet/link_defs.hpp>
#include <aggnet/link_papers.hpp>
#include <aggnet/papers_regs.hpp>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <vector>

using namespace aggnet;
using std::chrono::microseconds;
namespace R = aggnet::papers_regs;

using Counting = sim::CountingPipe;

int main(int argc, char** argv) {
    const char* csv = argc > 1 ? argv[1] : "link.csv";
    const unsigned n = 4, barriers = 400;
    struct Way {
        double req_frames, req_bytes, rep_frames, rep_bytes;
    };
    auto measure = [&](bool sync) {
        sim::LinkHub hub(n, "bench_link");
        std::vector<std::unique_ptr<Counting>> pipes;
        for (unsigned pe = 0; pe < n; ++pe) pipes.push_back(std::make_unique<Counting>(hub.endpoint(pe)));
        std::vector<uint64_t> b0(n), f0(n), i0(n), r0(n), rframes(n);
        sim::on_pe_threads(n, [&](unsigned pe) {
            link::LinkConfig cfg;
            cfg.resend_timeout = microseconds(200000);  // no keep-alives in the counts
            cfg.max_attempts = 8;
            link::LinkClient c(*pipes[pe], "bench", cfg);
            LinkPapersPort port(c, *pipes[pe], pe);
            port.use_sync(sync);
            Papers p(port, microseconds(1000000));
            p.enqueue(0xf, microseconds(1000000));
            p.wait(microseconds(1000000));
            b0[pe] = pipes[pe]->out_bytes;
            f0[pe] = pipes[pe]->out_frames;
            i0[pe] = pipes[pe]->in_bytes;
            r0[pe] = c.stats().replies;
            for (unsigned i = 0; i < barriers; ++i) p.wait(microseconds(1000000));
            rframes[pe] = c.stats().replies - r0[pe];
        });
        Way w{0, 0, 0, 0};
        for (unsigned pe = 0; pe < n; ++pe) {
            w.req_bytes += double(pipes[pe]->out_bytes - b0[pe]);
            w.req_frames += double(pipes[pe]->out_frames - f0[pe]);
            w.rep_bytes += double(pipes[pe]->in_bytes - i0[pe]);
            w.rep_frames += double(rframes[pe]);
        }
        const double per = double(n) * barriers;
        return Way{w.req_frames / per, w.req_bytes / per, w.rep_frames / per, w.rep_bytes / per};
    };
    const Way call = measure(true), pins = measure(false);

    // Hub cycles: PEs 0..2's SYNC CALLs pending at the hub, then PE3's; from
    // the last byte of PE3's CALL into link_port to GO on every PE's status
    // and to every PE's RESULT delivered.
    sim::LinkHub hub(n, "bench_link_cycles");
    std::vector<std::unique_ptr<link::LinkClient>> cs;
    for (unsigned pe = 0; pe < n; ++pe) cs.push_back(std::make_unique<link::LinkClient>(hub.endpoint(pe), "bench"));
    auto addr = [](uint16_t reg) { return uint16_t(link_defs::WIN_PAPERS << 12 | reg); };
    for (unsigned pe = 0; pe < n; ++pe) cs[pe]->write(pe, addr(R::W_MASK0), 0xf, 1);
    std::vector<unsigned> to_go, to_result;
    uint8_t buf[256];
    for (unsigned i = 0; i < 50; ++i) {
        for (unsigned pe = 0; pe + 1 < n; ++pe)
            cs[pe]->start_call(pe, addr(R::W_SYNC), i & 1, 1, hub.endpoint(pe).now() + microseconds(1000000));
        for (unsigned k = 0; k < 400; ++k) hub.tick();  // their CALLs are pending, their S up
        cs[n - 1]->start_call(n - 1, addr(R::W_SYNC), i & 1, 1, hub.endpoint(n - 1).now() + microseconds(1000000));
        unsigned go_at = 0;
        for (unsigned k = 0; k < 4000 && !go_at; ++k) {
            hub.tick();
            auto lk = hub.guard();
            auto& h = hub.pins();
            bool all = true;
            for (unsigned pe = 0; pe < n; ++pe)
                if (!h.go(pe)) all = false;
            if (all) go_at = unsigned(h.cycle());
        }
        const uint64_t in_at = hub.rx_drained_at();
        to_go.push_back(unsigned(go_at - in_at));
        for (;;) {
            bool all = true;
            for (unsigned pe = 0; pe < n; ++pe) {
                if (cs[pe]->done(pe)) continue;
                const size_t k = hub.endpoint(pe).recv(buf, sizeof buf, hub.endpoint(pe).now());
                if (k) cs[pe]->feed(buf, k);
                if (!cs[pe]->done(pe)) all = false;
            }
            if (all) break;
            hub.tick();
        }
        to_result.push_back(unsigned(hub.cycle() - in_at));
        for (unsigned pe = 0; pe < n; ++pe) cs[pe]->take(pe);
    }
    std::sort(to_go.begin(), to_go.end());
    std::sort(to_result.begin(), to_result.end());
    const unsigned go_med = to_go[to_go.size() / 2], res_med = to_result[to_result.size() / 2];

    std::printf("\nPAPERS barrier (Papers::wait) over the link: %u PEs on one stream, %u barriers each way\n\n", n,
                barriers);
    std::printf("%-46s %12s %12s\n", "per barrier per PE", "SYNC CALL", "pin by pin");
    std::printf("%-46s %12.2f %12.2f\n", "request frames", call.req_frames, pins.req_frames);
    std::printf("%-46s %12.2f %12.2f\n", "request bytes", call.req_bytes, pins.req_bytes);
    std::printf("%-46s %12.2f %12.2f\n", "reply frames", call.rep_frames, pins.rep_frames);
    std::printf("%-46s %12.2f %12.2f\n", "reply bytes", call.rep_bytes, pins.rep_bytes);
    for (unsigned baud : {3000000u, 12000000u})
        std::printf("wire time both ways at %2u Mbaud, us             %12.2f %12.2f\n", baud / 1000000,
                    (call.req_bytes + call.rep_bytes) * 10.0 / baud * 1e6,
                    (pins.req_bytes + pins.rep_bytes) * 10.0 / baud * 1e6);
    std::printf("%-46s %12u (median of %zu)\n", "hub cycles, last byte of last CALL -> GO", go_med, to_go.size());
    std::printf("%-46s %12u (median of %zu)\n", "hub cycles, last byte -> every RESULT delivered", res_med,
                to_result.size());
    // Projection (derived, not measured on hardware): per exchange one
    // bridge latency; the hub cycles at 48 MHz (the iCEBreaker's clock, the
    // slowest board with a link).
    struct Kind {
        const char* name;
        double latency_us;  // per exchange (request and reply)
        unsigned baud;
    };
    const Kind kinds[] = {{"USB full-speed bridge (FT232R, CP2102N), 3 Mbaud", 1000.0, 3000000},
                          {"USB high-speed bridge (FT232H), 12 Mbaud", 125.0, 12000000},
                          {"single-board computer's UART, 3 Mbaud", 0.0, 3000000}};
    const double hub_us = res_med / 48.0;
    std::printf("\nprojected barrier round trip (derived: wire time + one bridge latency per exchange + hub at 48 MHz)\n");
    std::printf("%-52s %14s %14s\n", "link kind", "SYNC CALL us", "pin by pin us");
    for (const Kind& k : kinds) {
        const double bit = 10.0 / k.baud * 1e6;
        std::printf("%-52s %14.0f %14.0f\n", k.name,
                    (call.req_bytes + call.rep_bytes) * bit + call.req_frames * k.latency_us + hub_us,
                    (pins.req_bytes + pins.rep_bytes) * bit + pins.req_frames * k.latency_us + hub_us);
    }
    std::ofstream o(csv);
    o << "metric,value\n";
    o << "request_frames_per_barrier_per_pe," << call.req_frames << "\n";
    o << "request_bytes_per_barrier_per_pe," << call.req_bytes << "\n";
    o << "reply_frames_per_barrier_per_pe," << call.rep_frames << "\n";
    o << "reply_bytes_per_barrier_per_pe," << call.rep_bytes << "\n";
    o << "pins_request_frames_per_barrier_per_pe," << pins.req_frames << "\n";
    o << "pins_request_bytes_per_barrier_per_pe," << pins.req_bytes << "\n";
    o << "pins_reply_frames_per_barrier_per_pe," << pins.rep_frames << "\n";
    o << "pins_reply_bytes_per_barrier_per_pe," << pins.rep_bytes << "\n";
    o << "wire_us_3mbaud," << (call.req_bytes + call.rep_bytes) * 10.0 / 3e6 * 1e6 << "\n";
    o << "wire_us_12mbaud," << (call.req_bytes + call.rep_bytes) * 10.0 / 12e6 * 1e6 << "\n";
    o << "cycles_last_call_byte_to_go," << go_med << "\n";
    o << "cycles_last_call_byte_to_results," << res_med << "\n";
    std::printf("wrote %s\n", csv);
    return 0;
}
