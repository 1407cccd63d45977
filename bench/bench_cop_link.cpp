// bench_cop_link: what each COP operation (seed 004; rtl/cop/, docs/cop.md)
// costs on the link, per PE, measured on the virtual hub (aggnet-sim --pes 4
// --engines cop, the Verilated aggnet_hub with the COP) over its per-PE
// sockets, with libaggnet's cop::run_rounds acting as the 4 PEs:
//   * request and reply frames and bytes per PE per operation, counted on
//     the pipes (sim/counting_pipe.hpp): every COP operation is one CALL and
//     one RESULT;
//   * their wire time both ways at 3 and 12 Mbaud (8N1: 10 bits a byte),
//     derived from those bytes: the floor of the operation on a UART;
//   * hub cycles per round (the hub's cycle counter, INFO CYCLE, read
//     before and after; the virtual hub's clock runs only while a frame's
//     bytes or an engine are busy, docs/vhub.md, "Time");
//   * round time, first start to last result, p50 and p99 (wall clock, the
//     simulation and the sockets on the build machine: not a board's
//     figure).
// Every round's result is checked against plain arithmetic (run_rounds).
// Writes CSV (op, what, value, unit) to argv[1] and prints a table.
//   bench_cop_link OUT.csv [--sim PATH] [--rounds R]
#include "counting_pipe.hpp"

#include "../host/tools/sim_child.hpp"

#include <aggnet/cop.hpp>
#include <aggnet/link_defs.hpp>
#include <aggnet/papers_device.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#ifndef AGGNET_SIM_EXE
#error "AGGNET_SIM_EXE: path of aggnet-sim"
#endif

using namespace aggnet;
namespace C = aggnet::cop;
namespace D = aggnet::link_defs;

namespace {

struct Pe {
    LinkConnection lc;
    std::unique_ptr<sim::CountingPipe> pipe;
    std::unique_ptr<link::LinkClient> client;
    std::unique_ptr<C::Channel> chan;
};

uint64_t hub_cycle(link::LinkClient& c) {
    const uint64_t lo = c.read(0, uint16_t(D::WIN_INFO << 12 | D::INFO_CYCLE_LO), 4);
    const uint64_t hi = c.read(0, uint16_t(D::WIN_INFO << 12 | D::INFO_CYCLE_HI), 4);
    return hi << 32 | lo;
}

}  // namespace

int main(int argc, char** argv) try {
    std::string csv, exe = AGGNET_SIM_EXE;
    unsigned rounds = 300;
    const char* usage = "usage: bench_cop_link OUT.csv [--sim PATH] [--rounds R]";
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--sim" && i + 1 < argc) exe = argv[++i];
        else if (a == "--rounds" && i + 1 < argc) rounds = unsigned(std::strtoul(argv[++i], nullptr, 10));
        else if (csv.empty()) csv = a;
        else throw std::invalid_argument(usage);
    }
    if (csv.empty() || rounds == 0) throw std::invalid_argument(usage);
    const unsigned n = 4;
    tools::SimChild child(exe, {"--pes", std::to_string(n), "--engines", "cop"});
    std::vector<Pe> pes(n);
    std::vector<C::Channel*> chans;
    link::LinkConfig cfg;
    cfg.resend_timeout = std::chrono::milliseconds(500);  // no resends in the counts
    cfg.max_attempts = 8;
    for (unsigned p = 0; p < n; ++p) {
        Pe& e = pes[p];
        // open_link's own client stays idle: the counted pipe needs a client
        // of its own on top of the socket
        e.lc = open_link(child.dev(p));
        e.pipe = std::make_unique<sim::CountingPipe>(*e.lc.pipe);
        e.client = std::make_unique<link::LinkClient>(*e.pipe, child.dev(p), cfg);
        e.chan = std::make_unique<C::Channel>(*e.client, p, std::chrono::seconds(20));
        chans.push_back(e.chan.get());
    }
    {
        C::Supervisor s(*chans[0]);
        s.set_tc(0, C::all_pes(n));
        s.set_bm(0, C::all_pes(n));
    }
    struct Row {
        std::string op, what;
        double value;
        const char* unit;
    };
    std::vector<Row> rows;
    std::printf("COP operations over the link: %u PEs (aggnet-sim --engines cop, per-PE sockets), %u rounds each\n", n,
                rounds);
    std::printf("%-10s %7s %7s %7s %7s %9s %9s %10s %9s %9s\n", "op", "req fr", "req B", "rep fr", "rep B",
                "3M us", "12M us", "hub cyc", "p50 us", "p99 us");
    for (const char* op : C::kRoundOps) {
        // the cycle reads (two READs of PE0) are outside the counts; their
        // cycles are in the hub's, a fraction of a cycle a round
        const uint64_t cyc0 = hub_cycle(*pes[0].client);
        std::vector<uint64_t> ob(n), of(n), ib(n), rf(n);
        for (unsigned p = 0; p < n; ++p) {
            ob[p] = pes[p].pipe->out_bytes;
            of[p] = pes[p].pipe->out_frames;
            ib[p] = pes[p].pipe->in_bytes;
            rf[p] = pes[p].client->stats().replies;
        }
        const C::Rounds r = C::run_rounds(chans, op, rounds, 7);
        double req_f = 0, req_b = 0, rep_f = 0, rep_b = 0;
        for (unsigned p = 0; p < n; ++p) {
            req_b += double(pes[p].pipe->out_bytes - ob[p]);
            req_f += double(pes[p].pipe->out_frames - of[p]);
            rep_b += double(pes[p].pipe->in_bytes - ib[p]);
            rep_f += double(pes[p].client->stats().replies - rf[p]);
        }
        const uint64_t cyc1 = hub_cycle(*pes[0].client);
        const double per = double(n) * rounds;
        req_f /= per, req_b /= per, rep_f /= per, rep_b /= per;
        const double w3 = (req_b + rep_b) * 10 / 3e6 * 1e6, w12 = (req_b + rep_b) * 10 / 12e6 * 1e6;
        const double cyc = double(cyc1 - cyc0) / rounds;
        const double p50 = r.percentile(0.5), p99 = r.percentile(0.99);
        std::printf("%-10s %7.2f %7.2f %7.2f %7.2f %9.1f %9.1f %10.1f %9.1f %9.1f\n", op, req_f, req_b, rep_f, rep_b,
                    w3, w12, cyc, p50, p99);
        rows.push_back({op, "request frames per PE", req_f, "frames"});
        rows.push_back({op, "request bytes per PE", req_b, "bytes"});
        rows.push_back({op, "reply frames per PE", rep_f, "frames"});
        rows.push_back({op, "reply bytes per PE", rep_b, "bytes"});
        rows.push_back({op, "wire time both ways at 3 Mbaud", w3, "us"});
        rows.push_back({op, "wire time both ways at 12 Mbaud", w12, "us"});
        rows.push_back({op, "hub cycles per round (virtual hub)", cyc, "cycles"});
        rows.push_back({op, "round time p50 (virtual hub, wall clock)", p50, "us"});
        rows.push_back({op, "round time p99 (virtual hub, wall clock)", p99, "us"});
    }
    std::ofstream o(csv);
    o << "op,what,value,unit\n";
    for (const Row& r : rows) o << r.op << ",\"" << r.what << "\"," << r.value << "," << r.unit << "\n";
    std::printf("wrote %s\n", csv.c_str());
    return 0;
} catch (const std::exception& e) {
    std::fprintf(stderr, "bench_cop_link: %s\n", e.what());
    return 1;
}
