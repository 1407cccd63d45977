// test_system_vhub.cpp: the virtual hub as a separate process (aggnet-sim),
// reached by N client threads through open_device("sim:DIR/peK") -- the same
// library path a host program takes to a board.  Barrier order is checked on
// the hub's own clock (its CYCLE counter): no PE leaves a barrier before every
// PE of its mask has arrived.
#include "vhub_process.hpp"

#include <aggnet/device.hpp>
#include <aggnet/papers.hpp>
#include <aggnet/vhub_protocol.hpp>
#include <catch2/catch.hpp>

#include <atomic>
#include <cstring>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <functional>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace aggnet;
using Catch::Matchers::Contains;
using std::chrono::milliseconds;
using clk = std::chrono::steady_clock;

namespace {

using namespace aggnet::test;

const auto kTo = std::chrono::seconds(10);

/// Barrier order on the hub clock: cycle before raising S, cycle after GO.
void check_barriers(const SimProcess& hub, unsigned n, unsigned rounds, const std::vector<uint64_t>& masks) {
    std::vector<std::vector<uint64_t>> arrive(n, std::vector<uint64_t>(rounds)), leave = arrive;
    run_pes(hub, n, [&](unsigned pe, Transport& t) {
        Papers p(t);
        p.enqueue(masks[pe], kTo);
        for (unsigned i = 0; i < rounds; ++i) {
            arrive[pe][i] = sim_of(t).hub_cycle();
            p.wait(kTo);
            leave[pe][i] = sim_of(t).hub_cycle();
        }
    });
    for (unsigned i = 0; i < rounds; ++i)
        for (unsigned pe = 0; pe < n; ++pe)
            for (unsigned q = 0; q < n; ++q)
                if (masks[pe] >> q & 1) {
                    INFO("round " << i << ": PE" << pe << " left at cycle " << leave[pe][i] << ", PE" << q
                                  << " arrived at " << arrive[q][i]);
                    REQUIRE(arrive[q][i] < leave[pe][i]);
                }
}

}  // namespace

TEST_CASE("vhub: barriers with all PEs; nobody leaves before its mask arrived", "[system][vhub]") {
    for (unsigned n : {2u, 4u, 8u}) {
        INFO("N = " << n);
        SimProcess hub(n);
        const uint64_t all = (uint64_t(1) << n) - 1;
        check_barriers(hub, n, n > 4 ? 30 : 100, std::vector<uint64_t>(n, all));
    }
}

TEST_CASE("vhub: two disjoint partitions run independently", "[system][vhub]") {
    SimProcess hub(4);
    check_barriers(hub, 4, 100, {0x3, 0x3, 0xc, 0xc});
    // Uneven pace: the pair {2,3} does 5 times as many barriers as {0,1}.
    std::vector<unsigned> done(4);
    run_pes(hub, 4, [&](unsigned pe, Transport& t) {
        Papers p(t);
        p.enqueue(pe < 2 ? 0x3 : 0xc, kTo);
        for (unsigned i = 0; i < (pe < 2 ? 20u : 100u); ++i) p.wait(kTo), ++done[pe];
    });
    CHECK(done == std::vector<unsigned>{20, 20, 100, 100});
}

TEST_CASE("vhub: waitvec vectors, masked, on a wide (N = 8, 12-bit) hub too", "[system][vhub]") {
    for (unsigned n : {4u, 8u}) {
        INFO("N = " << n);
        SimProcess hub(n);
        const uint64_t all = (uint64_t(1) << n) - 1;
        std::vector<std::vector<uint64_t>> got(n);
        run_pes(hub, n, [&](unsigned pe, Transport& t) {
            Papers p(t);
            p.enqueue(all, kTo);
            // Each PE sends its number, one bit per waitvec.
            for (unsigned b = 0; b < 3; ++b) got[pe].push_back(p.waitvec((pe >> b) & 1, kTo));
            // Masked: only the even PEs together; odd bits must read 0.
            const uint64_t even = all & 0x5555555555555555ull;
            p.enqueue(pe % 2 ? uint64_t(1) << pe : even, kTo);
            got[pe].push_back(p.waitvec(true, kTo));
        });
        for (unsigned pe = 0; pe < n; ++pe) {
            INFO("PE" << pe);
            for (unsigned b = 0; b < 3; ++b) {
                uint64_t expect = 0;
                for (unsigned k = 0; k < n; ++k) expect |= uint64_t((k >> b) & 1) << k;
                CHECK(got[pe][b] == expect);
            }
            CHECK(got[pe][3] == (pe % 2 ? uint64_t(1) << pe : all & 0x5555555555555555ull));
        }
    }
}

TEST_CASE("vhub: IR interrupts exactly the PEs of the requester's mask", "[system][vhub]") {
    SimProcess hub(4);
    std::atomic<bool> raised{false}, done{false};
    std::atomic<int> seen_count{0};
    std::vector<int> seen(4, -1);
    run_pes(hub, 4, [&](unsigned pe, Transport& t) {
        Papers p(t);
        p.enqueue(0xf, kTo);
        p.wait(kTo);
        if (pe == 1) {
            p.enqueue(0xb, kTo);  // PE1 interrupts PE0, PE1, PE3 -- not PE2
            p.set_interrupt_request(true);
            raised = true;
            const auto deadline = clk::now() + kTo;
            bool s = false;
            while (!(s = p.status().intr) && clk::now() < deadline) {}
            seen[pe] = s;
            ++seen_count;
            while (seen_count < 4 && clk::now() < deadline) std::this_thread::yield();
            p.set_interrupt_request(false);
            done = true;
        } else {
            while (!raised) std::this_thread::yield();
            const auto deadline = clk::now() + (pe == 2 ? milliseconds(100) : kTo);
            bool s = false;
            while (!(s = p.status().intr) && clk::now() < deadline) {}
            seen[pe] = s;
            ++seen_count;
            while (!done) std::this_thread::yield();
            if (pe != 2) CHECK_FALSE(p.status().intr);  // cleared
        }
    });
    CHECK(seen == std::vector<int>{1, 1, 0, 1});
}

TEST_CASE("vhub: a timeout names the PEs that never arrived, apart from those that left", "[system][vhub]") {
    SimProcess hub(4);
    std::vector<uint64_t> never(4, ~uint64_t(0)), left(4, ~uint64_t(0));
    std::vector<std::string> what(4);
    run_pes(hub, 4, [&](unsigned pe, Transport& t) {
        Papers p(t);
        p.enqueue(0xf, kTo);
        if (pe == 3) return;  // attached, never waits
        try {
            p.wait(milliseconds(300 * (pe + 1)));  // PE0 gives up first, then PE1, then PE2
        } catch (const TimeoutError& e) {
            never[pe] = e.never_arrived;
            left[pe] = e.left_pes;
            what[pe] = e.what();
        }
    });
    // PE3 never came.  PE1 and PE2 had arrived when PE0 gave up.
    CHECK(never[0] == 0x8);
    CHECK(left[0] == 0);
    CHECK_THAT(what[0], Contains("never arrived: PE3") && !Contains("left"));
    // Each PE withdraws S when it gives up: the later ones saw it arrive and
    // leave, and say so apart from PE3, which never arrived.
    CHECK(never[1] == 0x8);
    CHECK(left[1] == 0x1);
    CHECK(never[2] == 0x8);
    CHECK(left[2] == 0x3);
    CHECK_THAT(what[2], Contains("never arrived: PE3") && Contains("timed out themselves") && Contains("PE0, PE1"));
}

TEST_CASE("vhub: a malformed request gets an error naming it and its connection is closed; others carry on",
          "[system][vhub]") {
    SimProcess hub(4);
    {
        // A value wider than the register is a well-formed request: error, carry on.
        auto t = open_device(hub.dev(0));
        auto& s = sim_of(*t);
        auto a = s.raw(vhub::kMagic, vhub::WDATA, reg_t(1) << 8);
        CHECK_FALSE(a.ok);
        CHECK_THAT(a.text, Contains("bits above the 8-bit data register"));
        CHECK(s.raw(vhub::kMagic, vhub::RSTATUS, 0).ok);
    }
    struct Bad {
        const char* what;
        std::function<std::vector<uint8_t>()> bytes;
        const char* says;
    };
    auto req = [](uint16_t magic, uint16_t op, uint32_t reserved, uint32_t wait_ms) {
        vhub::Request q;
        q.magic = magic;
        q.op = op;
        q.seq = 1;
        q.reserved = reserved;
        q.wait_ms = wait_ms;
        std::vector<uint8_t> b(sizeof q);
        std::memcpy(b.data(), &q, sizeof q);
        return b;
    };
    const std::vector<Bad> bad{
        {"bad magic", [&] { return req(0x1234, vhub::RSTATUS, 0, 0); }, "bad magic 0x1234"},
        {"unknown op", [&] { return req(vhub::kMagic, 99, 0, 0); }, "unknown op 99"},
        {"reserved set", [&] { return req(vhub::kMagic, vhub::RSTATUS, 7, 0); }, "reserved field is 7"},
        {"wait fields on a read", [&] { return req(vhub::kMagic, vhub::RSTATUS, 0, 5); }, "wait fields set"},
        {"garbage, then a good request out of step",
         [&] {
             std::vector<uint8_t> b(11, 0xee);
             auto g = req(vhub::kMagic, vhub::RSTATUS, 0, 0);
             b.insert(b.end(), g.begin(), g.end());
             return b;
         },
         "bad magic 0xeeee"},
    };
    for (const auto& c : bad) {
        INFO(c.what);
        auto t = open_device(hub.dev(1));
        auto& s = sim_of(*t);
        const auto bytes = c.bytes();
        auto a = s.raw_bytes(bytes.data(), bytes.size(), t->in(std::chrono::seconds(5)));
        CHECK_FALSE(a.ok);
        CHECK_THAT(a.text, Contains(c.says) && Contains("closing the connection"));
        // Then the hub closes: the next request finds the connection gone.
        CHECK_THROWS_WITH(s.read_status(t->in(std::chrono::seconds(5))),
                          Contains("hub closed the connection") || Contains("hub reset the connection"));
    }
    // The port can be taken again, and the whole hub still works.
    check_barriers(hub, 4, 10, {0xf, 0xf, 0xf, 0xf});
    CHECK_THAT(hub.log(), Contains("PE1: malformed request (bad magic 0x1234"));
}

TEST_CASE("vhub: a second client on a taken port is refused", "[system][vhub]") {
    SimProcess hub(2);
    auto first = open_device(hub.dev(0));
    try {
        open_device(hub.dev(0));
        FAIL("second client accepted");
    } catch (const DeviceError& e) {
        CHECK_THAT(e.what(), Contains("already in use by another client"));
    }
    // The first client is undisturbed; the other port is free.
    CHECK_NOTHROW(first->read_status());
    CHECK_NOTHROW(open_device(hub.dev(1))->read_status());
}

TEST_CASE("vhub: SIGTERM removes the sockets and the directory it made; --dir kept", "[system][vhub]") {
    std::string dir;
    {
        SimProcess hub(2);
        dir = hub.dir();
        REQUIRE(exists(dir + "/pe0"));
        auto t = open_device(hub.dev(1));  // a connected client does not hold it up
        REQUIRE(::kill(hub.pid(), SIGTERM) == 0);
        const int st = hub.reap(kExitMs);
        REQUIRE(st != -1);
        CHECK(WIFEXITED(st));
        CHECK(WEXITSTATUS(st) == 0);
    }
    CHECK_FALSE(exists(dir));

    char tmpl[] = "/tmp/aggnet-test-XXXXXX";
    REQUIRE(::mkdtemp(tmpl));
    {
        SimProcess hub(2, {"--dir", tmpl});
        CHECK(hub.dir() == tmpl);
        REQUIRE(exists(std::string(tmpl) + "/pe1"));
        ::kill(hub.pid(), SIGINT);
        REQUIRE(hub.reap(kExitMs) != -1);
    }
    CHECK_FALSE(exists(std::string(tmpl) + "/pe0"));
    CHECK_FALSE(exists(std::string(tmpl) + "/pe1"));
    CHECK(exists(tmpl));  // not ours to remove
    ::rmdir(tmpl);
}

TEST_CASE("vhub: an idle hub sleeps; QUIT stops it; --trace writes a waveform", "[system][vhub]") {
    char tmpl[] = "/tmp/aggnet-test-XXXXXX";
    REQUIRE(::mkdtemp(tmpl));
    const std::string fst = std::string(tmpl) + "/run.fst";
    SimProcess hub(4, {"--trace", fst});
    std::vector<std::unique_ptr<Transport>> ts;
    for (unsigned pe = 0; pe < 4; ++pe) ts.push_back(open_device(hub.dev(pe)));
    const uint64_t c0 = sim_of(*ts[0]).hub_cycle();
    const long cpu0 = hub.cpu_ticks();
    ::usleep(300000);  // all clients connected and blocked: the hub must not spin
    CHECK(hub.cpu_ticks() - cpu0 <= 3);  // 3 ticks = 30 ms of 300
    CHECK(sim_of(*ts[0]).hub_cycle() == c0);  // no simulated time passes while idle
    ts[0]->read_status();
    CHECK(sim_of(*ts[0]).hub_cycle() == c0 + sim_of(*ts[0]).cycles_per_access());
    CHECK(sim_of(*ts[2]).hub_ops() == 0);
    sim_of(*ts[2]).quit();
    const int st = hub.reap(kExitMs);
    REQUIRE(st != -1);
    CHECK(WEXITSTATUS(st) == 0);
    struct stat fs;
    REQUIRE(::stat(fst.c_str(), &fs) == 0);
    CHECK(fs.st_size > 100);
    ::unlink(fst.c_str());
    ::rmdir(tmpl);
}
