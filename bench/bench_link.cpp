// bench_link: the PAPERS barrier over the link (issue 9's figures), measured
// on the Verilated aggnet_hub with libaggnet's Papers over LinkPapersPort,
// 4 PEs sharing the hub's one byte stream (sim/link_hub.hpp):
//   * bytes and frames on the wire per barrier per PE, each way;
//   * the wire time of those bytes at 3 and 12 Mbaud (8N1: 10 bits a byte),
//     i.e. the floor of a barrier round trip on a UART before USB latency;
//   * hub cycles from the last byte of the last PE's S write (as link_port
//     takes it) to GO on every PE's status, and to the link's DATA reply.
// Writes CSV to argv[1] and prints a table.
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

namespace {

/// Counts what crosses one PE's pipe.
struct Counting final : link::LinkPipe {
    link::LinkPipe& p;
    std::atomic<uint64_t> out_bytes{0}, out_frames{0}, in_bytes{0};
    explicit Counting(link::LinkPipe& pipe) : p(pipe) {}
    void send(const uint8_t* d, size_t n) override {
        out_bytes += n;
        ++out_frames;
        p.send(d, n);
    }
    size_t recv(uint8_t* b, size_t cap, std::chrono::nanoseconds until) override {
        const size_t n = p.recv(b, cap, until);
        in_bytes += n;
        return n;
    }
    std::chrono::nanoseconds now() override { return p.now(); }
};

}  // namespace

int main(int argc, char** argv) {
    const char* csv = argc > 1 ? argv[1] : "link.csv";
    const unsigned n = 4, barriers = 400;
    sim::LinkHub hub(n, "bench_link");
    std::vector<std::unique_ptr<Counting>> pipes;
    for (unsigned pe = 0; pe < n; ++pe) pipes.push_back(std::make_unique<Counting>(hub.endpoint(pe)));
    std::vector<uint64_t> in_frames(n);
    std::vector<uint64_t> b0(n), f0(n), r0(n);
    sim::on_pe_threads(n, [&](unsigned pe) {
        link::LinkConfig cfg;
        cfg.resend_timeout = microseconds(200);
        cfg.max_attempts = 8;
        link::LinkClient c(*pipes[pe], "bench", cfg);
        LinkPapersPort port(c, *pipes[pe], pe);
        Papers p(port, microseconds(100000));
        p.enqueue(0xf, microseconds(100000));
        p.wait(microseconds(100000));
        b0[pe] = pipes[pe]->out_bytes;
        f0[pe] = pipes[pe]->out_frames;
        r0[pe] = c.stats().replies;
        for (unsigned i = 0; i < barriers; ++i) p.wait(microseconds(100000));
        in_frames[pe] = c.stats().replies - r0[pe];
    });
    double out_b = 0, out_f = 0, in_f = 0;
    for (unsigned pe = 0; pe < n; ++pe) {
        out_b += double(pipes[pe]->out_bytes - b0[pe]);
        out_f += double(pipes[pe]->out_frames - f0[pe]);
        in_f += double(in_frames[pe]);
    }
    const double per = double(n) * barriers;
    const double ob = out_b / per, of = out_f / per, ifr = in_f / per;
    std::printf("\nPAPERS barrier (Papers::wait) over the link: %u PEs on one stream, %u barriers\n\n", n, barriers);
    std::printf("%-44s %10.2f\n", "request frames per barrier per PE", of);
    std::printf("%-44s %10.2f\n", "request bytes per barrier per PE", ob);
    std::printf("%-44s %10.2f\n", "reply frames per barrier per PE", ifr);
    for (unsigned baud : {3000000u, 12000000u})
        std::printf("wire time of the requests at %2u Mbaud, us     %10.2f\n", baud / 1000000, ob * 10.0 / baud * 1e6);

    // Hub cycles: last byte of the last S write into link_port -> GO on every
    // PE's status pins, on a quiet hub (PEs 0..2 already waiting).
    std::vector<std::unique_ptr<link::LinkClient>> cs;
    for (unsigned pe = 0; pe < n; ++pe) cs.push_back(std::make_unique<link::LinkClient>(hub.endpoint(pe), "bench"));
    auto addr = [](uint16_t reg) { return uint16_t(link_defs::WIN_PAPERS << 12 | reg); };
    std::vector<unsigned> lat;
    for (unsigned i = 0; i < 50; ++i) {
        for (unsigned pe = 0; pe < n; ++pe) cs[pe]->write(pe, addr(R::W_SIG), 0, 1);
        for (unsigned pe = 0; pe < n; ++pe) cs[pe]->write(pe, addr(R::W_MASK0), 0xf, 1);
        for (unsigned k = 0; k < 64; ++k) hub.tick();
        for (unsigned pe = 0; pe + 1 < n; ++pe) cs[pe]->write(pe, addr(R::W_SIG), 1u << R::DATA_S, 1);
        for (unsigned k = 0; k < 64; ++k) hub.tick();
        auto& c0 = *cs[n - 1];
        c0.start_write(n - 1, addr(R::W_SIG), 1u << R::DATA_S, 1);  // the last arrival: sent now
        unsigned go_at = 0;
        for (unsigned k = 0; k < 4000 && !go_at; ++k) {
            hub.tick();
            std::lock_guard<std::mutex> lk(hub.lock());
            auto& h = hub.pins();
            bool all = true;
            for (unsigned pe = 0; pe < n; ++pe)
                if (!h.go(pe)) all = false;
            if (all) go_at = unsigned(h.cycle());
        }
        lat.push_back(unsigned(go_at - hub.rx_drained_at()));
        uint8_t buf[256];
        while (!c0.done(n - 1)) {
            const size_t k = hub.endpoint(n - 1).recv(buf, sizeof buf, c0.poll());
            if (k) c0.feed(buf, k);
        }
        c0.take(n - 1);
    }
    std::sort(lat.begin(), lat.end());
    std::printf("%-44s %10u (median of %zu)\n", "hub cycles, last byte of last S write -> GO", lat[lat.size() / 2],
                lat.size());
    std::ofstream o(csv);
    o << "metric,value\n";
    o << "request_frames_per_barrier_per_pe," << of << "\n";
    o << "request_bytes_per_barrier_per_pe," << ob << "\n";
    o << "reply_frames_per_barrier_per_pe," << ifr << "\n";
    o << "wire_us_3mbaud," << ob * 10.0 / 3e6 * 1e6 << "\n";
    o << "wire_us_12mbaud," << ob * 10.0 / 12e6 * 1e6 << "\n";
    o << "cycles_last_s_frame_to_go," << lat[lat.size() / 2] << "\n";
    std::printf("wrote %s\n", csv);
    return 0;
}
