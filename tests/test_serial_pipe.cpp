// test_serial_pipe.cpp: SerialPipe (host/src/serial_pipe.cpp) on real
// pseudo-terminal pairs.  The pipe opens the slave side by its path, as it
// would /dev/ttyUSB0; the test plays the far end on the master side.
//
//   - every byte value passes both ways unchanged (raw mode really is raw),
//     and random frames arrive whole;
//   - recv returns 0 at its deadline, within a few ms, and early when bytes come;
//   - the baud asked for round-trips (a pty keeps any termios2 rate), read
//     back independently with TCGETS2 and glibc's tcgetattr;
//   - closing the master (the cable pulled) gives "the device went away";
//   - a second SerialPipe on the same port is refused;
//   - a LinkClient over the pipe against a C++ hub (tests/fake_hub.hpp) on the
//     master side: thousands of commands from several PEs, every value checked,
//     every write applied exactly once; and the round-trip latency, printed.
//
// The fake-syscall tests (FTDI latency timer, baud rounding, open errors) are
// in test_serial_sys.cpp, which needs the kernel's termios2 headers; this file
// needs glibc's <termios.h> (openpty), and the two cannot be included together.
#include "fake_hub.hpp"
#include "seed.hpp"

#include <aggnet/link_client.hpp>
#include <aggnet/serial_pipe.hpp>
#include "pty.hpp"
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <random>
#include <grp.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <thread>
#include <unistd.h>

using namespace aggnet;
using namespace aggnet::link;
using Catch::Matchers::Contains;
using std::chrono::microseconds;
using std::chrono::milliseconds;
using std::chrono::nanoseconds;
namespace D = aggnet::link_defs;

unsigned serial_test_ospeed(int fd);  // test_serial_sys.cpp: TCGETS2's c_ospeed

namespace {

nanoseconds steady() {
    return std::chrono::duration_cast<nanoseconds>(std::chrono::steady_clock::now().time_since_epoch());
}

using aggnet::test::Pty;

/// The hub at the far end of the cable: a thread on the pty master that
/// decodes frames, hands them to a FakeHub and writes its replies back.  It
/// bumps the hub's counter register (0x3000) every `tick` of real time.
struct Responder {
    Pty& pty;
    test::FakeHub hub;
    std::atomic<bool> stop{false};
    std::atomic<bool> silent{false};  // read and drop everything
    microseconds tick{200};
    std::thread th;
    uint64_t replies = 0;

    explicit Responder(Pty& p) : pty(p) {}
    ~Responder() { halt(); }
    void start() { th = std::thread([this] { run(); }); }
    void halt() {
        stop = true;
        if (th.joinable()) th.join();
    }
    void run() {
        Decoder dec;
        std::vector<Frame> out;
        std::vector<uint8_t> bytes;
        nanoseconds next_tick = steady() + tick;
        while (!stop) {
            pollfd q{pty.master, POLLIN, 0};
            const timespec ts{0, 100000};  // 0.1 ms: the counter ticks and WAITs get re-checked
            ::ppoll(&q, 1, &ts, nullptr);
            uint8_t b[1024];
            const ssize_t r = ::read(pty.master, b, sizeof b);
            if (steady() >= next_tick) {
                hub.bump();
                next_tick += tick;
            }
            out.clear();
            if (r > 0 && !silent)
                for (ssize_t i = 0; i < r; ++i)
                    if (dec.push(b[i])) hub.handle(dec.frame(), out);
            hub.poll(out);
            bytes.clear();
            for (const auto& f : out) encode(f, bytes);
            if (!bytes.empty()) pty.write_all(bytes.data(), bytes.size());
            replies += out.size();
        }
    }
};

/// A thread joined when it goes out of scope, so that a failed REQUIRE (an
/// exception) does not leave a joinable std::thread behind (std::terminate).
struct Joined {
    std::thread th;
    template <class F>
    explicit Joined(F f) : th(std::move(f)) {}
    ~Joined() { join(); }
    void join() {
        if (th.joinable()) th.join();
    }
};

std::string error_of(const std::string& path, unsigned baud) {
    try {
        SerialPipe p(path, baud);
    } catch (const DeviceError& e) {
        return e.what();
    }
    return "(no DeviceError)";
}

double percentile(std::vector<double> v, double q) {
    std::sort(v.begin(), v.end());
    return v[size_t(q * double(v.size() - 1))];
}

}  // namespace

TEST_CASE("serial pty: every byte value passes both ways unchanged; random frames arrive whole", "[serial][pty]") {
    Pty pty;
    SerialPipe pipe(pty.path, 3000000);
    INFO(pipe.notes());
    // all 256 values, twice, including ^C, ^S/^Q, CR/LF, DEL, 0xFF, NUL
    std::vector<uint8_t> all;
    for (int r = 0; r < 2; ++r)
        for (int b = 0; b < 256; ++b) all.push_back(uint8_t(b));
    pipe.send(all.data(), all.size());
    CHECK(pty.read_n(all.size()) == all);
    REQUIRE(pty.write_all(all.data(), all.size()));
    std::vector<uint8_t> got;
    uint8_t buf[512];
    const nanoseconds end = pipe.now() + milliseconds(2000);
    while (got.size() < all.size() && pipe.now() < end) {
        const size_t k = pipe.recv(buf, sizeof buf, end);
        got.insert(got.end(), buf, buf + k);
    }
    CHECK(got == all);

    // random frames, biased to FLAG/ESC, both ways, decoded on the other side
    std::mt19937_64 rng(aggnet::sim::test_seed("serial pty frames"));
    Decoder at_master, at_pipe;
    for (int i = 0; i < 500; ++i) {
        Frame f;
        f.pe = uint8_t(rng() % 64);
        f.op = uint8_t(rng());
        f.seq = uint8_t(rng() % 3 == 0 ? 0x7e : rng());
        f.addr = uint16_t(rng() % 2 ? 0x7d7e : rng());
        f.len = uint8_t(rng() % 9);
        for (unsigned k = 0; k < f.len; ++k) f.payload[k] = uint8_t(rng() % 2 ? 0x7e - (rng() & 1) : rng());
        const std::vector<uint8_t> wire = encode(f);
        pipe.send(wire.data(), wire.size());
        const std::vector<uint8_t> there = pty.read_n(wire.size());
        REQUIRE(there == wire);
        bool whole = false;
        for (uint8_t b : there) whole = at_master.push(b);
        REQUIRE(whole);
        CHECK(at_master.frame() == f);
        REQUIRE(pty.write_all(wire.data(), wire.size()));
        whole = false;
        for (size_t n = 0; n < wire.size();) {
            const size_t k = pipe.recv(buf, sizeof buf, pipe.now() + milliseconds(1000));
            REQUIRE(k > 0);
            for (size_t j = 0; j < k; ++j) whole = at_pipe.push(buf[j]);
            n += k;
        }
        REQUIRE(whole);
        CHECK(at_pipe.frame() == f);
    }
    CHECK(at_master.stats().frames_ok == 500u);
    CHECK(at_pipe.stats().frames_ok == 500u);
    CHECK(at_pipe.stats().crc_err + at_pipe.stats().resync == 0u);
}

TEST_CASE("serial pty: recv returns 0 at its deadline, within a few ms, and early when bytes come", "[serial][pty]") {
    Pty pty;
    SerialPipe pipe(pty.path, 3000000);
    uint8_t buf[64];
    std::vector<double> late_ms;
    for (int i = 0; i < 20; ++i) {
        const nanoseconds wait = milliseconds(2 + i % 9);
        const nanoseconds t0 = pipe.now();
        CHECK(pipe.recv(buf, sizeof buf, t0 + wait) == 0u);
        const nanoseconds t1 = pipe.now();
        CHECK(t1 >= t0 + wait);  // never early
        late_ms.push_back(double((t1 - t0 - wait).count()) / 1e6);
    }
    const double med = percentile(late_ms, 0.5), worst = percentile(late_ms, 1.0);
    std::fprintf(stderr, "[serial] recv deadline overshoot: median %.3f ms, worst %.3f ms of 20\n", med, worst);
    // A property, not a benchmark: the deadline holds, give or take the
    // scheduler of a loaded 2-core machine.  The bounds are loose because CI
    // runs this while builds run, and has seen overshoots there many times a
    // quiet machine's (the line above prints this run's).
    CHECK(med < 20.0);
    CHECK(worst < 500.0);
    // a deadline already past: returns at once
    const nanoseconds t0 = pipe.now();
    CHECK(pipe.recv(buf, sizeof buf, t0 - milliseconds(5)) == 0u);
    CHECK(pipe.now() - t0 < milliseconds(5));
    // bytes that come after 20 ms end a 5 s wait then
    Joined writer([&] {
        std::this_thread::sleep_for(milliseconds(20));
        const uint8_t b[3] = {1, 2, 3};
        pty.write_all(b, 3);
    });
    const nanoseconds t2 = pipe.now();
    size_t k = pipe.recv(buf, sizeof buf, t2 + std::chrono::seconds(5));
    const nanoseconds took = pipe.now() - t2;
    writer.join();
    while (k < 3) k += pipe.recv(buf + k, sizeof buf - k, pipe.now() + milliseconds(100));
    CHECK(k == 3u);
    CHECK(took >= milliseconds(19));
    CHECK(took < milliseconds(500));
}

TEST_CASE("serial pty: the baud round-trips; the line is raw 8N1 (read back independently)", "[serial][pty]") {
    for (unsigned baud : {9600u, 115200u, 1234567u, 3000000u, 12000000u}) {
        Pty pty;
        SerialPipe pipe(pty.path, baud);
        INFO(baud << ": " << pipe.notes());
        CHECK(pipe.baud() == baud);
        CHECK(pipe.status().requested_baud == baud);
        CHECK_THAT(pipe.notes(), Contains(std::to_string(baud) + " baud as asked"));
        // through another descriptor of the same tty: termios2, and glibc's view
        CHECK(serial_test_ospeed(pty.slave) == baud);
        termios t{};
        REQUIRE(::tcgetattr(pty.slave, &t) == 0);
        // standard rates carry their code, others BOTHER (0010000, which glibc does not name)
        if (baud == 9600) CHECK(::cfgetospeed(&t) == B9600);
        if (baud == 115200) CHECK(::cfgetospeed(&t) == B115200);
        if (baud == 3000000) CHECK(::cfgetospeed(&t) == B3000000);
        if (baud == 1234567 || baud == 12000000) CHECK((t.c_cflag & CBAUD) == 0010000u);
        CHECK((t.c_cflag & CSIZE) == CS8);
        CHECK((t.c_cflag & (PARENB | CSTOPB | CRTSCTS)) == 0u);
        CHECK((t.c_cflag & (CLOCAL | CREAD)) == (CLOCAL | CREAD));
        CHECK((t.c_lflag & (ICANON | ECHO | ISIG | IEXTEN)) == 0u);
        CHECK((t.c_iflag & (IXON | IXOFF | ICRNL | ISTRIP)) == 0u);
        CHECK((t.c_oflag & OPOST) == 0u);
        CHECK(t.c_cc[VMIN] == 0);
        CHECK(t.c_cc[VTIME] == 0);
    }
}

TEST_CASE("serial pty: low latency does not apply and says so, quietly", "[serial][pty]") {
    Pty pty;
    SerialPipe pipe(pty.path, 3000000);
    INFO(pipe.notes());
    CHECK_FALSE(pipe.status().low_latency);
    CHECK(pipe.status().latency_timer_ms == -1);
    CHECK(pipe.status().tty == pty.path.substr(5));  // "pts/N"
    CHECK_THAT(pipe.notes(), Contains("no ASYNC_LOW_LATENCY here"));
    CHECK_THAT(pipe.notes(), Contains("no FTDI latency timer (" + pty.path.substr(5) + " is not a USB serial bridge)"));
}

TEST_CASE("serial pty: closing the master (the cable pulled) gives 'the device went away'", "[serial][pty]") {
    SECTION("while waiting in recv") {
        Pty pty;
        SerialPipe pipe(pty.path, 3000000);
        Joined puller([&] {
            std::this_thread::sleep_for(milliseconds(20));
            pty.close_master();
        });
        uint8_t buf[16];
        const nanoseconds t0 = pipe.now();
        try {
            pipe.recv(buf, sizeof buf, t0 + std::chrono::seconds(5));
            FAIL("no DeviceError");
        } catch (const DeviceError& e) {
            CHECK_THAT(e.what(), Contains("serial:" + pty.path + "@3000000: the device went away (hangup"));
        }
        puller.join();
        CHECK(pipe.now() - t0 < milliseconds(1000));  // at once, not at the deadline
        CHECK_FALSE(pipe.is_open());
        const uint8_t f[2] = {0x7e, 0};
        CHECK_THROWS_WITH(pipe.send(f, 2), Contains("the device went away"));
    }
    SECTION("before a send") {
        Pty pty;
        SerialPipe pipe(pty.path, 12000000);
        pty.close_master();
        const uint8_t f[2] = {0x7e, 0};
        CHECK_THROWS_WITH(pipe.send(f, 2), Contains("serial:" + pty.path + "@12000000: the device went away"));
    }
}

TEST_CASE("serial pty: the port is exclusive: a second SerialPipe is refused, free again after close",
          "[serial][pty]") {
    Pty pty;
    {
        SerialPipe first(pty.path, 3000000);
        const std::string m = error_of(pty.path, 3000000);
        CHECK_THAT(m, Contains("serial:" + pty.path + "@3000000: "));
        CHECK_THAT(m, Contains("in use by another program"));
        // TIOCEXCL is set on the tty: a plain open() is refused with EBUSY,
        // except for root (CAP_SYS_ADMIN), who can ask the tty (TIOCGEXCL).
        const int fd = ::open(pty.path.c_str(), O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0) {
            CHECK(errno == EBUSY);
        } else {
            int excl = 0;
            REQUIRE(::ioctl(fd, TIOCGEXCL, &excl) == 0);
            CHECK(excl == 1);
            ::close(fd);
        }
        // still working
        const uint8_t b[2] = {0x7e, 0x42};
        first.send(b, 2);
        CHECK(pty.read_n(2) == std::vector<uint8_t>{0x7e, 0x42});
    }
    // the exclusive mode went with the pipe, although the pty's own slave
    // descriptor keeps the tty open (else only root could open it again)
    int excl = -1;
    REQUIRE(::ioctl(pty.slave, TIOCGEXCL, &excl) == 0);
    CHECK(excl == 0);
    {
        SerialPipe again(pty.path, 3000000);
        CHECK(again.is_open());
    }
    // another program (minicom, picocom) holding the tty exclusively refuses us, root or not
    REQUIRE(::ioctl(pty.slave, TIOCEXCL) == 0);
    CHECK_THAT(error_of(pty.path, 3000000), Contains("in use by another program"));
    REQUIRE(::ioctl(pty.slave, TIOCGEXCL, &excl) == 0);
    CHECK(excl == 1);  // and its claim stands
    REQUIRE(::ioctl(pty.slave, TIOCNXCL) == 0);
}

TEST_CASE("serial: real open errors name the device and the reason", "[serial][pty]") {
    CHECK_THAT(error_of("/dev/ttyUSB-aggnet-none", 3000000),
               Contains("serial:/dev/ttyUSB-aggnet-none@3000000: cannot open: No such file or directory: no such device;"
                        " is the board plugged in?"));
    CHECK_THAT(error_of("/dev/null", 3000000), Contains("serial:/dev/null@3000000: not a serial device"));
    char tmpl[] = "/tmp/aggnet-serial-XXXXXX";
    const int fd = ::mkstemp(tmpl);
    REQUIRE(fd >= 0);
    ::close(fd);
    CHECK_THAT(error_of(tmpl, 115200), Contains("not a serial device"));
    ::unlink(tmpl);
    CHECK_THAT(error_of("/tmp", 115200), Contains("serial:/tmp@115200: cannot open"));
}

TEST_CASE("serial: a port we may not open says 'add yourself to group dialout'", "[serial][pty]") {
    // A pty slave with mode 0600 owned by root, opened by another user: as
    // root, a forked child that drops to nobody; otherwise the slave (ours)
    // with mode 0000, which the owner may not open either.
    Pty pty;
    std::string m;
    if (::geteuid() == 0) {
        REQUIRE(::fchown(pty.slave, 0, 0) == 0);
        REQUIRE(::fchmod(pty.slave, 0600) == 0);
        int fds[2];
        REQUIRE(::pipe(fds) == 0);
        const pid_t child = ::fork();
        REQUIRE(child >= 0);
        if (child == 0) {
            ::close(fds[0]);
            std::string out;
            if (::setgroups(0, nullptr) != 0 || ::setresgid(65534, 65534, 65534) != 0 ||
                ::setresuid(65534, 65534, 65534) != 0)
                out = "(cannot drop privileges)";
            else
                out = error_of(pty.path, 3000000);
            if (::write(fds[1], out.data(), out.size()) < 0) _exit(2);
            _exit(0);
        }
        ::close(fds[1]);
        char buf[1024];
        ssize_t k;
        while ((k = ::read(fds[0], buf, sizeof buf)) > 0) m.append(buf, size_t(k));
        ::close(fds[0]);
        int st = 0;
        ::waitpid(child, &st, 0);
        CHECK(WIFEXITED(st));
    } else {
        REQUIRE(::fchmod(pty.slave, 0) == 0);
        m = error_of(pty.path, 3000000);
    }
    CHECK_THAT(m, Contains("serial:" + pty.path + "@3000000: cannot open: Permission denied: no permission: add yourself"
                           " to group dialout"));
}

TEST_CASE("serial pty: a LinkClient over SerialPipe against a hub on the master side", "[serial][pty][client]") {
    std::mt19937_64 rng(aggnet::sim::test_seed("serial pty link client"));
    Pty pty;
    Responder resp(pty);
    resp.start();
    SerialPipe pipe(pty.path, 3000000);
    LinkConfig cfg;
    cfg.resend_timeout = milliseconds(50);  // a loaded machine; a resend is harmless anyway
    LinkClient c(pipe, pipe.device(), cfg);

    HelloInfo h = c.hello(0);
    CHECK(h.version == D::VERSION);
    CHECK(h.port_pes == 4u);
    CHECK(h.clk_hz == 48000000u);

    // the client's model of the per-PE registers
    std::map<std::pair<unsigned, uint16_t>, uint32_t> model;
    std::array<std::vector<std::pair<uint16_t, uint32_t>>, 64> issued{};
    unsigned n_read = 0, n_write = 0, n_wait = 0, n_err = 0, n_pair = 0;
    const int kCommands = 4000;
    for (int i = 0; i < kCommands; ++i) {
        const unsigned pe = unsigned(rng() % 4);
        const uint16_t addr = uint16_t(0x1000 + rng() % 8);
        const unsigned size = 1 + unsigned(rng() % 4);
        const uint32_t m = size == 4 ? 0xffffffffu : (1u << (8 * size)) - 1;
        switch (rng() % 10) {
        case 0: case 1: case 2: case 3: {  // WRITE
            const uint32_t v = uint32_t(rng()) & m;
            c.write(pe, addr, v, size);
            model[{pe, addr}] = v;
            issued[pe].push_back({addr, v});
            ++n_write;
            break;
        }
        case 4: case 5: case 6: {  // READ
            const uint32_t v = c.read(pe, addr, size);
            REQUIRE(v == (model[{pe, addr}] & m));
            ++n_read;
            break;
        }
        case 7: {  // WAIT that holds at once, on a per-PE register
            const uint32_t cur = model[{pe, addr}] & m;
            const uint32_t mask = uint32_t(rng()) & m;
            REQUIRE(c.wait(pe, addr, mask, cur & mask, size, milliseconds(1000)) == cur);
            ++n_wait;
            break;
        }
        case 8: {  // WAIT on the hub's counter (pending: ACK, then DATA)
            const uint32_t want = uint32_t(rng() % 4);
            const uint32_t v = c.wait(pe, 0x3000, 0x3, want, 1, milliseconds(2000));
            REQUIRE((v & 0x3) == want);
            ++n_wait;
            break;
        }
        default: {  // errors: missing register, refused write
            if (rng() % 2) {
                try {
                    c.read(pe, uint16_t(0xE000 + rng() % 16), 1);
                    FAIL("no RegisterError");
                } catch (const RegisterError& e) {
                    REQUIRE(e.code == D::ERR_NO_REG);
                }
            } else {
                try {
                    c.write(pe, 0xF001, 1, 1);
                    FAIL("no RegisterError");
                } catch (const RegisterError& e) {
                    REQUIRE(e.code == D::ERR_REFUSED);
                }
            }
            ++n_err;
            break;
        }
        }
        if (i % 200 == 0) {
            // two PEs at once on one stream: PE a waits on a shared register, PE b writes it
            const unsigned a = unsigned(rng() % 4), b = (a + 1 + unsigned(rng() % 3)) % 4;
            const uint16_t reg = uint16_t(0x4000 + i / 200);
            const uint32_t v = 0x100 | uint32_t(rng() % 256);
            c.start_wait(a, reg, 0xffff, v, 2, pipe.now() + milliseconds(2000));
            // let the WAIT reach the hub and be accepted first
            uint8_t buf[512];
            const nanoseconds until = pipe.now() + milliseconds(20);
            while (pipe.now() < until && !c.done(a)) c.feed(buf, pipe.recv(buf, sizeof buf, std::min(c.poll(), until)));
            REQUIRE_FALSE(c.done(a));
            c.start_write(b, reg, v, 2);
            issued[b].push_back({reg, v});
            while (!(c.done(a) && c.done(b))) c.feed(buf, pipe.recv(buf, sizeof buf, c.poll()));
            LinkResult ra = c.take(a), rb = c.take(b);
            REQUIRE(ra.kind == LinkResult::ok);
            REQUIRE(rb.kind == LinkResult::ok);
            REQUIRE(ra.value == v);
            ++n_pair;
        }
    }
    resp.halt();
    std::fprintf(stderr,
                 "[serial] LinkClient over a pty: %d commands (%u reads, %u writes, %u waits, %u errors, %u two-PE"
                 " waits), %llu frames sent, %llu resends, %llu stale replies\n",
                 kCommands, n_read, n_write, n_wait, n_err, n_pair, (unsigned long long)c.stats().frames_sent,
                 (unsigned long long)c.stats().resends, (unsigned long long)c.stats().stale);
    for (unsigned pe = 0; pe < 4; ++pe) {
        INFO("PE" << pe);
        CHECK(resp.hub.writes[pe] == issued[pe]);  // every write applied once, in order
    }
    CHECK(c.rx_stats().crc_err == 0u);
    CHECK(pipe.stats().bytes_sent > 0u);
}

TEST_CASE("serial pty: the hub going away mid-command is a DeviceError, not a LinkError", "[serial][pty][client]") {
    Pty pty;
    Responder resp(pty);
    resp.start();
    SerialPipe pipe(pty.path, 3000000);
    LinkConfig cfg;
    cfg.resend_timeout = milliseconds(400);  // a LinkError would take 2 s: the hangup must come first
    LinkClient c(pipe, pipe.device(), cfg);
    c.write(1, 0x1000, 0x55, 1);
    resp.silent = true;  // the hub stops answering ...
    Joined puller([&] {
        std::this_thread::sleep_for(milliseconds(30));
        resp.halt();
        pty.close_master();  // ... and the cable is pulled
    });
    const nanoseconds t0 = pipe.now();
    try {
        c.read(1, 0x1000, 1);
        FAIL("no error");
    } catch (const LinkError& e) {
        FAIL("LinkError instead of DeviceError: " << e.what());
    } catch (const DeviceError& e) {
        CHECK_THAT(e.what(), Contains("serial:" + pty.path + "@3000000: the device went away"));
    }
    puller.join();
    CHECK(pipe.now() - t0 < milliseconds(1000));
}

TEST_CASE("serial pty: round-trip latency (printed; a loose bound)", "[serial][pty][latency]") {
    Pty pty;
    Responder resp(pty);
    resp.tick = microseconds(1000000);
    resp.start();
    SerialPipe pipe(pty.path, 3000000);
    LinkClient c(pipe, pipe.device());
    c.hello(2);
    const int kFrames = 10000;
    std::vector<double> us;
    us.reserve(kFrames);
    for (int i = 0; i < kFrames; ++i) {
        const nanoseconds t0 = pipe.now();
        const uint32_t v = c.read(2, 0x1001, 1);
        us.push_back(double((pipe.now() - t0).count()) / 1e3);
        REQUIRE(v == 0u);
    }
    resp.halt();
    const double med = percentile(us, 0.5), p99 = percentile(us, 0.99), worst = percentile(us, 1.0);
    std::fprintf(stderr,
                 "[serial] pty READ round trip (LinkClient -> SerialPipe -> pty -> C++ hub thread and back), %d"
                 " frames: median %.1f us, p99 %.1f us, worst %.1f us; resends %llu\n",
                 kFrames, med, p99, worst, (unsigned long long)c.stats().resends);
    CHECK(med < 2000.0);  // typically tens of microseconds
}
