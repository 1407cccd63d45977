// test_cop_vhub.cpp: the COP (rtl/cop/, docs/cop.md) on the virtual hub as
// a separate process (aggnet-sim --engines cop), whose clock stops when the
// link port is idle and no engine's busy output is up (docs/vhub.md,
// "Time").  A COP operation finishes in the controller's service steps after
// the CALL's start, more cycles than the link waits (the slot's settle) before
// it asks once more and stops the clock; only cop_slot's busy keeps the
// clock running until the reply is placed.  So every operation here
// completes only if busy is right: with busy tied low the hub stops with a
// CALL pending and only a frame from a host starts its clock again.  The
// clients here never resend within the test (their resend timeout is longer
// than the calls' timeout), so a stopped hub makes the call time out
// (docs/cop.md, "In the hub", says how this was checked); every CALL is
// answered by the hub's own RESULT frame, and no client resends one.
// EXSUMF (C + 51 cycles after its last term) and SUMF (6 C + 2) are the
// longest; a fetch-and-add is one step.
#include "vhub_process.hpp"

#include <aggnet/cop.hpp>
#include <aggnet/error.hpp>
#include <aggnet/sim_control.hpp>
#include <aggnet/socket_pipe.hpp>
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

using namespace aggnet;
using namespace aggnet::test;
namespace C = aggnet::cop;

namespace {
/// PE pe's own socket with a client that does not resend for 60 s (longer
/// than any call's timeout here): nothing but the hub's clock moves a call on.
struct Quiet {
    link::SocketPipe pipe;
    link::LinkClient client;
    Quiet(const SimProcess& hub, unsigned pe, std::chrono::nanoseconds to)
        : pipe(hub.dir() + "/pe" + std::to_string(pe), hub.dev(pe), to), client(pipe, hub.dev(pe), cfg()) {}
    static link::LinkConfig cfg() {
        link::LinkConfig c = link::SocketPipe::sim_link_config();
        c.resend_timeout = std::chrono::seconds(60);
        c.max_attempts = 2;
        return c;
    }
};
}  // namespace

TEST_CASE("cop vhub: every operation completes on the idle-stop clock (the slot's busy)", "[cop][vhub]") {
    const unsigned n = 4;
    SimProcess hub(n, {"--engines", "cop"});
    const auto to = std::chrono::seconds(3);
    {
        Quiet q(hub, 0, to);
        C::Channel ch(q.client, 0, to);
        C::Supervisor s(ch);
        s.set_tc(0, C::all_pes(n));
        s.set_bm(0, C::all_pes(n));
    }
    // the clock does stop: nothing moves it while no client talks
    {
        SimControl sc = hub.control();
        const uint64_t c0 = sc.cycle();
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        CHECK(sc.cycle() == c0);
    }
    std::mutex m;
    std::vector<uint32_t> tickets;
    std::atomic<unsigned> done{0};
    const unsigned rounds = 5;
    sim::on_pe_threads(n, [&](unsigned pe) {
        Quiet q(hub, pe, to);
        C::Channel ch(q.client, pe, to);
        for (unsigned r = 0; r < rounds; ++r) {
            ch.barrier();
            // each term k + r/4 is exact; the sum over k = 0..3 is 6 + r
            const double e = ch.reduce(C::FOp::ExactSum, double(pe) + double(r) / 4);
            CHECK(e == 6.0 + double(r));
            const double s = ch.reduce(C::FOp::Sum, double(pe) * 2);
            CHECK(s == 12.0);
            const int64_t sum = ch.reduce(C::Op::Sum, int64_t(pe) * 1000 + r);
            CHECK(sum == 6000 + 4 * int64_t(r));
            const int64_t pre = ch.scan(int64_t(pe + 1), C::Scan::Inclusive);
            CHECK(pre == int64_t((pe + 1) * (pe + 2) / 2));
            const uint32_t t = ch.fetch_add(2, uint32_t(1));
            std::lock_guard<std::mutex> l(m);
            tickets.push_back(t);
        }
        CHECK(q.client.stats().resends == 0u);
        ++done;
    });
    CHECK(done == n);
    std::sort(tickets.begin(), tickets.end());
    for (unsigned i = 0; i < tickets.size(); ++i) CHECK(tickets[i] == i);
    CHECK(tickets.size() == n * rounds);
}
