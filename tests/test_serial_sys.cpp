// test_serial_sys.cpp: SerialPipe (host/src/serial_pipe.cpp) against a fake
// system call layer that plays the kernel's tty side: an FTDI bridge with a
// latency timer in sysfs (writable or not), other bridges without one, a
// driver that rounds the baud to its clock divider (FT232R: 3 MHz / n+k/8,
// 9600 for a rate it cannot make), open errors, partial writes, EAGAIN and
// EINTR, and a device that vanishes.  The fake clock advances only in poll(),
// so deadlines are checked exactly.
//
// This file speaks termios2 through the kernel headers, like serial_pipe.cpp,
// and so must not include <termios.h> or <pty.h>; the pty tests are in
// test_serial_pipe.cpp (same binary).  serial_test_ospeed() below is the pty
// tests' independent read-back of a tty's rate.
#include "seed.hpp"

#include <aggnet/serial_pipe.hpp>
#include <catch2/catch.hpp>

#include <asm/ioctls.h>
#include <asm/termbits.h>
#include <linux/serial.h>

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstring>
#include <deque>
#include <fcntl.h>
#include <functional>
#include <map>
#include <random>
#include <sys/file.h>
#include <sys/ioctl.h>

using namespace aggnet;
using namespace aggnet::link;
using Catch::Matchers::Contains;
using std::chrono::milliseconds;
using std::chrono::nanoseconds;

/// The output rate of a real tty, read with TCGETS2 (for test_serial_pipe.cpp).
unsigned serial_test_ospeed(int fd) {
    termios2 t{};
    if (::ioctl(fd, TCGETS2, &t) != 0) return 0;
    return t.c_ospeed;
}

namespace {

constexpr int kFd = 7;

/// An FT232R's rate for `asked`: 3 MHz / d with d = 1, 1.5 or n + k/8 (n >= 2),
/// the closest one; ftdi_sio falls back to 9600 for a rate above 3 Mbaud.
unsigned ft232r_rate(unsigned asked) {
    if (asked > 3030000) return 9600;
    double best = 3e6;
    auto consider = [&](double d) {
        const double r = 3e6 / d;
        if (std::fabs(r - asked) < std::fabs(best - asked)) best = r;
    };
    consider(1.5);
    for (unsigned n = 2; n < 16384; ++n)
        for (unsigned k = 0; k < 8; ++k) consider(n + k / 8.0);
    return unsigned(std::lround(best));
}

class FakeSys final : public SerialSys {
public:
    // ---- the device node ----
    std::string node = "/dev/ttyUSB1";
    int open_errno = 0;
    bool tty = true;                 // false: every tty ioctl answers ENOTTY
    int excl_errno = 0, flock_errno = 0, tcsets_errno = 0;
    int excl_held = 0;               // another program set TIOCEXCL (TIOCGEXCL says 1)
    std::function<unsigned(unsigned)> make_baud = [](unsigned b) { return b; };
    bool code_only = false;          // the driver reports a speed code, c_ospeed 0
    bool drop_crtscts = false;
    int gserial_errno = 0, sserial_errno = 0;
    int serial_flags = 0;
    bool low_latency_sticks = true;
    std::map<std::string, std::string> links;  // symlink -> canonical
    struct File {
        std::string text;
        int read_errno = 0, write_errno = 0;
    };
    std::map<std::string, File> files;
    // ---- what happened ----
    int open_flags = -1, flock_op = -1, fds_open = 0;
    std::vector<unsigned long> ioctls;
    std::vector<std::string> file_reads, file_writes;
    termios2 set{}, cur{};
    unsigned achieved = 0;
    long flushed = -1;
    // ---- I/O ----
    std::deque<uint8_t> rx;
    std::vector<uint8_t> tx;
    size_t write_max = SIZE_MAX;
    unsigned eagain_every = 0, write_calls = 0;
    int eintr_writes = 0, eintr_polls = 0;
    unsigned early_wakeups = 0;
    bool writable = true, hangup = false;
    int read_errno = 0, write_errno = 0;
    nanoseconds t = std::chrono::seconds(1);
    unsigned polls = 0;

    FakeSys() {
        cur.c_cflag = B9600 | CS8 | CREAD | HUPCL;
        cur.c_lflag = ICANON | ECHO | ISIG | IEXTEN;
        cur.c_iflag = ICRNL | IXON;
        cur.c_oflag = OPOST | ONLCR;
        cur.c_cc[VMIN] = 1;
        cur.c_ospeed = cur.c_ispeed = 9600;
    }

    int open(const char* path, int flags) override {
        open_flags = flags;
        const std::string p = resolve(path);
        if (open_errno) return errno = open_errno, -1;
        if (p != node) return errno = ENOENT, -1;
        ++fds_open;
        return kFd;
    }
    int close(int fd) override {
        REQUIRE(fd == kFd);
        --fds_open;
        return 0;
    }
    int ioctl(int fd, unsigned long req, void* arg) override {
        REQUIRE(fd == kFd);
        ioctls.push_back(req);
        if (!tty) return errno = ENOTTY, -1;
        switch (req) {
        case TIOCEXCL: return excl_errno ? (errno = excl_errno, -1) : 0;
        case TIOCNXCL: return 0;
        case TIOCGEXCL: *static_cast<int*>(arg) = excl_held; return 0;
        case TCGETS2: *static_cast<termios2*>(arg) = cur; return 0;
        case TCSETS2: {
            if (tcsets_errno) return errno = tcsets_errno, -1;
            set = *static_cast<termios2*>(arg);
            cur = set;
            achieved = make_baud(set.c_ospeed);
            cur.c_ospeed = cur.c_ispeed = achieved;
            if (code_only) {
                REQUIRE(achieved == 115200);  // the only code this fake knows
                cur.c_cflag = (cur.c_cflag & ~tcflag_t(CBAUD)) | B115200;
                cur.c_ospeed = cur.c_ispeed = 0;
            }
            if (drop_crtscts) cur.c_cflag &= ~tcflag_t(CRTSCTS);
            return 0;
        }
        case TCFLSH: flushed = long(reinterpret_cast<uintptr_t>(arg)); rx.clear(); return 0;
        case TIOCGSERIAL: {
            if (gserial_errno) return errno = gserial_errno, -1;
            serial_struct s{};
            s.flags = serial_flags;
            *static_cast<serial_struct*>(arg) = s;
            return 0;
        }
        case TIOCSSERIAL:
            if (sserial_errno) return errno = sserial_errno, -1;
            if (low_latency_sticks) serial_flags = static_cast<serial_struct*>(arg)->flags;
            return 0;
        default: FAIL("unexpected ioctl " << std::hex << req); return -1;
        }
    }
    int flock(int fd, int op) override {
        REQUIRE(fd == kFd);
        flock_op = op;
        return flock_errno ? (errno = flock_errno, -1) : 0;
    }
    ssize_t read(int fd, void* buf, size_t n) override {
        REQUIRE(fd == kFd);
        if (read_errno) return errno = read_errno, -1;
        size_t k = 0;
        for (; k < n && !rx.empty(); ++k) {
            static_cast<uint8_t*>(buf)[k] = rx.front();
            rx.pop_front();
        }
        return ssize_t(k);  // 0: nothing (VMIN = 0), or a hung-up tty
    }
    ssize_t write(int fd, const void* buf, size_t n) override {
        REQUIRE(fd == kFd);
        ++write_calls;
        if (eintr_writes > 0) return --eintr_writes, errno = EINTR, -1;
        if (hangup) return errno = EIO, -1;
        if (write_errno) return errno = write_errno, -1;
        if (!writable || (eagain_every && write_calls % eagain_every == 0)) return errno = EAGAIN, -1;
        const size_t k = std::min(n, write_max);
        tx.insert(tx.end(), static_cast<const uint8_t*>(buf), static_cast<const uint8_t*>(buf) + k);
        return ssize_t(k);
    }
    int poll(pollfd* fds, unsigned nfds, nanoseconds timeout) override {
        REQUIRE(nfds == 1);
        REQUIRE(fds->fd == kFd);
        REQUIRE(timeout >= nanoseconds(0));  // SerialPipe never waits forever
        // A pipe that spins on a ready descriptor (a hangup it ignores) fails
        // here instead of hanging the suite; a ready poll costs a microsecond.
        REQUIRE(++polls < 1000000);
        if (eintr_polls > 0) return --eintr_polls, errno = EINTR, -1;
        short re = 0;
        if (hangup) re = short(POLLIN | POLLOUT | POLLERR | POLLHUP);  // what a hung-up tty reports
        if ((fds->events & POLLIN) && (!rx.empty() || read_errno)) re |= POLLIN;
        if ((fds->events & POLLOUT) && writable) re |= POLLOUT;
        fds->revents = re;
        if (re) {
            t += std::chrono::microseconds(1);
            return 1;
        }
        if (early_wakeups > 0) {
            --early_wakeups;
            t += timeout / 2;
            return 0;
        }
        t += timeout;
        return 0;
    }
    std::string resolve(const std::string& path) override {
        auto it = links.find(path);
        return it != links.end() ? it->second : path;
    }
    int read_file(const std::string& path, std::string& text) override {
        file_reads.push_back(path);
        auto it = files.find(path);
        if (it == files.end()) return ENOENT;
        if (it->second.read_errno) return it->second.read_errno;
        text = it->second.text;
        return 0;
    }
    int write_file(const std::string& path, const std::string& text) override {
        file_writes.push_back(path + "=" + text);
        auto it = files.find(path);
        if (it == files.end()) return ENOENT;
        if (it->second.write_errno) return it->second.write_errno;
        it->second.text = text + "\n";
        return 0;
    }
    nanoseconds now() override { return t; }
};

std::string open_error(const std::shared_ptr<FakeSys>& sys, const std::string& path, unsigned baud,
                       SerialOptions opt = {}) {
    try {
        SerialPipe p(path, baud, opt, sys);
    } catch (const DeviceError& e) {
        CHECK(sys->fds_open == 0);  // nothing leaks on a failed open
        return e.what();
    }
    return "(no DeviceError)";
}

const char* const kLatency = "/sys/bus/usb-serial/devices/ttyUSB3/latency_timer";

std::shared_ptr<FakeSys> ftdi(const std::string& timer, int write_errno = 0) {
    auto sys = std::make_shared<FakeSys>();
    sys->node = "/dev/ttyUSB3";
    sys->links["/dev/serial/by-id/usb-FTDI_Dual_RS232-HS-if01-port0"] = "/dev/ttyUSB3";
    sys->files[kLatency] = FakeSys::File{timer, 0, write_errno};
    return sys;
}

}  // namespace

TEST_CASE("serial (fake): raw 8N1 at the asked rate through termios2, exclusive, flushed", "[serial][fake]") {
    auto sys = std::make_shared<FakeSys>();
    SerialPipe p("/dev/ttyUSB1", 3000000, {}, sys);
    CHECK(p.device() == "serial:/dev/ttyUSB1@3000000");
    CHECK(p.baud() == 3000000u);
    CHECK(sys->open_flags == (O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK));
    CHECK(sys->flock_op == (LOCK_EX | LOCK_NB));
    REQUIRE(sys->ioctls.size() >= 6);
    CHECK(sys->ioctls[0] == TIOCGEXCL);
    CHECK(sys->ioctls[1] == TIOCEXCL);
    CHECK(sys->ioctls[2] == TCGETS2);
    CHECK(sys->ioctls[3] == TCSETS2);
    CHECK(sys->ioctls[4] == TCGETS2);
    CHECK(sys->ioctls[5] == TCFLSH);
    CHECK(sys->flushed == TCIOFLUSH);
    const termios2& t = sys->set;
    CHECK((t.c_cflag & CBAUD) == B3000000);  // a standard rate: its code (and c_ospeed)
    CHECK((t.c_cflag & CIBAUD) == 0u);  // input rate = output rate
    CHECK(t.c_ospeed == 3000000u);
    CHECK(t.c_ispeed == 3000000u);
    CHECK((t.c_cflag & CSIZE) == CS8);
    CHECK((t.c_cflag & (PARENB | CSTOPB | CRTSCTS)) == 0u);
    CHECK((t.c_cflag & (CLOCAL | CREAD)) == (CLOCAL | CREAD));
    CHECK((t.c_lflag & (ICANON | ECHO | ECHONL | ISIG | IEXTEN)) == 0u);
    CHECK((t.c_iflag & (IXON | IXOFF | ICRNL | INLCR | IGNCR | ISTRIP | INPCK | PARMRK | BRKINT)) == 0u);
    CHECK((t.c_oflag & OPOST) == 0u);
    CHECK(t.c_cc[VMIN] == 0);
    CHECK(t.c_cc[VTIME] == 0);
    CHECK(t.c_line == 0);

    // RTS/CTS when asked; a driver that drops it is refused
    auto fc = std::make_shared<FakeSys>();
    SerialOptions o;
    o.rtscts = true;
    {
        SerialPipe q("/dev/ttyUSB1", 115200, o, fc);
        CHECK((fc->set.c_cflag & CRTSCTS) != 0u);
        CHECK_THAT(q.notes(), Contains("RTS/CTS"));
    }
    fc->drop_crtscts = true;
    CHECK_THAT(open_error(fc, "/dev/ttyUSB1", 115200, o), Contains("no RTS/CTS"));
    // closing clears the exclusive mode (it outlives our descriptor while
    // another one of the tty is open) and closes the descriptor
    p.close();
    CHECK(sys->ioctls.back() == TIOCNXCL);
    CHECK(sys->fds_open == 0);
    // not exclusive: neither TIOCEXCL, TIOCNXCL nor flock
    auto shared = std::make_shared<FakeSys>();
    SerialOptions ne;
    ne.exclusive = false;
    {
        SerialPipe s("/dev/ttyUSB1", 115200, ne, shared);
        CHECK(shared->flock_op == -1);
    }
    CHECK(std::find(shared->ioctls.begin(), shared->ioctls.end(), (unsigned long)TIOCEXCL) == shared->ioctls.end());
    CHECK(std::find(shared->ioctls.begin(), shared->ioctls.end(), (unsigned long)TIOCNXCL) == shared->ioctls.end());
    CHECK(shared->fds_open == 0);
}

TEST_CASE("serial (fake): an FTDI bridge gets its latency timer set to 1 ms, and the note says so", "[serial][fake]") {
    SECTION("writable: 16 -> 1 ms, opened through a /dev/serial/by-id link") {
        auto sys = ftdi("16\n");
        SerialPipe p("/dev/serial/by-id/usb-FTDI_Dual_RS232-HS-if01-port0", 12000000, {}, sys);
        CHECK(sys->files[kLatency].text == "1\n");
        CHECK(sys->file_writes == std::vector<std::string>{std::string(kLatency) + "=1"});
        CHECK(p.status().latency_timer_ms == 1);
        CHECK(p.status().tty == "ttyUSB3");
        CHECK(p.resend_timeout_hint() == milliseconds(20));
        CHECK(p.status().low_latency);
        CHECK(p.baud() == 12000000u);
        CHECK_THAT(p.notes(), Contains("FTDI latency timer 16 -> 1 ms"));
        CHECK_THAT(p.notes(), Contains("ASYNC_LOW_LATENCY on"));
        CHECK_THAT(p.notes(), Contains("12000000 baud as asked"));
        CHECK(p.device() == "serial:/dev/serial/by-id/usb-FTDI_Dual_RS232-HS-if01-port0@12000000");
        CHECK((sys->serial_flags & ASYNC_LOW_LATENCY) != 0);
        CHECK((sys->set.c_cflag & CBAUD) == BOTHER);  // no standard code for 12 Mbaud
        CHECK(sys->set.c_ospeed == 12000000u);
        CHECK(sys->set.c_ispeed == 12000000u);
    }
    SECTION("not writable: opens anyway, the note says how to set it by hand") {
        auto sys = ftdi("16\n", EACCES);
        SerialPipe p("/dev/ttyUSB3", 3000000, {}, sys);
        CHECK(sys->files[kLatency].text == "16\n");
        CHECK(p.status().latency_timer_ms == 16);
        CHECK_THAT(p.notes(), Contains("FTDI latency timer 16 ms, not writable (Permission denied)"));
        CHECK_THAT(p.notes(), Contains(std::string("echo 1 > ") + kLatency));
        CHECK(p.resend_timeout_hint() == milliseconds(52));  // 20 ms + twice the 16 ms timer
    }
    SECTION("already 1 ms: left alone") {
        auto sys = ftdi("1\n");
        SerialPipe p("/dev/ttyUSB3", 3000000, {}, sys);
        CHECK(sys->file_writes.empty());
        CHECK(p.status().latency_timer_ms == 1);
        CHECK_THAT(p.notes(), Contains("already 1 ms"));
    }
    SECTION("unreadable: said, not fatal") {
        auto sys = ftdi("16\n");
        sys->files[kLatency].read_errno = EIO;
        SerialPipe p("/dev/ttyUSB3", 3000000, {}, sys);
        CHECK(sys->file_writes.empty());
        CHECK(p.status().latency_timer_ms == -1);
        CHECK_THAT(p.notes(), Contains("unreadable"));
    }
    SECTION("low latency not asked for: nothing touched") {
        auto sys = ftdi("16\n");
        SerialOptions o;
        o.low_latency = false;
        SerialPipe p("/dev/ttyUSB3", 3000000, o, sys);
        CHECK(sys->file_reads.empty());
        CHECK(sys->file_writes.empty());
        CHECK(std::find(sys->ioctls.begin(), sys->ioctls.end(), (unsigned long)TIOCSSERIAL) == sys->ioctls.end());
        CHECK_THAT(p.notes(), Contains("low latency not asked for"));
    }
}

TEST_CASE("serial (fake): other devices are left alone and degrade quietly", "[serial][fake]") {
    SECTION("a ttyUSB without a latency timer (CP210x, CH340): no write") {
        auto sys = std::make_shared<FakeSys>();
        sys->node = "/dev/ttyUSB0";
        SerialPipe p("/dev/ttyUSB0", 3000000, {}, sys);
        CHECK(sys->file_reads == std::vector<std::string>{"/sys/bus/usb-serial/devices/ttyUSB0/latency_timer"});
        CHECK(sys->file_writes.empty());
        CHECK(p.status().latency_timer_ms == -1);
        CHECK_THAT(p.notes(), Contains("no FTDI latency timer (ttyUSB0 is not an FTDI bridge)"));
    }
    SECTION("a CDC ACM device: not a usb-serial bridge, sysfs not even looked at") {
        auto sys = std::make_shared<FakeSys>();
        sys->node = "/dev/ttyACM0";
        sys->files["/sys/bus/usb-serial/devices/ttyACM0/latency_timer"] = FakeSys::File{"16\n"};
        SerialPipe p("/dev/ttyACM0", 115200, {}, sys);
        CHECK(sys->file_reads.empty());
        CHECK(sys->file_writes.empty());
        CHECK_THAT(p.notes(), Contains("not a USB serial bridge"));
    }
    SECTION("no TIOCGSERIAL (a pty), TIOCSSERIAL refused, or a flag that does not stick") {
        auto a = std::make_shared<FakeSys>();
        a->gserial_errno = ENOTTY;
        SerialPipe pa("/dev/ttyUSB1", 3000000, {}, a);
        CHECK_FALSE(pa.status().low_latency);
        CHECK_THAT(pa.notes(), Contains("no ASYNC_LOW_LATENCY here (TIOCGSERIAL: Inappropriate ioctl"));
        auto b = std::make_shared<FakeSys>();
        b->sserial_errno = EPERM;
        SerialPipe pb("/dev/ttyUSB1", 3000000, {}, b);
        CHECK_FALSE(pb.status().low_latency);
        CHECK_THAT(pb.notes(), Contains("ASYNC_LOW_LATENCY refused (TIOCSSERIAL: Operation not permitted)"));
        auto c = std::make_shared<FakeSys>();
        c->low_latency_sticks = false;
        SerialPipe pc("/dev/ttyUSB1", 3000000, {}, c);
        CHECK_FALSE(pc.status().low_latency);
        CHECK_THAT(pc.notes(), Contains("did not stick"));
        auto d = std::make_shared<FakeSys>();
        d->serial_flags = ASYNC_LOW_LATENCY;
        SerialPipe pd("/dev/ttyUSB1", 3000000, {}, d);
        CHECK(pd.status().low_latency);
        CHECK(std::find(d->ioctls.begin(), d->ioctls.end(), (unsigned long)TIOCSSERIAL) == d->ioctls.end());
        CHECK_THAT(pd.notes(), Contains("already on"));
    }
}

TEST_CASE("serial (fake): the achieved baud is read back; more than 2% off is refused naming both rates",
          "[serial][fake]") {
    auto sys = std::make_shared<FakeSys>();
    sys->make_baud = ft232r_rate;
    {
        SerialPipe p("/dev/ttyUSB1", 3000000, {}, sys);
        CHECK(p.baud() == 3000000u);
    }
    {
        // 1% slow asks for 3 MHz / 1.0101: the divider makes 3 Mbaud, 1.0% off: accepted, said
        SerialPipe p("/dev/ttyUSB1", 2970000, {}, sys);
        CHECK(p.baud() == 3000000u);
        CHECK(p.status().requested_baud == 2970000u);
        CHECK_THAT(p.notes(), Contains("3000000 baud for 2970000 asked (1.0% off)"));
    }
    {
        SerialPipe p("/dev/ttyUSB1", 1000000, {}, sys);  // 3 MHz / 3
        CHECK(p.baud() == 1000000u);
    }
    std::string m = open_error(sys, "/dev/ttyUSB1", 2500000);
    INFO(m);
    CHECK((sys->achieved == 2000000u || sys->achieved == 3000000u));
    CHECK_THAT(m, Contains("serial:/dev/ttyUSB1@2500000"));
    CHECK_THAT(m, Contains("asked for 2500000 baud, the port runs at " + std::to_string(sys->achieved) + " baud"));
    CHECK_THAT(m, Contains("20.0% off"));
    CHECK_THAT(m, Contains("tolerates 2.0%"));
    // a rate the chip cannot make at all: ftdi_sio falls back to 9600
    m = open_error(sys, "/dev/ttyUSB1", 12000000);
    CHECK_THAT(m, Contains("asked for 12000000 baud, the port runs at 9600 baud"));
    // 2.5% off: refused; with a looser tolerance: accepted
    sys->make_baud = [](unsigned b) { return b + b / 40; };
    CHECK_THAT(open_error(sys, "/dev/ttyUSB1", 1000000), Contains("runs at 1025000 baud (2.5% off"));
    SerialOptions loose;
    loose.max_baud_error = 0.03;
    CHECK(SerialPipe("/dev/ttyUSB1", 1000000, loose, sys).baud() == 1025000u);
    // 1.9% off: accepted
    sys->make_baud = [](unsigned b) { return b - b / 1000 * 19; };
    CHECK(SerialPipe("/dev/ttyUSB1", 1000000, {}, sys).baud() == 981000u);
    // a driver that reports only a standard speed code (c_ospeed 0)
    sys->make_baud = [](unsigned) { return 115200u; };
    sys->code_only = true;
    CHECK(SerialPipe("/dev/ttyUSB1", 115200, {}, sys).baud() == 115200u);
    CHECK_THAT(open_error(sys, "/dev/ttyUSB1", 230400), Contains("the port runs at 115200 baud"));
    sys->code_only = false;
    // a driver that refuses the settings outright
    sys->tcsets_errno = EINVAL;
    m = open_error(sys, "/dev/ttyUSB1", 7000000);
    CHECK_THAT(m, Contains("serial:/dev/ttyUSB1@7000000: the driver refuses the line settings for 7000000 baud"));
    CHECK_THAT(m, Contains("Invalid argument"));
    // the speed-code table
    CHECK(baud_of_speed_code(B9600) == 9600u);
    CHECK(baud_of_speed_code(B3000000) == 3000000u);
    CHECK(baud_of_speed_code(B4000000) == 4000000u);
    CHECK(baud_of_speed_code(BOTHER) == 0u);
}

TEST_CASE("serial (fake): open errors name the device and the reason, with a hint", "[serial][fake]") {
    const std::string dev = "serial:/dev/ttyUSB1@3000000: ";
    auto with = [](auto setup) {
        auto s = std::make_shared<FakeSys>();
        setup(*s);
        return s;
    };
    std::string m = open_error(with([](FakeSys&) {}), "/dev/ttyUSB9", 3000000);
    CHECK_THAT(m, Contains("serial:/dev/ttyUSB9@3000000: cannot open: No such file or directory: no such device;"
                           " is the board plugged in? ls /dev/ttyUSB*"));
    m = open_error(with([](FakeSys& s) { s.open_errno = EACCES; }), "/dev/ttyUSB1", 3000000);
    CHECK_THAT(m, Contains(dev + "cannot open: Permission denied: no permission: add yourself to group dialout"));
    m = open_error(with([](FakeSys& s) { s.open_errno = EBUSY; }), "/dev/ttyUSB1", 3000000);
    CHECK_THAT(m, Contains(dev + "cannot open: Device or resource busy: in use by another program"));
    m = open_error(with([](FakeSys& s) { s.flock_errno = EWOULDBLOCK; }), "/dev/ttyUSB1", 3000000);
    CHECK_THAT(m, Contains(dev + "in use by another program"));
    auto foreign = with([](FakeSys& s) { s.excl_held = 1; });
    m = open_error(foreign, "/dev/ttyUSB1", 3000000);
    CHECK_THAT(m, Contains(dev + "in use by another program (it holds the port exclusively"));
    // a refused open leaves the holder's exclusive mode alone
    CHECK(std::find(foreign->ioctls.begin(), foreign->ioctls.end(), (unsigned long)TIOCNXCL) == foreign->ioctls.end());
    CHECK(std::find(foreign->ioctls.begin(), foreign->ioctls.end(), (unsigned long)TIOCEXCL) == foreign->ioctls.end());
    // refused after TIOCEXCL (the baud): our own exclusive mode is cleared again
    auto refused = with([](FakeSys& s) { s.tcsets_errno = EINVAL; });
    open_error(refused, "/dev/ttyUSB1", 3000000);
    CHECK(refused->ioctls.back() == TIOCNXCL);
    m = open_error(with([](FakeSys& s) { s.excl_errno = EBUSY; }), "/dev/ttyUSB1", 3000000);
    CHECK_THAT(m, Contains(dev + "cannot get exclusive access (TIOCEXCL"));
    CHECK_THAT(m, Contains("in use by another program"));
    m = open_error(with([](FakeSys& s) { s.tty = false; }), "/dev/ttyUSB1", 3000000);
    CHECK_THAT(m, Contains(dev + "not a serial device (/dev/ttyUSB1 is not a tty: TIOCEXCL"));
    SerialOptions ne;
    ne.exclusive = false;
    m = open_error(with([](FakeSys& s) { s.tty = false; }), "/dev/ttyUSB1", 3000000, ne);
    CHECK_THAT(m, Contains(dev + "not a serial device (/dev/ttyUSB1 is not a tty: TCGETS2"));
    m = open_error(with([](FakeSys& s) { s.open_errno = ENXIO; }), "/dev/ttyUSB1", 3000000);
    CHECK_THAT(m, Contains(dev + "cannot open: No such device or address: no such device behind the node"));
    m = open_error(with([](FakeSys& s) { s.open_errno = EIO; }), "/dev/ttyUSB1", 3000000);
    CHECK_THAT(m, Contains("the device does not answer"));
    // a lock-less file system is no reason to refuse
    auto nolock = with([](FakeSys& s) { s.flock_errno = ENOLCK; });
    CHECK_NOTHROW(SerialPipe("/dev/ttyUSB1", 3000000, {}, nolock));
    CHECK_THAT(open_error(with([](FakeSys&) {}), "/dev/ttyUSB1", 0), Contains("baud rate 0"));
}

TEST_CASE("serial (fake): a device that goes away throws DeviceError naming it, on every later call",
          "[serial][fake]") {
    uint8_t buf[64];
    const uint8_t frame[] = {0x7e, 1, 2, 3};
    SECTION("hangup while waiting: bytes that came before it are still delivered") {
        auto sys = std::make_shared<FakeSys>();
        SerialPipe p("/dev/ttyUSB1", 3000000, {}, sys);
        sys->rx = {1, 2, 3};
        sys->hangup = true;
        CHECK(p.recv(buf, sizeof buf, p.now() + milliseconds(100)) == 3u);
        CHECK(buf[2] == 3);
        try {
            p.recv(buf, sizeof buf, p.now() + milliseconds(100));
            FAIL("no DeviceError");
        } catch (const DeviceError& e) {
            CHECK_THAT(e.what(), Contains("serial:/dev/ttyUSB1@3000000: the device went away (hangup"));
        }
        CHECK(sys->fds_open == 0);
        CHECK_FALSE(p.is_open());
        CHECK_THROWS_WITH(p.send(frame, sizeof frame), Contains("serial:/dev/ttyUSB1@3000000: the device went away"));
        CHECK_THROWS_WITH(p.recv(buf, sizeof buf, p.now()), Contains("went away"));
    }
    SECTION("read fails with EIO (USB device gone)") {
        auto sys = std::make_shared<FakeSys>();
        SerialPipe p("/dev/ttyUSB1", 3000000, {}, sys);
        sys->read_errno = EIO;
        CHECK_THROWS_WITH(p.recv(buf, sizeof buf, p.now() + milliseconds(10)),
                          Contains("serial:/dev/ttyUSB1@3000000: the device went away (hangup") &&
                              Contains("(read: Input/output error)"));
        CHECK(sys->fds_open == 0);
    }
    SECTION("write fails with EIO, or ENODEV") {
        for (int e : {EIO, ENODEV}) {
            auto sys = std::make_shared<FakeSys>();
            SerialPipe p("/dev/ttyUSB1", 3000000, {}, sys);
            sys->write_errno = e;
            CHECK_THROWS_WITH(p.send(frame, sizeof frame),
                              Contains("the device went away (write: " + std::string(std::strerror(e))));
            CHECK_THROWS_WITH(p.recv(buf, sizeof buf, p.now()), Contains("the device went away"));
        }
    }
    SECTION("hangup while sending") {
        auto sys = std::make_shared<FakeSys>();
        SerialPipe p("/dev/ttyUSB1", 3000000, {}, sys);
        sys->hangup = true;
        CHECK_THROWS_WITH(p.send(frame, sizeof frame), Contains("the device went away"));
    }
    SECTION("closed by the program") {
        auto sys = std::make_shared<FakeSys>();
        SerialPipe p("/dev/ttyUSB1", 3000000, {}, sys);
        p.close();
        CHECK(sys->fds_open == 0);
        CHECK_THROWS_WITH(p.send(frame, sizeof frame), Contains("serial:/dev/ttyUSB1@3000000: closed by the program"));
    }
}

TEST_CASE("serial (fake): send writes every byte through partial writes, EAGAIN and EINTR", "[serial][fake]") {
    std::mt19937_64 rng(aggnet::sim::test_seed("serial fake partial writes"));
    auto sys = std::make_shared<FakeSys>();
    SerialPipe p("/dev/ttyUSB1", 3000000, {}, sys);
    sys->write_max = 3;
    sys->eagain_every = 2;
    sys->eintr_writes = 5;
    std::vector<uint8_t> want;
    for (int i = 0; i < 1000; ++i) {
        std::vector<uint8_t> f(1 + rng() % 40);
        for (auto& b : f) b = uint8_t(rng());
        p.send(f.data(), f.size());
        want.insert(want.end(), f.begin(), f.end());
    }
    CHECK(sys->tx == want);
    CHECK(p.stats().bytes_sent == want.size());
    CHECK(p.stats().send_waits > 0);

    // recv: EINTR in poll, then data; cap respected
    sys->eintr_polls = 2;
    sys->rx.assign(want.begin(), want.begin() + 100);
    uint8_t buf[64];
    CHECK(p.recv(buf, sizeof buf, p.now() + milliseconds(5)) == 64u);
    CHECK(std::equal(buf, buf + 64, want.begin()));
    CHECK(p.recv(buf, sizeof buf, p.now() + milliseconds(5)) == 36u);
    CHECK(p.stats().bytes_received == 100u);
}

TEST_CASE("serial (fake): deadlines on the clock: recv returns 0 at its deadline, send gives up", "[serial][fake]") {
    auto sys = std::make_shared<FakeSys>();
    SerialPipe p("/dev/ttyUSB1", 3000000, {}, sys);
    uint8_t buf[16];
    const nanoseconds t0 = p.now();
    CHECK(p.recv(buf, sizeof buf, t0 + milliseconds(7)) == 0u);
    CHECK(p.now() == t0 + milliseconds(7));
    // early wake-ups (timer slack, signals) do not end the wait early
    sys->early_wakeups = 3;
    const nanoseconds t1 = p.now();
    CHECK(p.recv(buf, sizeof buf, t1 + milliseconds(8)) == 0u);
    CHECK(p.now() == t1 + milliseconds(8));
    // a deadline already past: one look, no wait
    const unsigned polls = sys->polls;
    CHECK(p.recv(buf, sizeof buf, p.now() - milliseconds(1)) == 0u);
    CHECK(sys->polls == polls + 1);
    sys->rx = {9};
    CHECK(p.recv(buf, sizeof buf, p.now() - milliseconds(1)) == 1u);

    // a port that takes nothing (flow control held off): send fails after its limit, names the device
    sys->writable = false;
    const uint8_t frame[12] = {0x7e};
    const nanoseconds t2 = p.now();
    CHECK_THROWS_WITH(p.send(frame, sizeof frame), Contains("serial:/dev/ttyUSB1@3000000: the port took 0 of 12 bytes in 1000 ms"));
    CHECK(p.now() - t2 >= std::chrono::seconds(1));
    CHECK(p.now() - t2 < std::chrono::milliseconds(1001));
    CHECK_FALSE(p.is_open());
    // with an explicit limit
    auto s2 = std::make_shared<FakeSys>();
    SerialOptions o;
    o.send_timeout = milliseconds(30);
    SerialPipe q("/dev/ttyUSB1", 3000000, o, s2);
    s2->writable = false;
    const nanoseconds t3 = q.now();
    CHECK_THROWS_WITH(q.send(frame, sizeof frame), Contains("took 0 of 12 bytes in 30 ms"));
    CHECK(q.now() - t3 == milliseconds(30));
}
