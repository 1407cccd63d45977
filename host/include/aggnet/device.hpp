// device.hpp: reaching a hub port.  One device string, parsed in one place:
//
//   sim:DIR/peK                    the virtual hub (aggnet-sim): the socket that
//                                  carries the link frames of PE K only
//   sim:DIR/link?pe=K              the virtual hub's shared link socket (the
//                                  board's USB UART: every PE); we act as PE K
//   ppdev:/dev/parportN?pe=K[&n=N] a PC parallel port through Linux ppdev;
//                                  the hub's size N (2..4, default 4) and our
//                                  PE K are not visible on the pins, so say them
//   serial:/dev/ttyUSBn@BAUD[?pe=K] the link over a serial line (docs/link.md):
//                                  a board's USB UART; K is the PE we act as
//                                  (optional when the link port serves one PE);
//                                  also aggnet-sim --pty's DIR/pty-peK, DIR/pty-link
//
// sim: and serial: carry link frames (docs/link.md) and are opened as PAPERS
// ports by open_papers_port() (aggnet/papers_device.hpp), which is what a host
// program calls for any device string.  open_device() opens the one kind that
// is a PC port's three raw registers, ppdev:; given sim: or serial: it throws
// DeviceError telling to use open_papers_port().
//
//   auto t = aggnet::open_device("ppdev:/dev/parport0?pe=1");
//   aggnet::LptPort port(*t);
//
// Transports carry raw register values, exactly what the PC's port registers
// hold; the PC's pin inversions are undone in aggnet::LptPort only.
// Every failure throws aggnet::DeviceError naming the part that is wrong.
#pragma once

#include <aggnet/error.hpp>
#include <aggnet/transport.hpp>

#include <cstdint>
#include <memory>
#include <string>

namespace aggnet {

struct DeviceSpec {
    enum Kind { Sim, Ppdev, Serial } kind = Sim;
    std::string path;   ///< socket path (DIR/peK, DIR/link), /dev/parportN, or /dev/ttyUSBn
    unsigned pe = 0;    ///< sim: from the path's peK or link's ?pe=K; ppdev: ?pe=K
    unsigned pes = 4;   ///< ppdev: ?n=N
    unsigned baud = 0;  ///< serial
    bool pe_given = false;  ///< serial, sim: ?pe=K was given (serial: else HELLO must tell)
};

/// Parse a device string; throws DeviceError for a malformed one.
DeviceSpec parse_device(const std::string& spec);

/// Parse and open a ppdev: device; throws DeviceError for a malformed or
/// unopenable string, and for sim: and serial: (the link: open_papers_port()).
/// `timeout` is for transports whose opening can wait (ppdev's cannot).
std::unique_ptr<Transport> open_device(const std::string& spec,
                                       std::chrono::nanoseconds timeout = Transport::kDefaultIo);

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
