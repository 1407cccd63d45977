// test_sim_control.cpp: SimControl (host/src/sim_control.cpp), the client of
// aggnet-sim's control socket, against a fake control server in a thread of
// the test: it listens on DIR/control, reads one line per connection, records
// it, and answers with what the test scripted (or nothing, or a close).
// Checked: the exact command lines of the spec (docs/host.md, "The control
// socket"), the parsing of every reply (status as key=value with unknown keys
// kept, cycles in decimal), `err` replies carried as DeviceError with the
// sim's message, garbled replies, a silent server (the timeout), a server
// that closes, no server at all, and arguments refused before sending.
#include <aggnet/sim_control.hpp>
#include <catch2/catch.hpp>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace aggnet;
using Catch::Matchers::Contains;
using std::chrono::milliseconds;

namespace {

/// The fake: `answer(line)` returns the reply line (without '\n'); "<silent>"
/// sends nothing and keeps the connection open until the client leaves,
/// "<close>" closes without a reply.
class FakeControl {
public:
    std::function<std::string(const std::string&)> answer;

    explicit FakeControl(std::function<std::string(const std::string&)> reply) : answer(std::move(reply)) {
        char t[] = "/tmp/aggnet-ctl-XXXXXX";
        REQUIRE(::mkdtemp(t) != nullptr);
        dir = t;
        path = dir + "/control";
        fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        REQUIRE(fd_ >= 0);
        sockaddr_un a{};
        a.sun_family = AF_UNIX;
        std::memcpy(a.sun_path, path.c_str(), path.size() + 1);
        REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
        REQUIRE(::listen(fd_, 4) == 0);
        th_ = std::thread([this] { run(); });
    }
    ~FakeControl() {
        stop_ = true;
        th_.join();
        ::close(fd_);
        ::unlink(path.c_str());
        ::rmdir(dir.c_str());
    }
    std::vector<std::string> lines() {
        std::lock_guard<std::mutex> g(m_);
        return lines_;
    }
    std::string dir, path;

private:
    bool wait_in(int fd) {
        while (!stop_) {
            pollfd p{fd, POLLIN, 0};
            if (::poll(&p, 1, 10) > 0) return true;
        }
        return false;
    }
    void run() {
        while (wait_in(fd_)) {
            const int c = ::accept(fd_, nullptr, nullptr);
            if (c < 0) continue;
            std::string line;
            char ch;
            while (wait_in(c) && ::read(c, &ch, 1) == 1 && ch != '\n') line += ch;
            {
                std::lock_guard<std::mutex> g(m_);
                lines_.push_back(line);
            }
            const std::string r = answer(line);
            if (r == "<silent>") {
                while (wait_in(c) && ::read(c, &ch, 1) == 1) {
                }
            } else if (r != "<close>") {
                const std::string out = r + "\n";
                // (No Catch macros in this thread; a short write shows as a garbled reply.)
                if (::write(c, out.data(), out.size()) != ssize_t(out.size())) {
                }
            }
            ::close(c);
        }
    }
    int fd_ = -1;
    std::atomic<bool> stop_{false};
    std::mutex m_;
    std::vector<std::string> lines_;
    std::thread th_;
};

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const std::exception& e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace

TEST_CASE("sim control: the commands of the spec, and their replies parsed", "[host][simctl]") {
    uint64_t cycle = 1000;
    bool held = false;
    FakeControl fake([&](const std::string& l) -> std::string {
        if (l == "status")
            return "ok cycle=" + std::to_string(cycle) + " held=" + (held ? "1" : "0") +
                   " pes=4 engines=0x3 clk_hz=48000000 queued=17 clients=2 future=yes damaged=5";
        if (l == "cycle") return "ok " + std::to_string(cycle);
        if (l == "hold") return held = true, "ok " + std::to_string(cycle);
        if (l == "release") return held = false, "ok " + std::to_string(cycle);
        if (l.compare(0, 5, "step ") == 0) return cycle += std::strtoull(l.c_str() + 5, nullptr, 10), "ok " + std::to_string(cycle);
        if (l.compare(0, 6, "trace ") == 0 || l == "quit") return "ok";
        return "err unknown command '" + l + "'";
    });
    SimControl c(fake.dir);
    CHECK(c.path() == fake.path);
    CHECK(SimControl(fake.path).path() == fake.path);  // the socket itself
    CHECK(SimControl(fake.dir + "/").path() == fake.path);

    SimStatus s = c.status();
    CHECK(s.cycle == 1000);
    CHECK_FALSE(s.held);
    CHECK(s.pes == 4);
    CHECK(s.engines == 0x3);
    CHECK(s.clk_hz == 48000000);
    CHECK(s.queued == 17);
    CHECK(s.clients == 2);
    CHECK(s.damaged == 5);
    REQUIRE(s.fields.size() == 9);
    CHECK(s.fields[7] == std::make_pair(std::string("future"), std::string("yes")));  // unknown keys kept, in order

    CHECK(c.cycle() == 1000);
    CHECK(c.hold() == 1000);
    CHECK(c.status().held);
    CHECK(c.step(250) == 1250);
    CHECK(c.step(SimControl::kMaxStep) == 1250 + SimControl::kMaxStep);
    CHECK(c.release() == 1250 + SimControl::kMaxStep);
    c.trace("/tmp/x.fst");
    c.trace("rel.fst");
    c.trace_off();
    c.quit();
    char cwd[4096];
    REQUIRE(::getcwd(cwd, sizeof cwd));
    CHECK(fake.lines() == std::vector<std::string>{"status", "cycle", "hold", "status", "step 250", "step 1000000000",
                                                   "release", "trace /tmp/x.fst", "trace " + std::string(cwd) + "/rel.fst",
                                                   "trace off", "quit"});
}

TEST_CASE("sim control: err replies carry the sim's message; garbled replies are refused", "[host][simctl]") {
    std::string next;
    FakeControl fake([&](const std::string&) { return next; });
    SimControl c(fake.dir);
    next = "err step only while held";
    CHECK_THAT(error_of([&] { c.step(5); }),
               Contains("sim control " + fake.path) && Contains("'step 5' refused: step only while held"));
    next = "err";
    CHECK_THAT(error_of([&] { c.quit(); }), Contains("'quit' refused"));
    next = "hello";
    CHECK_THAT(error_of([&] { c.cycle(); }), Contains("garbled reply to 'cycle': 'hello'"));
    next = "ok soon";
    CHECK_THAT(error_of([&] { c.cycle(); }), Contains("garbled reply to 'cycle'") && Contains("'soon', not a number"));
    next = "ok";
    CHECK_THAT(error_of([&] { c.hold(); }), Contains("garbled reply to 'hold'"));
    next = "ok cycle=5 held=0 pes=4 engines=0x3 clk_hz=48000000 queued=0 clients=1";
    CHECK_THAT(error_of([&] { c.status(); }), Contains("no damaged= in"));
    next = "ok cycle=5 held=2 pes=4 engines=0x3 clk_hz=48000000 queued=0 clients=1 damaged=0";
    CHECK_THAT(error_of([&] { c.status(); }), Contains("held=2"));
    next = "ok cycle=5 held=0 pes pes=4";
    CHECK_THAT(error_of([&] { c.status(); }), Contains("'pes' is not key=value"));
    next = "ok cycle=5 held=0 pes=4 engines=3z clk_hz=1 queued=0 clients=1 damaged=0";
    CHECK_THAT(error_of([&] { c.status(); }), Contains("engines is '3z'"));
    // A DeviceError, so that callers can tell a hub problem from their own.
    next = "err no";
    CHECK_THROWS_AS(c.release(), DeviceError);
}

TEST_CASE("sim control: a silent or closing server, or none, fails within the timeout", "[host][simctl]") {
    std::string next = "<silent>";
    FakeControl fake([&](const std::string&) { return next; });
    SimControl c(fake.dir, milliseconds(200));
    const auto t0 = std::chrono::steady_clock::now();
    CHECK_THAT(error_of([&] { c.cycle(); }), Contains("no reply to 'cycle' within") && Contains("stopped"));
    const auto took = std::chrono::steady_clock::now() - t0;
    CHECK(took >= milliseconds(200));
    CHECK(took < milliseconds(5000));
    next = "<close>";
    CHECK_THAT(error_of([&] { c.status(); }),
               Contains("the virtual hub closed the connection") && Contains("(command 'status')"));

    char t[] = "/tmp/aggnet-ctl-none-XXXXXX";
    REQUIRE(::mkdtemp(t) != nullptr);
    CHECK_THAT(error_of([&] { SimControl(t).cycle(); }),
               Contains("sim control " + std::string(t) + "/control") && Contains("no virtual hub there"));
    ::rmdir(t);
}

TEST_CASE("sim control: a long step is waited for in proportion to its cycles, and bounded", "[host][simctl]") {
    // Before the wait scaled with k, any step longer than the timeout (10 s
    // by default; 6 M cycles of the multiplexer hub on a loaded machine) was
    // reported as a stuck sim.
    std::atomic<int> delay_ms{0};
    FakeControl fake([&](const std::string& line) {
        std::this_thread::sleep_for(milliseconds(delay_ms.load()));
        return delay_ms.load() < 0 ? std::string("<silent>") : "ok " + line.substr(line.find(' ') + 1);
    });
    SimControl c(fake.dir, milliseconds(200));
    // 100000 cycles at the floor rate: 1 s more than the timeout; the answer takes 600 ms.
    static_assert(SimControl::kStepFloorHz == 100000, "the allowance below assumes 10 us a cycle");
    delay_ms = 600;
    CHECK(c.step(100000) == 100000u);
    // A silent sim is still reported, after the timeout plus k cycles at the
    // floor rate: 210 ms for 1000 cycles, 500 ms for 30000.
    delay_ms = -1;
    auto t0 = std::chrono::steady_clock::now();
    CHECK_THAT(error_of([&] { c.step(1000); }), Contains("no reply to 'step 1000' within") && Contains("stopped"));
    CHECK(std::chrono::steady_clock::now() - t0 < milliseconds(2000));
    t0 = std::chrono::steady_clock::now();
    CHECK_THAT(error_of([&] { c.step(30000); }), Contains("no reply to 'step 30000' within") && Contains("stopped"));
    const auto took = std::chrono::steady_clock::now() - t0;
    CHECK(took >= milliseconds(500));
    CHECK(took < milliseconds(5000));
}

TEST_CASE("sim control: bad arguments are refused before anything is sent", "[host][simctl]") {
    FakeControl fake([](const std::string&) { return std::string("ok 1"); });
    SimControl c(fake.dir);
    CHECK_THAT(error_of([&] { c.step(0); }), Contains("step takes 1..1000000000 cycles, not 0"));
    CHECK_THAT(error_of([&] { c.step(SimControl::kMaxStep + 1); }), Contains("not 1000000001"));
    CHECK_THAT(error_of([&] { c.trace(""); }), Contains("trace needs a file name"));
    CHECK_THAT(error_of([&] { c.request("cycle\nquit"); }), Contains("one non-empty line"));
    CHECK(fake.lines().empty());
    CHECK_THROWS_AS(SimControl(""), DeviceError);
}

TEST_CASE("sim control: the hub directory of a sim: device string", "[host][simctl]") {
    CHECK(sim_dir_of("sim:/tmp/aggnet-abc/pe3") == "/tmp/aggnet-abc");
    CHECK(sim_dir_of("sim:/tmp/aggnet-abc/link?pe=2") == "/tmp/aggnet-abc");
    CHECK(sim_dir_of("sim:pe0") == ".");
    CHECK(sim_dir_of("serial:/dev/ttyUSB0@3000000").empty());
    CHECK(sim_dir_of("ppdev:/dev/parport0?pe=0").empty());
    CHECK_THROWS_AS(sim_dir_of("sim:/tmp/x/port0"), DeviceSyntaxError);
}
