// serial_pipe.hpp: the link's byte pipe over a serial port (docs/serial.md):
// a tty in raw 8N1 at any baud the driver can make (termios2 with BOTHER,
// e.g. 3 or 12 Mbaud), read back and refused when it is more than 2% off (the
// hub's UART tolerance, docs/link.md), opened for this program alone, with
// the low-latency settings the device offers (ASYNC_LOW_LATENCY, the FTDI
// latency timer) tried and reported, never required.
//
//   aggnet::link::SerialPipe pipe("/dev/ttyUSB1", 3000000);
//   std::fprintf(stderr, "%s\n", pipe.notes().c_str());   // what low latency got
//   aggnet::link::LinkClient c(pipe, pipe.device());       // "serial:/dev/ttyUSB1@3000000"
//
// Every failure throws DeviceError naming the device and what is wrong, with
// a hint: no such device, no permission (group dialout), in use by another
// program, not a serial device, a baud the port cannot make (both rates
// named), and, once open, "the device went away" (cable pulled, USB device
// unplugged, pty master closed).  After that every call throws the same error.
//
// The system calls go through SerialSys so that tests can play an FTDI
// bridge, a driver that cannot make a baud, or a device that vanishes
// (system_serial_sys() is the real one).  Not thread-safe, like LinkClient.
#pragma once

#include <aggnet/error.hpp>
#include <aggnet/link_client.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <poll.h>
#include <string>
#include <sys/types.h>

namespace aggnet::link {

/// The system calls SerialPipe makes.  Return values and errno as the calls
/// they are named after; the file helpers return 0 or an errno value.
class SerialSys {
public:
    virtual ~SerialSys() = default;
    virtual int open(const char* path, int flags) = 0;
    virtual int close(int fd) = 0;
    /// ioctl(2).  Requests that take an integer (TCFLSH) get it cast to void*.
    virtual int ioctl(int fd, unsigned long request, void* arg) = 0;
    virtual int flock(int fd, int operation) = 0;
    virtual ssize_t read(int fd, void* buf, size_t n) = 0;
    virtual ssize_t write(int fd, const void* buf, size_t n) = 0;
    /// ppoll(2) with a relative timeout; a negative timeout waits forever.
    virtual int poll(pollfd* fds, unsigned nfds, std::chrono::nanoseconds timeout) = 0;
    /// The canonical path of a device node (symlinks such as
    /// /dev/serial/by-id/... resolved), or "" with errno set.
    virtual std::string resolve(const std::string& path) = 0;
    /// Small text files (sysfs attributes): 0 or an errno value.
    virtual int read_file(const std::string& path, std::string& text) = 0;
    virtual int write_file(const std::string& path, const std::string& text) = 0;
    /// The clock deadlines are measured on: the steady clock.
    virtual std::chrono::nanoseconds now();
};
std::shared_ptr<SerialSys> system_serial_sys();

struct SerialOptions {
    /// RTS/CTS hardware flow control (off: the link has its own resends and
    /// the hub never holds the host off).
    bool rtscts = false;
    /// Try ASYNC_LOW_LATENCY and the FTDI latency timer (1 ms).  Best effort.
    bool low_latency = true;
    /// TIOCEXCL and flock(LOCK_EX): a second program (or a second SerialPipe)
    /// cannot open the port while we hold it.
    bool exclusive = true;
    /// Refuse a port whose achieved baud is further than this from the one
    /// asked for (the hub's UART tolerates 2%).
    double max_baud_error = 0.02;
    /// send() fails when the port takes no bytes for this long; 0: 1 s plus
    /// twenty times the frame's wire time.
    std::chrono::nanoseconds send_timeout{0};
    /// The sysfs directory of USB serial devices (the FTDI latency timer is
    /// <dir>/ttyUSBn/latency_timer).
    std::string usb_serial_sysfs = "/sys/bus/usb-serial/devices";
};

/// What open achieved.
struct SerialStatus {
    unsigned requested_baud = 0;
    unsigned achieved_baud = 0;   ///< read back from the driver (TCGETS2)
    bool low_latency = false;     ///< ASYNC_LOW_LATENCY set and read back
    int latency_timer_ms = -1;    ///< FTDI latency timer after open; -1: no such timer (or unreadable)
    std::string tty;              ///< kernel name with symlinks resolved, e.g. "ttyUSB0", "pts/3"
    std::string notes;            ///< one line saying what was and was not possible
};

struct SerialStats {
    uint64_t bytes_sent = 0, bytes_received = 0;
    uint64_t writes = 0, reads = 0;       ///< successful write(2) / read(2) calls
    uint64_t send_waits = 0;              ///< times send() had to wait for POLLOUT
};

class SerialPipe final : public LinkPipe {
public:
    /// Opens and configures the port; throws DeviceError.  `path` is the
    /// device node (symlinks allowed), `baud` the rate asked for.
    SerialPipe(std::string path, unsigned baud, SerialOptions opt = {},
               std::shared_ptr<SerialSys> sys = system_serial_sys());
    ~SerialPipe() override;
    SerialPipe(const SerialPipe&) = delete;
    SerialPipe& operator=(const SerialPipe&) = delete;

    /// Writes every byte, waiting for POLLOUT as needed.
    void send(const uint8_t* data, size_t n) override;
    /// Waits for at least one byte until `until` (absolute, on now());
    /// returns 0 at the deadline.
    size_t recv(uint8_t* buf, size_t cap, std::chrono::nanoseconds until) override;
    /// The steady clock (through SerialSys).
    std::chrono::nanoseconds now() override;

    /// "serial:/dev/ttyUSB1@3000000": the device string, for messages.
    const std::string& device() const { return device_; }
    const std::string& path() const { return path_; }
    unsigned baud() const { return status_.achieved_baud; }
    const SerialStatus& status() const { return status_; }
    /// One line: the achieved baud, low latency, the FTDI latency timer.
    const std::string& notes() const { return status_.notes; }
    const SerialStats& stats() const { return stats_; }
    /// A LinkConfig::resend_timeout that suits this port: 20 ms, plus twice
    /// the FTDI latency timer when it is above 1 ms (a reply can sit that
    /// long in the bridge, and resending before it comes only costs frames).
    std::chrono::nanoseconds resend_timeout_hint() const;
    /// Closes the port (the next call throws); the destructor does it too.
    void close();
    bool is_open() const { return fd_ >= 0; }

private:
    [[noreturn]] void fail_open(int fd, const std::string& what);
    void release(int fd);
    [[noreturn]] void went_away(const std::string& why);
    /// Close the port for good and throw DeviceError(msg), now and on every later call.
    [[noreturn]] void fail(const std::string& msg);
    void check_usable() const;
    void configure(int fd);
    void tune_latency(int fd, std::string& notes);

    std::string path_;
    std::string device_;
    SerialOptions opt_;
    std::shared_ptr<SerialSys> sys_;
    int fd_ = -1;
    bool excl_owned_ = false;  ///< we set TIOCEXCL (and clear it on close)
    std::string gone_;  ///< why the port is unusable ("" while it is usable)
    SerialStatus status_{};
    SerialStats stats_{};
};

/// The baud a termios speed code stands for (B9600 -> 9600, B3000000 ->
/// 3000000), 0 for BOTHER or an unknown code.  For drivers that report a
/// standard code rather than c_ospeed.
unsigned baud_of_speed_code(unsigned code);

}  // namespace aggnet::link
