// socket_pipe.hpp: the link's byte pipe over a Unix stream socket: the
// virtual hub's (aggnet-sim's) DIR/peK, which carries the link frames of PE K
// only, and DIR/link, which carries the frames of every PE (the board's
// shared USB UART).  The same bytes a board's UART carries (docs/link.md).
//
//   aggnet::link::SocketPipe pipe("/tmp/aggnet-abc/pe2", "sim:/tmp/aggnet-abc/pe2");
//   aggnet::link::LinkClient c(pipe, pipe.device(), aggnet::link::SocketPipe::sim_link_config());
//
// Every failure throws DeviceError naming the device and what is wrong, with a
// hint: nothing at that path (aggnet-sim not running), nobody listening (the
// aggnet-sim that made it was killed), not a socket, a path too long for a
// socket address, a hub that stopped reading, and a hub that closed the
// connection (it stopped, or refused us as a second client of its port).
// After a failure the socket is closed and every later call throws the same
// error.  Not thread-safe, like LinkClient.
#pragma once

#include <aggnet/error.hpp>
#include <aggnet/link_client.hpp>

#include <chrono>
#include <cstdint>
#include <string>

namespace aggnet {

/// Connects a non-blocking, close-on-exec Unix stream socket to `path`,
/// retrying while the listener's backlog is full until `timeout`; returns the
/// descriptor.  Throws DeviceError starting with `device` and saying why, with
/// a hint for the virtual hub (ENOENT: nothing there; ECONNREFUSED: nobody
/// listens; a path that is not a socket; a path too long).  Shared by
/// SocketPipe and SimControl.
int connect_unix(const std::string& path, const std::string& device, std::chrono::nanoseconds timeout);

namespace link {

class SocketPipe final : public LinkPipe {
public:
    static constexpr std::chrono::nanoseconds kConnectTimeout = std::chrono::seconds(10);
    /// send() fails when the hub takes no bytes of a frame for this long.
    static constexpr std::chrono::nanoseconds kSendTimeout = std::chrono::seconds(2);

    /// Connects to the socket at `path`; `device` names it in messages
    /// ("sim:DIR/pe2"; default "sim:" + path).  Throws DeviceError.
    explicit SocketPipe(std::string path, std::string device = {},
                        std::chrono::nanoseconds connect_timeout = kConnectTimeout);
    /// Adopts a connected stream socket (a socketpair in a test); made non-blocking.
    SocketPipe(int fd, std::string device);
    ~SocketPipe() override;
    SocketPipe(const SocketPipe&) = delete;
    SocketPipe& operator=(const SocketPipe&) = delete;

    /// Writes every byte, waiting for the socket to take more up to kSendTimeout.
    void send(const uint8_t* data, size_t n) override;
    /// Waits (ppoll) for at least one byte until `until` (absolute, on now());
    /// returns 0 at the deadline.  The hub closing the connection throws.
    size_t recv(uint8_t* buf, size_t cap, std::chrono::nanoseconds until) override;
    /// The steady clock.
    std::chrono::nanoseconds now() override;

    const std::string& device() const { return device_; }
    /// Closes the socket (the next call throws); the destructor does it too.
    void close();
    bool is_open() const { return fd_ >= 0; }

    /// The LinkConfig for the virtual hub: resend after 50 ms, give up after
    /// 20 frames (one second without a sign of life).  aggnet-sim is a
    /// Verilated hub in one process: on a loaded 2-core CI machine the kernel
    /// can deschedule it for as long as the board's whole 20 ms x 5, which
    /// would resend needlessly and fail commands of a hub that is only slow.
    static LinkConfig sim_link_config();

private:
    /// Close for good and throw DeviceError(device_ + ": " + why), now and on every later call.
    [[noreturn]] void fail(const std::string& why);
    void check_usable() const;

    std::string device_;
    int fd_ = -1;
    std::string gone_;  ///< why the socket is unusable ("" while it is usable)
};

}  // namespace link
}  // namespace aggnet
