// hub_bridge.hpp: a Verilated aggnet_hub (4 PEs) at the far end of a byte
// stream, for end-to-end tests of the host's link path: the bytes of a
// descriptor (a pty master: the board's USB UART; or the clients of a
// listening Unix socket: the virtual hub's DIR/peK or DIR/link) are fed, byte
// for byte, to the hub's link port and its replies written back.  PE1 is
// cabled to the hub's pins and runs _p_wait() forever with mask {PE0, PE1},
// as a PC port would (seed 000 section 4.3.2); PE2 and PE3 are alone (never
// in anybody's way).  Shared by test_serial_hub and test_socket_pipe.
#pragma once

#include "hub_rtl.hpp"
#include "link_stream.hpp"
#include "pty.hpp"

#include <aggnet/papers_regs.hpp>

#include <atomic>
#include <memory>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace aggnet::test {

class Bridge {
public:
    enum Mode {
        Stream,  ///< fd is the stream itself (a pty master)
        Listen,  ///< fd is a listening socket: one client at a time, the next one when it leaves
    };
    std::atomic<unsigned> pe1_barriers{0};
    std::atomic<unsigned> clients{0};  ///< Listen: connections accepted so far

    explicit Bridge(int fd, Mode mode = Stream) : fd_(fd), mode_(mode) {
        h_.reset();
        th_ = std::thread([this] { run(); });
    }
    ~Bridge() {
        stop_ = true;
        th_.join();
        if (client_ >= 0) ::close(client_);
    }

private:
    void pins(unsigned pe, reg_t v) { h_.set_data(pe, v); }
    bool go(unsigned pe) { return h_.go(pe); }
    int stream() {
        if (mode_ == Stream) return fd_;
        if (client_ < 0) {
            client_ = ::accept4(fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
            if (client_ >= 0) ++clients;
        }
        return client_;
    }
    void run() {
        namespace R = papers_regs;
        sim::LinkStream rx;
        std::vector<uint8_t> tx;
        const reg_t m1 = reg_t(0x3) << R::DATA_B0;
        pins(1, m1);
        pins(2, reg_t(0x4) << R::DATA_B0);
        pins(3, reg_t(0x8) << R::DATA_B0);
        enum { Raise, WaitGo, Drop, WaitReset } st = Raise;
        while (!stop_) {
            const int fd = stream();
            uint8_t b[256];
            const ssize_t r = fd >= 0 ? ::read(fd, b, sizeof b) : -1;
            if (r > 0) rx.push(b, size_t(r));
            if (r == 0 && mode_ == Listen) {  // the client left: the next one may come
                ::close(client_);
                client_ = -1;
            }
            for (int i = 0; i < 256; ++i) {
                rx.drive(h_, h_.cycle());
                if (h_.tx_valid()) tx.push_back(h_.tx_data());
                h_.tick();
                // _p_wait() on PE1's pins.
                switch (st) {
                case Raise: pins(1, m1 | (reg_t(1) << R::DATA_S)); st = WaitGo; break;
                case WaitGo: if (go(1)) st = Drop; break;
                case Drop: pins(1, m1); ++pe1_barriers; st = WaitReset; break;
                case WaitReset: if (!go(1)) st = Raise; break;
                }
            }
            if (!tx.empty()) {
                if (stream() >= 0) write_all_fd(stream(), tx.data(), tx.size());
                tx.clear();
            }
            if (r <= 0 && rx.empty()) std::this_thread::sleep_for(std::chrono::microseconds(50));
        }
    }

    int fd_;
    Mode mode_;
    int client_ = -1;
    std::unique_ptr<sim::HubModel> hm_ = sim::make_hub_rtl(4, "hub_bridge_n4");
    sim::HubModel& h_ = *hm_;
    std::atomic<bool> stop_{false};
    std::thread th_;
};

}  // namespace aggnet::test
