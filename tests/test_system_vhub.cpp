// test_system_vhub.cpp: the virtual hub as a separate process (aggnet-sim),
// reached by N client threads through open_device("sim:DIR/peK") -- the same
// library path a host program takes to a board.  Barrier order is checked on
// the hub's own clock (its CYCLE counter): no PE leaves a barrier before every
// PE of its mask has arrived.
#include <aggnet/device.hpp>
#include <aggnet/papers.hpp>
#include <aggnet/vhub_protocol.hpp>
#include <catch2/catch.hpp>

#include <atomic>
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

#ifndef AGGNET_SIM_EXE
#error "AGGNET_SIM_EXE: path of aggnet-sim"
#endif

using namespace aggnet;
using Catch::Matchers::Contains;
using std::chrono::milliseconds;
using clk = std::chrono::steady_clock;

namespace {

bool exists(const std::string& p) {
    struct stat st;
    return ::stat(p.c_str(), &st) == 0;
}

/// aggnet-sim as a child process; SIGTERM and reap on destruction.
class SimProcess {
public:
    explicit SimProcess(unsigned n, std::vector<std::string> extra = {}) {
        int out[2];
        REQUIRE(::pipe(out) == 0);
        pid_ = ::fork();
        REQUIRE(pid_ >= 0);
        if (pid_ == 0) {
            ::dup2(out[1], 1);
            ::close(out[0]);
            ::close(out[1]);
            std::vector<std::string> args{AGGNET_SIM_EXE, "--pes", std::to_string(n)};
            args.insert(args.end(), extra.begin(), extra.end());
            std::vector<char*> argv;
            for (auto& a : args) argv.push_back(&a[0]);
            argv.push_back(nullptr);
            ::execv(argv[0], argv.data());
            ::_exit(127);
        }
        ::close(out[1]);
        // First line: "aggnet-sim: N PEs at DIR".
        std::string line;
        char c;
        while (::read(out[0], &c, 1) == 1 && c != '\n') line += c;
        ::close(out[0]);
        const std::string key = " PEs at ";
        const auto at = line.find(key);
        REQUIRE(at != std::string::npos);
        dir_ = line.substr(at + key.size());
    }
    ~SimProcess() {
        if (pid_ > 0) {
            ::kill(pid_, SIGTERM);
            reap(5000);
            if (pid_ > 0) ::kill(pid_, SIGKILL), ::waitpid(pid_, nullptr, 0);
        }
    }
    const std::string& dir() const { return dir_; }
    std::string dev(unsigned pe) const { return "sim:" + dir_ + "/pe" + std::to_string(pe); }
    pid_t pid() const { return pid_; }
    /// Waits up to ms for the child to exit; returns its wait status or -1.
    int reap(int ms) {
        for (int i = 0; i < ms; ++i) {
            int st = 0;
            if (::waitpid(pid_, &st, WNOHANG) == pid_) {
                pid_ = -1;
                return st;
            }
            ::usleep(1000);
        }
        return -1;
    }
    /// CPU time the child has used, in clock ticks.
    long cpu_ticks() const {
        std::ifstream f("/proc/" + std::to_string(pid_) + "/stat");
        std::string s((std::istreambuf_iterator<char>(f)), {});
        std::istringstream in(s.substr(s.rfind(')') + 2));
        std::string tok;
        long utime = 0, stime = 0;
        for (int field = 3; in >> tok; ++field) {
            if (field == 14) utime = std::stol(tok);
            if (field == 15) { stime = std::stol(tok); break; }
        }
        return utime + stime;
    }

private:
    pid_t pid_ = -1;
    std::string dir_;
};

SimTransport& sim_of(Transport& t) { return dynamic_cast<SimTransport&>(t); }

/// Runs fn(pe, transport) on one thread per PE; rethrows the first error.
void run_pes(const SimProcess& hub, unsigned n, const std::function<void(unsigned, Transport&)>& fn) {
    std::vector<std::unique_ptr<Transport>> ts;
    for (unsigned pe = 0; pe < n; ++pe) ts.push_back(open_device(hub.dev(pe)));
    std::vector<std::exception_ptr> err(n);
    std::vector<std::thread> th;
    for (unsigned pe = 0; pe < n; ++pe)
        th.emplace_back([&, pe] {
            try {
                fn(pe, *ts[pe]);
            } catch (...) {
                err[pe] = std::current_exception();
            }
        });
    for (auto& t : th) t.join();
    for (auto& e : err)
        if (e) std::rethrow_exception(e);
}

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

TEST_CASE("vhub: a timeout names the PEs that never arrived", "[system][vhub]") {
    SimProcess hub(4);
    std::vector<uint64_t> missing(4, ~uint64_t(0));
    std::vector<std::string> what(4);
    run_pes(hub, 4, [&](unsigned pe, Transport& t) {
        Papers p(t);
        p.enqueue(0xf, kTo);
        if (pe == 3) return;  // attached, never waits
        try {
            p.wait(milliseconds(200 * (pe + 1)));  // PE0 gives up first, then PE1, then PE2
        } catch (const TimeoutError& e) {
            missing[pe] = e.missing_pes;
            what[pe] = e.what();
        }
    });
    CHECK(missing[0] == 0x8);  // PE1 and PE2 had arrived, PE3 never did
    CHECK_THAT(what[0], Contains("waiting for PE3 of barrier mask 0xf"));
    // Each PE withdraws S when it gives up, so the later timeouts name it too.
    CHECK(missing[1] == 0x9);
    CHECK(missing[2] == 0xb);
    CHECK_THAT(what[2], Contains("PE0, PE1, PE3"));
}

TEST_CASE("vhub: a killed client leaves the hub serving the others; its port can be retaken", "[system][vhub]") {
    SimProcess hub(4);
    {
        auto t3 = open_device(hub.dev(3));
        // PE3 raises S with mask {all} -- mid-barrier -- and dies.
        t3->write_data(reg_t(0xf) << 4 | 0x8);
    }
    // Its port is free again at once (the hub released PE3's pins: S and mask
    // low); a new client that does nothing holds it.
    auto idle3 = open_device(hub.dev(3));
    std::vector<uint64_t> missing(3);
    std::vector<unsigned> done(3);
    std::atomic<unsigned> gave_up{0};
    run_pes(hub, 3, [&](unsigned pe, Transport& t) {
        Papers p(t);
        p.enqueue(0xf, kTo);
        try {
            p.wait(milliseconds(300));
        } catch (const TimeoutError& e) {
            missing[pe] = e.missing_pes;
        }
        // Agree out of band that all three gave up before re-forming: a PE
        // that re-forms early would barrier with the S still held by one
        // that is yet to time out (its mask {all} contains us), and the two
        // would then disagree about which barrier they are in.
        ++gave_up;
        const auto deadline = std::chrono::steady_clock::now() + kTo;
        while (gave_up < 3 && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
        p.enqueue(0x7, kTo);  // carry on without PE3
        for (int i = 0; i < 50; ++i) p.wait(kTo), ++done[pe];
    });
    for (unsigned pe = 0; pe < 3; ++pe) CHECK((missing[pe] & 0x8) != 0);  // PE3 did not arrive
    CHECK(done == std::vector<unsigned>{50, 50, 50});
    idle3.reset();
    // All four barrier together again.
    check_barriers(hub, 4, 20, {0xf, 0xf, 0xf, 0xf});
}

TEST_CASE("vhub: a malformed request gets an error reply and the hub keeps serving", "[system][vhub]") {
    SimProcess hub(4);
    auto t = open_device(hub.dev(0));
    auto& s = sim_of(*t);
    auto a = s.raw(0x1234, vhub::RSTATUS, 0);
    CHECK_FALSE(a.ok);
    CHECK_THAT(a.text, Contains("bad magic 0x1234"));
    a = s.raw(vhub::kMagic, 99, 0);
    CHECK_FALSE(a.ok);
    CHECK_THAT(a.text, Contains("unknown op 99"));
    a = s.raw(vhub::kMagic, vhub::WDATA, reg_t(1) << 8);
    CHECK_FALSE(a.ok);
    CHECK_THAT(a.text, Contains("bits above the 8-bit data register"));
    // The same connection keeps working, and so does the whole hub.
    CHECK(s.raw(vhub::kMagic, vhub::RSTATUS, 0).ok);
    s.close();
    check_barriers(hub, 4, 10, {0xf, 0xf, 0xf, 0xf});
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
        const int st = hub.reap(5000);
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
        REQUIRE(hub.reap(5000) != -1);
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
    const int st = hub.reap(5000);
    REQUIRE(st != -1);
    CHECK(WEXITSTATUS(st) == 0);
    struct stat fs;
    REQUIRE(::stat(fst.c_str(), &fs) == 0);
    CHECK(fs.st_size > 100);
    ::unlink(fst.c_str());
    ::rmdir(tmpl);
}
