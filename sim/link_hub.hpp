// link_hub.hpp: a Verilated aggnet_hub behind its link port, shared by
// several PE threads, each with its own LinkPipe endpoint -- what one PC on
// a board's USB UART, or the virtual hub's per-PE sockets, give the hub: one
// byte stream in which whole frames of all PEs take turns.
//
// Endpoint::send() queues a whole frame for the hub's stream (frames of
// different PEs are never interleaved), fed to the hub by sim::LinkStream.
// Frames the hub sends are decoded and handed to the endpoint of the PE they
// name. Simulated time advances while some endpoint waits in recv(), on the
// rules of sim::SharedClock (never past the earliest deadline of the threads
// waiting, so deadlines are on the hub's clock: now() = cycles x
// ns_per_cycle). Cabled PEs can be driven through pins() under guard().
#pragma once

#include "hub_rtl.hpp"
#include "link_stream.hpp"
#include "pe_threads.hpp"
#include "shared_clock.hpp"

#include <aggnet/link_client.hpp>
#include <aggnet/link_frame.hpp>

#include <exception>
#include <functional>
#include <deque>
#include <thread>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

namespace aggnet::sim {

/// Damage to frames on the wire, both ways (seeded): each frame is dropped,
/// or has one bit flipped, with probability percent/100.
struct LinkFaults {
    unsigned percent = 0;
    uint64_t seed = 1;
};

class LinkHub {
public:
    using Faults = LinkFaults;
    using Mutex = SharedClock::Mutex;

    LinkHub(unsigned pes, const std::string& name, uint64_t ns_per_cycle = 20, uint64_t max_cycles = 200'000'000,
            Faults faults = {})
        : LinkHub(make_hub_rtl(pes, name, max_cycles), ns_per_cycle, faults) {}
    /// Any HubModel: e.g. a board top whose byte streams are its UART pins
    /// (tests/test_board_tops.cpp).
    LinkHub(std::unique_ptr<HubModel> model, uint64_t ns_per_cycle, Faults faults = {})
        : h_(std::move(model)), ns_(ns_per_cycle), out_(h_->pes()), faults_(faults), rng_(faults.seed) {
        h_->reset();
        for (unsigned pe = 0; pe < h_->pes(); ++pe) eps_.push_back(std::make_unique<Endpoint>(*this, pe));
    }

    class Endpoint final : public link::LinkPipe {
    public:
        Endpoint(LinkHub& hub, unsigned pe) : hub_(hub), pe_(pe) {}
        void send(const uint8_t* data, size_t n) override {
            std::lock_guard<Mutex> lk(hub_.mu());
            std::vector<uint8_t> f(data, data + n);
            link::Decoder d;  // a frame naming another PE than this endpoint's is counted
            for (size_t i = 0; i < n; ++i)
                if (d.push(data[i]) && d.frame().pe != pe_) ++hub_.foreign_;
            if (hub_.damage(f)) hub_.rxq_.push(f);
        }
        size_t recv(uint8_t* buf, size_t cap, std::chrono::nanoseconds until) override {
            std::unique_lock<Mutex> lk(hub_.mu());
            auto& q = hub_.out_[pe_];
            if (!hub_.clock_.wait(
                    lk, pe_, until, [&] { return hub_.now_locked(); }, [&] { return !q.empty(); },
                    [&](const auto& wake) { hub_.tick_locked(wake); }))
                return 0;
            const size_t k = std::min(cap, q.size());
            std::copy(q.begin(), q.begin() + long(k), buf);
            q.erase(q.begin(), q.begin() + long(k));
            return k;
        }
        std::chrono::nanoseconds now() override {
            std::lock_guard<Mutex> lk(hub_.mu());
            return hub_.now_locked();
        }

    private:
        LinkHub& hub_;
        unsigned pe_;
    };

    Endpoint& endpoint(unsigned pe) { return *eps_.at(pe); }
    /// A LinkClient configuration for n PEs sharing this hub's stream: a
    /// reply may wait behind the others' frames.
    static link::LinkConfig client_config(unsigned n) {
        link::LinkConfig c;
        c.resend_timeout = std::chrono::microseconds(200 * n);
        c.max_attempts = 10;
        c.idle_timeout = std::chrono::microseconds(100);
        return c;
    }
    uint64_t cycle() {
        std::lock_guard<Mutex> lk(mu());
        return h_->cycle();
    }
    /// For driving cabled PEs' pins: hold this while touching pins().
    std::unique_lock<Mutex> guard() { return std::unique_lock<Mutex>(mu()); }
    HubModel& pins() { return *h_; }
    void tick() {
        std::lock_guard<Mutex> lk(mu());
        tick_locked();
    }
    /// The cycle at which the last queued byte went into the link port.
    uint64_t rx_drained_at() {
        std::lock_guard<Mutex> lk(mu());
        return rx_drained_at_;
    }

private:
    std::chrono::nanoseconds now_locked() const { return std::chrono::nanoseconds(h_->cycle() * ns_); }
    /// Applies the fault model to one frame's bytes; false: the frame is lost.
    bool damage(std::vector<uint8_t>& f) {
        if (!faults_.percent || rng_() % 100 >= faults_.percent) return true;
        ++damaged_;
        if (rng_() % 2 == 0 || f.size() < 2) return false;  // dropped
        f[1 + rng_() % (f.size() - 1)] ^= uint8_t(1u << (rng_() % 8));  // one bit flipped (not the FLAG)
        return true;
    }
    /// One hub cycle; wake(pe) when it hands a frame to PE pe.
    template <class Wake = void (*)(unsigned)>
    void tick_locked(const Wake& wake = [](unsigned) {}) {
        if (rxq_.drive(*h_, h_->cycle()) && rxq_.empty()) rx_drained_at_ = h_->cycle();
        const bool txv = h_->tx_valid();
        const uint8_t txb = h_->tx_data();
        h_->tick();
        if (txv && dec_.push(txb)) {
            const link::Frame& f = dec_.frame();
            if (f.pe < out_.size()) {
                auto bytes = link::encode(f);
                if (damage(bytes)) {
                    out_[f.pe].insert(out_[f.pe].end(), bytes.begin(), bytes.end());
                    wake(f.pe);
                }
            }
        }
    }

    Mutex& mu() { return clock_.mutex(); }
    SharedClock clock_;
    std::unique_ptr<HubModel> h_;
    uint64_t ns_;
    LinkStream rxq_;
    uint64_t rx_drained_at_ = 0;
    link::Decoder dec_;
    std::vector<std::deque<uint8_t>> out_;
    std::vector<std::unique_ptr<Endpoint>> eps_;
    Faults faults_;
    std::mt19937_64 rng_;
    uint64_t damaged_ = 0;
    uint64_t foreign_ = 0;

public:
    /// Frames sent through one PE's endpoint that name another PE (the hub
    /// still takes them, as the board's shared USB stream does; a test of
    /// one client per PE checks there are none: two clients speaking for one
    /// PE collide in its sequence numbers).
    uint64_t foreign_frames() {
        std::lock_guard<Mutex> lk(mu());
        return foreign_;
    }
    /// Frames dropped or corrupted so far.
    uint64_t damaged() {
        std::lock_guard<Mutex> lk(mu());
        return damaged_;
    }
};

}  // namespace aggnet::sim
