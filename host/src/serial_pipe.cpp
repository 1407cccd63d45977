// serial_pipe.cpp: SerialPipe, the link over a tty (docs/serial.md).
//
// This translation unit speaks termios2 (TCGETS2 / TCSETS2 with BOTHER, for
// any baud such as 3 or 12 Mbaud) from the kernel's own headers,
// <asm/termbits.h> and <asm/ioctls.h>.  Those define struct termios and the
// B*/V* macros differently from glibc's <termios.h>, so this file must never
// include <termios.h> (nor <pty.h>, which includes it); nothing else in
// libaggnet needs termios.
#include <aggnet/serial_pipe.hpp>

#include <asm/ioctls.h>
#include <asm/termbits.h>
#include <linux/serial.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <unistd.h>

namespace aggnet::link {

using std::chrono::nanoseconds;

// ---- the real system calls ----------------------------------------------------

nanoseconds SerialSys::now() {
    return std::chrono::duration_cast<nanoseconds>(std::chrono::steady_clock::now().time_since_epoch());
}

namespace {

class RealSerialSys final : public SerialSys {
public:
    int open(const char* path, int flags) override { return ::open(path, flags); }
    int close(int fd) override { return ::close(fd); }
    int ioctl(int fd, unsigned long request, void* arg) override { return ::ioctl(fd, request, arg); }
    int flock(int fd, int operation) override { return ::flock(fd, operation); }
    ssize_t read(int fd, void* buf, size_t n) override { return ::read(fd, buf, n); }
    ssize_t write(int fd, const void* buf, size_t n) override { return ::write(fd, buf, n); }
    int poll(pollfd* fds, unsigned nfds, nanoseconds timeout) override {
        if (timeout < nanoseconds(0)) return ::ppoll(fds, nfds, nullptr, nullptr);
        timespec ts{};
        ts.tv_sec = time_t(timeout.count() / 1000000000);
        ts.tv_nsec = long(timeout.count() % 1000000000);
        return ::ppoll(fds, nfds, &ts, nullptr);
    }
    std::string resolve(const std::string& path) override {
        char* r = ::realpath(path.c_str(), nullptr);
        if (!r) return {};
        std::string s(r);
        std::free(r);
        return s;
    }
    int read_file(const std::string& path, std::string& text) override {
        const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) return errno;
        char buf[256];
        const ssize_t n = ::read(fd, buf, sizeof buf);
        const int e = errno;
        ::close(fd);
        if (n < 0) return e;
        text.assign(buf, size_t(n));
        return 0;
    }
    int write_file(const std::string& path, const std::string& text) override {
        const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
        if (fd < 0) return errno;
        const ssize_t n = ::write(fd, text.data(), text.size());
        const int e = errno;
        ::close(fd);
        if (n < 0) return e;
        return size_t(n) == text.size() ? 0 : EIO;
    }
};

std::string errname(int e) { return std::strerror(e); }

std::string percent(double x) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f%%", x * 100);
    return b;
}

long long ms_of(nanoseconds t) { return (long long)std::chrono::duration_cast<std::chrono::milliseconds>(t).count(); }

/// errno values a tty returns once its device has gone (hung up, unplugged).
bool is_gone_errno(int e) { return e == EIO || e == ENXIO || e == ENODEV || e == EPIPE; }

}  // namespace

std::shared_ptr<SerialSys> system_serial_sys() {
    static auto sys = std::make_shared<RealSerialSys>();
    return sys;
}

namespace {
/// The standard speed codes (asm-generic/termbits.h): code, baud.
const unsigned kSpeedCodes[][2] = {
    {B50, 50},           {B75, 75},           {B110, 110},         {B134, 134},         {B150, 150},
    {B200, 200},         {B300, 300},         {B600, 600},         {B1200, 1200},       {B1800, 1800},
    {B2400, 2400},       {B4800, 4800},       {B9600, 9600},       {B19200, 19200},     {B38400, 38400},
    {B57600, 57600},     {B115200, 115200},   {B230400, 230400},   {B460800, 460800},   {B500000, 500000},
    {B576000, 576000},   {B921600, 921600},   {B1000000, 1000000}, {B1152000, 1152000}, {B1500000, 1500000},
    {B2000000, 2000000}, {B2500000, 2500000}, {B3000000, 3000000}, {B3500000, 3500000}, {B4000000, 4000000},
};
/// The standard code for exactly this rate, or BOTHER.
unsigned speed_code_of(unsigned baud) {
    for (const auto& c : kSpeedCodes)
        if (c[1] == baud) return c[0];
    return BOTHER;
}
}  // namespace

unsigned baud_of_speed_code(unsigned code) {
    for (const auto& c : kSpeedCodes)
        if (c[0] == code) return c[1];
    return 0;  // B0, BOTHER, unknown
}

// ---- opening ---------------------------------------------------------------------

SerialPipe::SerialPipe(std::string path, unsigned baud, SerialOptions opt, std::shared_ptr<SerialSys> sys)
    : path_(std::move(path)), opt_(std::move(opt)), sys_(std::move(sys)) {
    device_ = "serial:" + path_ + "@" + std::to_string(baud);
    status_.requested_baud = baud;
    if (!sys_) sys_ = system_serial_sys();
    if (path_.empty()) throw DeviceError(device_ + ": no device path (e.g. serial:/dev/ttyUSB0@3000000)");
    if (baud == 0) throw DeviceError(device_ + ": baud rate 0 (e.g. serial:" + path_ + "@3000000)");

    const int fd = sys_->open(path_.c_str(), O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        const int e = errno;
        std::string why = "cannot open: " + errname(e);
        switch (e) {
        case ENOENT: why += ": no such device; is the board plugged in? ls /dev/ttyUSB* /dev/serial/by-id/"; break;
        case EACCES:
        case EPERM:
            why += ": no permission: add yourself to group dialout (sudo usermod -aG dialout $USER, then log in"
                   " again), or to the group that owns " + path_ + " (ls -l " + path_ + ")";
            break;
        case EBUSY: why += ": in use by another program (it holds the port exclusively; fuser -v " + path_ + ")"; break;
        case ENXIO:
        case ENODEV: why += ": no such device behind the node (unplugged, or no UART at this address)"; break;
        case EIO: why += ": the device does not answer (unplugged, or a pty whose master is closed)"; break;
        case EISDIR: why += ": not a serial device (a directory)"; break;
        default: break;
        }
        throw DeviceError(device_ + ": " + why);
    }

    if (opt_.exclusive) {
        // flock: another aggnet program (even root's) finds the port taken.
        // TIOCEXCL: any further open() of the tty fails with EBUSY, except
        // root's; TIOCGEXCL first, so that root too sees another program's
        // exclusive hold (minicom, picocom) instead of quietly sharing it.
        if (sys_->flock(fd, LOCK_EX | LOCK_NB) != 0) {
            const int e = errno;
            if (e == EWOULDBLOCK)
                fail_open(fd, "in use by another program (another process holds its lock; fuser -v " + path_ + ")");
            // A file system without locks is no reason to refuse; TIOCEXCL still holds.
        }
        int held = 0;
        if (sys_->ioctl(fd, TIOCGEXCL, &held) == 0 && held)
            fail_open(fd, "in use by another program (it holds the port exclusively; fuser -v " + path_ + ")");
        if (sys_->ioctl(fd, TIOCEXCL, nullptr) != 0) {
            const int e = errno;
            if (e == ENOTTY || e == EINVAL) fail_open(fd, "not a serial device (" + path_ + " is not a tty: TIOCEXCL: " + errname(e) + ")");
            fail_open(fd, "cannot get exclusive access (TIOCEXCL: " + errname(e) + "); in use by another program?");
        }
        excl_owned_ = true;  // ours to clear when we let go
    }
    configure(fd);
    std::string notes = std::to_string(status_.achieved_baud) + " baud";
    notes += status_.achieved_baud == baud ? " as asked"
                                            : " for " + std::to_string(baud) + " asked (" +
                                                  percent(std::fabs(double(status_.achieved_baud) - baud) / baud) + " off)";
    notes += opt_.rtscts ? ", 8N1 RTS/CTS" : ", 8N1 no flow control";
    tune_latency(fd, notes);
    status_.notes = notes;
    fd_ = fd;
}

void SerialPipe::fail_open(int fd, const std::string& what) {
    release(fd);
    throw DeviceError(device_ + ": " + what);
}

void SerialPipe::release(int fd) {
    // TIOCEXCL stays on the tty while any descriptor of it is open (another
    // program's, a pty's other slave descriptor): clear it if we set it, or
    // the port would stay refused to everyone but root after we are gone
    // (and never if someone else set it: a refused second open must not undo
    // the first holder's claim).  The lock goes with the descriptor.  Errors
    // do not matter here (a hung-up tty says EIO).
    if (excl_owned_) sys_->ioctl(fd, TIOCNXCL, nullptr);
    excl_owned_ = false;
    sys_->close(fd);
}

void SerialPipe::configure(int fd) {
    const unsigned baud = status_.requested_baud;
    termios2 t{};
    if (sys_->ioctl(fd, TCGETS2, &t) != 0) {
        const int e = errno;
        if (e == ENOTTY || e == EINVAL) fail_open(fd, "not a serial device (" + path_ + " is not a tty: TCGETS2: " + errname(e) + ")");
        fail_open(fd, "cannot read the line settings (TCGETS2: " + errname(e) + ")");
    }
    // Raw: no input or output processing, no echo, no signals, no canonical
    // lines (cfmakeraw).  IGNBRK|IGNPAR drop breaks and framing errors (an
    // FPGA being reconfigured holds its TX low) instead of passing 0x00 on.
    t.c_iflag = IGNBRK | IGNPAR;
    t.c_oflag = 0;
    t.c_lflag = 0;
    t.c_line = 0;  // N_TTY
    // 8N1, receiver on, modem lines ignored.  The rate: its standard code
    // where it has one (B3000000: what glibc-based tools such as stty show),
    // else BOTHER with the rate in c_ospeed (12 Mbaud, 1234567, ...); the
    // kernel takes c_ospeed either way.  CIBAUD clear: input rate = output rate.
    t.c_cflag &= ~tcflag_t(CSIZE | PARENB | PARODD | CMSPAR | CSTOPB | CRTSCTS | CBAUD | CIBAUD);
    t.c_cflag |= CS8 | CREAD | CLOCAL | speed_code_of(baud);
    if (opt_.rtscts) t.c_cflag |= CRTSCTS;
    // read() returns at once with what is there; poll() does the waiting.
    t.c_cc[VMIN] = 0;
    t.c_cc[VTIME] = 0;
    t.c_ispeed = baud;
    t.c_ospeed = baud;
    if (sys_->ioctl(fd, TCSETS2, &t) != 0) {
        const int e = errno;
        fail_open(fd, "the driver refuses the line settings for " + std::to_string(baud) + " baud 8N1 (TCSETS2: " +
                          errname(e) + "); try a rate the bridge can make, e.g. 3000000 or 115200");
    }
    // The driver may round the rate to what its clock divider can make, or
    // fall back to another rate altogether; what it made is read back.
    termios2 r{};
    if (sys_->ioctl(fd, TCGETS2, &r) != 0)
        fail_open(fd, "cannot read the line settings back (TCGETS2: " + errname(errno) + ")");
    unsigned achieved = r.c_ospeed;
    if (achieved == 0 && (r.c_cflag & CBAUD) != BOTHER) achieved = baud_of_speed_code(r.c_cflag & CBAUD);
    status_.achieved_baud = achieved;
    const double off = std::fabs(double(achieved) - double(baud)) / double(baud);
    if (achieved == 0 || off > opt_.max_baud_error)
        fail_open(fd, "asked for " + std::to_string(baud) + " baud, the port runs at " + std::to_string(achieved) +
                          " baud (" + percent(off) + " off; the hub's UART tolerates " + percent(opt_.max_baud_error) +
                          ", docs/link.md): pick a rate the bridge makes exactly, e.g. 3000000 (FT232R, FT2232H)"
                          " or 12000000 (FT2232H, FT232H)");
    std::string bad;
    if ((r.c_cflag & CSIZE) != CS8) bad += " not 8 data bits;";
    if (r.c_cflag & PARENB) bad += " parity on;";
    if (r.c_cflag & CSTOPB) bad += " 2 stop bits;";
    if (bool(r.c_cflag & CRTSCTS) != opt_.rtscts) bad += opt_.rtscts ? " no RTS/CTS (not supported?);" : " RTS/CTS on;";
    if (r.c_lflag & (ICANON | ECHO | ISIG)) bad += " not raw (canonical/echo/signals);";
    if (r.c_oflag & OPOST) bad += " output processing on;";
    if (!bad.empty()) {
        bad.pop_back();
        fail_open(fd, "the driver did not take the line settings:" + bad);
    }
    // Bytes that arrived before we were listening belong to nobody.
    if (sys_->ioctl(fd, TCFLSH, reinterpret_cast<void*>(uintptr_t(TCIOFLUSH))) != 0)
        fail_open(fd, "cannot flush the port (TCFLSH: " + errname(errno) + ")");
}

void SerialPipe::tune_latency(int fd, std::string& notes) {
    // The kernel name (for the sysfs attribute and the status), symlinks resolved.
    std::string canon = sys_->resolve(path_);
    if (canon.empty()) canon = path_;
    status_.tty = canon.compare(0, 5, "/dev/") == 0 ? canon.substr(5) : canon;
    if (!opt_.low_latency) {
        notes += "; low latency not asked for";
        return;
    }
    // ASYNC_LOW_LATENCY: the driver pushes received bytes to the reader at
    // once instead of batching them (ftdi_sio also drops its latency timer to
    // 1 ms with it on some kernels).  Only real UART drivers have it.
    serial_struct ss{};
    if (sys_->ioctl(fd, TIOCGSERIAL, &ss) != 0) {
        notes += "; no ASYNC_LOW_LATENCY here (TIOCGSERIAL: " + errname(errno) + ")";
    } else if (ss.flags & ASYNC_LOW_LATENCY) {
        status_.low_latency = true;
        notes += "; ASYNC_LOW_LATENCY already on";
    } else {
        ss.flags |= ASYNC_LOW_LATENCY;
        if (sys_->ioctl(fd, TIOCSSERIAL, &ss) != 0) {
            notes += "; ASYNC_LOW_LATENCY refused (TIOCSSERIAL: " + errname(errno) + ")";
        } else {
            serial_struct back{};
            status_.low_latency = sys_->ioctl(fd, TIOCGSERIAL, &back) == 0 && (back.flags & ASYNC_LOW_LATENCY);
            notes += status_.low_latency ? "; ASYNC_LOW_LATENCY on" : "; ASYNC_LOW_LATENCY did not stick";
        }
    }
    // The FTDI latency timer: an FTDI bridge holds received bytes up to this
    // long (default 16 ms) before sending a short USB packet; ftdi_sio shows
    // it as a sysfs attribute of ttyUSBn.  Other bridges have no such file.
    const std::string name = status_.tty.substr(status_.tty.rfind('/') + 1);
    if (name.compare(0, 6, "ttyUSB") != 0) {
        notes += "; no FTDI latency timer (" + status_.tty + " is not a USB serial bridge)";
        return;
    }
    const std::string attr = opt_.usb_serial_sysfs + "/" + name + "/latency_timer";
    std::string text;
    const int re = sys_->read_file(attr, text);
    if (re == ENOENT) {
        notes += "; no FTDI latency timer (" + name + " is not an FTDI bridge)";
        return;
    }
    char* end = nullptr;
    const long before = re == 0 ? std::strtol(text.c_str(), &end, 10) : -1;
    if (re != 0 || end == text.c_str()) {
        notes += "; FTDI latency timer unreadable (" + attr + ": " + (re ? errname(re) : "'" + text + "'") + ")";
        return;
    }
    status_.latency_timer_ms = int(before);
    if (before <= 1) {
        notes += "; FTDI latency timer already " + std::to_string(before) + " ms";
        return;
    }
    const int we = sys_->write_file(attr, "1");
    if (we != 0) {
        notes += "; FTDI latency timer " + std::to_string(before) + " ms, not writable (" + errname(we) +
                 "): replies wait up to that long; as root: echo 1 > " + attr + " (or the udev rule in docs/serial.md)";
        return;
    }
    text.clear();
    long after = -1;
    if (sys_->read_file(attr, text) == 0) after = std::strtol(text.c_str(), nullptr, 10);
    status_.latency_timer_ms = int(after);
    notes += "; FTDI latency timer " + std::to_string(before) + " -> " +
             (after >= 0 ? std::to_string(after) + " ms" : std::string("? ms (unreadable after writing 1)"));
}

SerialPipe::~SerialPipe() { close(); }

void SerialPipe::close() {
    if (fd_ >= 0) release(fd_);
    fd_ = -1;
    if (gone_.empty()) gone_ = device_ + ": closed by the program";
}

void SerialPipe::check_usable() const {
    if (fd_ < 0) throw DeviceError(gone_.empty() ? device_ + ": not open" : gone_);
}

void SerialPipe::went_away(const std::string& why) {
    // Closed at once: a USB serial device that comes back gets a new node
    // (often the same name) that must be opened afresh.
    fail(device_ + ": the device went away (" + why + ")");
}

void SerialPipe::fail(const std::string& msg) {
    if (fd_ >= 0) release(fd_);
    fd_ = -1;
    gone_ = msg;
    throw DeviceError(msg);
}

nanoseconds SerialPipe::now() { return sys_->now(); }

nanoseconds SerialPipe::resend_timeout_hint() const {
    const nanoseconds base = std::chrono::milliseconds(20);
    const int timer = status_.latency_timer_ms;
    return timer > 1 ? base + 2 * std::chrono::milliseconds(timer) : base;
}

// ---- sending and receiving -------------------------------------------------------

void SerialPipe::send(const uint8_t* data, size_t n) {
    check_usable();
    // 10 bit times per byte (8N1); allow twenty frames' worth plus a second
    // for a USB bridge's queue to drain.
    const nanoseconds wire(uint64_t(n) * 10u * 1000000000ull / std::max(1u, status_.achieved_baud));
    const nanoseconds limit = opt_.send_timeout > nanoseconds(0) ? opt_.send_timeout : std::chrono::seconds(1) + 20 * wire;
    const nanoseconds start = now();
    size_t done = 0;
    while (done < n) {
        const ssize_t w = sys_->write(fd_, data + done, n - done);
        if (w > 0) {
            done += size_t(w);
            ++stats_.writes;
            stats_.bytes_sent += uint64_t(w);
            continue;
        }
        const int e = w < 0 ? errno : EAGAIN;
        if (e == EINTR) continue;
        if (e != EAGAIN && e != EWOULDBLOCK) {
            if (is_gone_errno(e)) went_away("write: " + errname(e));
            fail(device_ + ": write failed: " + errname(e));
        }
        // The output buffer is full: wait until it takes more, up to the limit.
        const nanoseconds left = start + limit - now();
        pollfd p{fd_, POLLOUT, 0};
        const int r = left > nanoseconds(0) ? sys_->poll(&p, 1, left) : 0;
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) went_away("poll: " + errname(errno));
        if (r == 0) {
            // A frame cut short: the hub drops it and resynchronises, but the
            // port is no use to a caller that cannot send.
            fail(device_ + ": the port took " + std::to_string(done) + " of " + std::to_string(n) + " bytes in " +
                 std::to_string(ms_of(now() - start)) + " ms" +
                 (opt_.rtscts ? " (RTS/CTS: the other end holds CTS off?)" : "") + "; port closed");
        }
        ++stats_.send_waits;
        if (p.revents & POLLNVAL) went_away("poll: file descriptor no longer valid");
        if ((p.revents & (POLLHUP | POLLERR)) && !(p.revents & POLLOUT)) went_away("hangup");
        // POLLOUT (possibly with HUP/ERR): the next write tells.
    }
}

size_t SerialPipe::recv(uint8_t* buf, size_t cap, nanoseconds until) {
    check_usable();
    if (cap == 0) return 0;
    for (;;) {
        nanoseconds left = until - now();
        if (left < nanoseconds(0)) left = nanoseconds(0);
        pollfd p{fd_, POLLIN, 0};
        const int r = sys_->poll(&p, 1, left);
        if (r < 0) {
            if (errno == EINTR) continue;
            went_away("poll: " + errname(errno));
        }
        if (r == 0) {
            if (now() >= until) return 0;
            continue;  // woke early (timer slack): wait out the rest
        }
        if (p.revents & POLLNVAL) went_away("poll: file descriptor no longer valid");
        const bool hup = p.revents & (POLLHUP | POLLERR);
        // Read even on a hangup: bytes that arrived before it are still ours.
        const ssize_t k = sys_->read(fd_, buf, cap);
        if (k > 0) {
            ++stats_.reads;
            stats_.bytes_received += uint64_t(k);
            return size_t(k);
        }
        const int e = k < 0 ? errno : 0;
        // A tty whose other end went (USB unplugged, pty master closed) may
        // say EIO before poll() reports the hangup: name it the same.
        if (k < 0 && (hup || e == EIO) && is_gone_errno(e))
            went_away("hangup: cable pulled, USB device unplugged, or pty master closed (read: " + errname(e) + ")");
        if (k < 0 && is_gone_errno(e)) went_away("read: " + errname(e));
        if (k < 0 && e != EAGAIN && e != EWOULDBLOCK && e != EINTR) went_away("read: " + errname(e));
        // read() of a hung-up tty returns 0 (VMIN = 0 makes 0 also mean "nothing yet").
        if (hup) went_away("hangup: cable pulled, USB device unplugged, or pty master closed");
        if (now() >= until) return 0;
    }
}

}  // namespace aggnet::link
