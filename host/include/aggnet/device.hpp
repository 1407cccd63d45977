// device.hpp: reaching a hub port.  One device string, parsed in one place:
//
//   sim:DIR/peK                    the virtual hub (aggnet-sim) port of PE K
//   ppdev:/dev/parportN?pe=K[&n=N] a PC parallel port through Linux ppdev;
//                                  the hub's size N (2..4, default 4) and our
//                                  PE K are not visible on the pins, so say them
//   serial:/dev/ttyUSBn@BAUD[?pe=K] the link over a serial line (docs/link.md):
//                                  a board's USB UART; K is the PE we act as
//                                  (optional when the link port serves one PE)
//
//   auto t = aggnet::open_device("sim:/tmp/aggnet-abc123/pe0");
//   aggnet::Papers p(*t);
//
// Transports carry raw register values, exactly what the PC's port registers
// hold; the PC's pin inversions are undone in aggnet::LptPort only.
// Every failure throws aggnet::DeviceError naming the part that is wrong.
#pragma once

#include <aggnet/error.hpp>
#include <aggnet/transport.hpp>

#include <cstdint>
#include <deque>
#include <memory>
#include <string>

namespace aggnet {

struct DeviceSpec {
    enum Kind { Sim, Ppdev, Serial } kind = Sim;
    std::string path;   ///< socket path, /dev/parportN, or /dev/ttyUSBn
    unsigned pe = 0;    ///< sim: from the path's peK; ppdev: ?pe=K
    unsigned pes = 4;   ///< ppdev: ?n=N
    unsigned baud = 0;  ///< serial
    bool pe_given = false;  ///< serial: ?pe=K was given (else HELLO must tell)
};

/// Parse a device string; throws DeviceError for a malformed one.
DeviceSpec parse_device(const std::string& spec);

/// Parse and open; throws DeviceError for a malformed or unopenable string.
/// `timeout` bounds the connect and greeting (a hub that does not answer).
std::unique_ptr<Transport> open_device(const std::string& spec,
                                       std::chrono::nanoseconds timeout = Transport::kDefaultIo);

// ---- sim: the virtual hub ---------------------------------------------------

/// A client of one aggnet-sim port (aggnet/vhub_protocol.hpp).  Every call
/// waits for its reply only until its deadline; a hub that does not answer
/// by then (stopped, overloaded) gets the connection closed and a
/// DeviceError naming the device, the PE and the request.
///
/// Register writes are posted, as a PC's OUT instruction is: sent at once,
/// their acknowledgements read with the next request's round trip (the hub
/// handles requests in order, so a read after a write sees it).  A write the
/// hub refuses is reported by that next call, naming the write.
class SimTransport final : public Transport {
public:
    /// Connects to the socket and says HELLO; the hub tells N and our PE.
    explicit SimTransport(const std::string& socket_path, std::chrono::nanoseconds timeout = kDefaultIo);
    ~SimTransport() override;
    SimTransport(const SimTransport&) = delete;
    SimTransport& operator=(const SimTransport&) = delete;

    unsigned hub_pes() const override { return n_; }
    unsigned pe_index() const override { return pe_; }
    std::string describe() const override;

    /// The hub's clock cycle now (does not advance it).
    uint64_t hub_cycle();
    /// Register operations the hub has counted on this port.
    uint64_t hub_ops();
    /// Hub clock cycles each register operation takes.
    uint64_t cycles_per_access() const { return k_; }
    /// Ask the hub to shut down (it replies first).
    void quit();
    /// Close the connection now (the hub keeps this PE's pins as they are).
    void close();

    struct Answer {
        bool ok;
        reg_t value;
        uint64_t cycle, aux;
        std::string text;
    };
    /// One raw request, as the protocol defines it (for tools and tests of
    /// the hub itself).  Does not throw on an error reply.
    Answer raw(uint16_t magic, uint16_t op, reg_t value, Deadline d);
    Answer raw(uint16_t magic, uint16_t op, reg_t value) { return raw(magic, op, value, in(kDefaultIo)); }
    /// Raw bytes onto the socket (tests of the hub's framing), then the
    /// reply, if one comes by the deadline; ok = false with the text
    /// "closed" if the hub closed the connection instead.
    Answer raw_bytes(const void* bytes, size_t len, Deadline d);

protected:
    void do_write_data(reg_t value, Deadline d) override;
    void do_write_control(uint8_t value, Deadline d) override;
    reg_t do_read_status(Deadline d) override;
    reg_t do_wait_status(reg_t watch, reg_t last, Deadline d) override;
    void do_flush(Deadline d) override { collect_posted(d, 0); }

private:
    Answer call(uint16_t op, reg_t value, Deadline d, reg_t watch = 0, uint32_t wait_ms = 0);
    Answer exchange(const void* req, size_t len, uint16_t op, uint32_t seq, Deadline d);
    std::string send_bytes(const void* req, size_t len, uint16_t op, Deadline d);
    /// `during`: reading a posted write's acknowledgement while waiting for
    /// that request (error messages name both).
    Answer read_reply(uint16_t op, uint32_t seq, Deadline d, const std::string& send_error,
                      const char* during = nullptr);
    /// Reads the acknowledgements of posted writes, in order; throws for one
    /// the hub refused, naming it.
    void collect_posted(Deadline d, uint16_t during);
    struct Posted {
        uint32_t seq;
        uint16_t op;
    };
    static constexpr size_t kMaxPosted = 16;
    /// How late a WAIT's reply may be before the hub counts as stopped.
    static constexpr std::chrono::milliseconds kWaitGrace{100};
    std::deque<Posted> posted_;
    [[noreturn]] void fail(const std::string& what);
    std::string where() const;
    std::string path_;
    int fd_ = -1;
    unsigned n_ = 0, pe_ = 0;
    bool hello_ = false;
    uint32_t seq_ = 0;
    uint64_t k_ = 0;
    std::string closed_why_;
};

// ---- ppdev: a PC parallel port -----------------------------------------------

/// The system calls the ppdev transport makes, injectable so that a test can
/// record the exact ioctl requests and bytes (system_ioctl_layer() is the
/// real ::open / ::ioctl / ::close).  Return values and errno as the syscalls.
class IoctlLayer {
public:
    virtual ~IoctlLayer() = default;
    virtual int open(const char* path, int flags) = 0;
    virtual int ioctl(int fd, unsigned long request, void* arg) = 0;
    virtual int close(int fd) = 0;
};
std::shared_ptr<IoctlLayer> system_ioctl_layer();

/// Linux ppdev: PPCLAIM on open, PPWDATA / PPWCONTROL / PPRSTATUS per access,
/// PPRELEASE on close.  8-bit registers only, so hubs of N <= 4 PEs.
class PpdevTransport final : public Transport {
public:
    PpdevTransport(const std::string& path, unsigned pe, unsigned pes,
                   std::shared_ptr<IoctlLayer> io = system_ioctl_layer());
    ~PpdevTransport() override;
    PpdevTransport(const PpdevTransport&) = delete;
    PpdevTransport& operator=(const PpdevTransport&) = delete;

    unsigned hub_pes() const override { return n_; }
    unsigned pe_index() const override { return pe_; }
    std::string describe() const override;

protected:
    // ioctls on a parallel port do not block: deadlines cannot be missed.
    void do_write_data(reg_t value, Deadline d) override;
    void do_write_control(uint8_t value, Deadline d) override;
    reg_t do_read_status(Deadline d) override;

private:
    void io(unsigned long request, uint8_t* byte, const char* what);
    std::string path_;
    unsigned pe_, n_;
    std::shared_ptr<IoctlLayer> io_;
    int fd_ = -1;
};

}  // namespace aggnet
