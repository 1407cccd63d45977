// lockstep.hpp: N virtual PEs in one process, each a thread running ordinary
// libaggnet code over its own Transport, lock-stepped with a simulated hub.
//
// Each register access a PE makes is a request that takes effect at
//   now + access_cycles (+ a random "OS delay", seed 002 figure 1)
// simulated clock cycles.  The hub thread waits until every PE thread is
// blocked in a request (or finished), then ticks the hub to the earliest one,
// performs it and lets that PE run on.  So a run is deterministic for a given
// seed however the OS schedules the threads, and simulated time, not wall
// time, is what the library's timeouts measure (Transport::now()).
//
// The register operations are those of the PC port (sim/pc_port.hpp models
// the PC's pin inversions), so the library cannot tell this from a board.
#pragma once

#include "papers_pins.hpp"
#include "pc_port.hpp"
#include "pe_threads.hpp"

#include <aggnet/transport.hpp>

#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

namespace aggnet::sim {

class LockstepHub {
public:
    struct Options {
        uint64_t access_cycles = 100;     ///< one port access (about 1 us at 100 MHz)
        unsigned os_delay_percent = 5;    ///< chance an access is delayed by the OS
        uint64_t os_delay_max = 5000;     ///< the longest such delay, cycles
        uint64_t max_cycles = 50000000;   ///< hard stop: every pending access fails
        double ns_per_cycle = 10.0;       ///< simulated clock (100 MHz)
        uint64_t seed = 1;
    };
    enum class Op { Data, Control, Status, Delay };
    /// Observer of every access: (pe, op, value written or status read, cycle).
    using Observer = std::function<void(unsigned, Op, reg_t, uint64_t)>;

    LockstepHub(std::unique_ptr<PapersPins> hub, Options opt) : hub_(std::move(hub)), opt_(opt) {
        const unsigned n = hub_->pes();
        for (unsigned pe = 0; pe < n; ++pe) {
            ports_.push_back(std::make_unique<Port>(*this, pe));
            rng_.emplace_back(opt_.seed * 1000003u + pe);
        }
        cv_pe_ = std::vector<std::condition_variable>(n);
        hub_->reset(3);
    }

    unsigned pes() const { return hub_->pes(); }
    Transport& port(unsigned pe) { return *ports_.at(pe); }
    PapersPins& pins() { return *hub_; }
    uint64_t cycle() const { return hub_->cycle(); }
    void observe(Observer o) { observer_ = std::move(o); }

    /// Called from a PE's program: compute for `cycles` without touching the port.
    void delay(unsigned pe, uint64_t cycles) { request(pe, Op::Delay, 0, cycles); }

    /// Run one program per PE (missing ones idle), each on its own thread
    /// (PeThreads), until all return; their exceptions are returned, one slot
    /// per PE (rethrow_first() rethrows the first).
    std::vector<std::exception_ptr> run(const std::vector<std::function<void(Transport&)>>& programs) {
        const unsigned n = pes();
        std::vector<unsigned> started;
        {
            std::lock_guard<std::mutex> lk(mu_);
            running_ = 0;
            live_ = 0;
            reqs_.assign(n, Request{});
            for (unsigned pe = 0; pe < n && pe < programs.size(); ++pe)
                if (programs[pe]) ++running_, ++live_;
        }
        PeThreads threads;
        for (unsigned pe = 0; pe < n && pe < programs.size(); ++pe) {
            if (!programs[pe]) continue;
            started.push_back(pe);
            threads.start([this, pe, &programs] {
                Finished done{*this};  // returned or threw: the hub stops waiting for it
                programs[pe](*ports_[pe]);
            });
        }
        schedule();
        const std::vector<std::exception_ptr> failed = threads.join_errors();
        std::vector<std::exception_ptr> errors(n);
        for (size_t i = 0; i < started.size(); ++i) errors[started[i]] = failed[i];
        return errors;
    }

private:
    struct Request {
        bool pending = false, done = false, failed = false;
        Op op = Op::Status;
        reg_t value = 0, result = 0;
        uint64_t due = 0;
    };

    class Port final : public Transport {
    public:
        Port(LockstepHub& h, unsigned pe) : h_(h), pe_(pe) {}
        // Deadlines are on now(), the simulated clock, which only these calls
        // advance; the hub's max_cycles bounds every call.
        void do_write_data(reg_t v, Deadline) override { h_.request(pe_, Op::Data, v, h_.access_delay(pe_)); }
        void do_write_control(uint8_t v, Deadline) override { h_.request(pe_, Op::Control, v, h_.access_delay(pe_)); }
        reg_t do_read_status(Deadline) override { return h_.request(pe_, Op::Status, 0, h_.access_delay(pe_)); }
        unsigned hub_pes() const override { return h_.pes(); }
        unsigned pe_index() const override { return pe_; }
        std::chrono::nanoseconds now() override {
            return std::chrono::nanoseconds(int64_t(double(h_.cycle()) * h_.opt_.ns_per_cycle));
        }
        std::string describe() const override { return "lockstep:pe" + std::to_string(pe_); }

    private:
        LockstepHub& h_;
        unsigned pe_;
    };

    // Only the PE's own thread draws from its generator.
    uint64_t access_delay(unsigned pe) {
        auto& r = rng_[pe];
        uint64_t d = opt_.access_cycles;
        if (opt_.os_delay_percent && r() % 100 < opt_.os_delay_percent) d += r() % (opt_.os_delay_max + 1);
        return d;
    }

    reg_t request(unsigned pe, Op op, reg_t value, uint64_t delay) {
        std::unique_lock<std::mutex> lk(mu_);
        Request& q = reqs_[pe];
        q = Request{};
        q.pending = true;
        q.op = op;
        q.value = value;
        q.due = hub_->cycle() + delay;
        --running_;
        cv_hub_.notify_all();
        cv_pe_[pe].wait(lk, [&] { return q.done; });
        if (q.failed)
            throw CycleTimeoutError("lockstep hub: PE" + std::to_string(pe) + " stopped at the cycle limit (" +
                                    std::to_string(opt_.max_cycles) + ")");
        return q.result;
    }

    /// A PE's program has ended: it no longer runs or holds the hub.
    struct Finished {
        LockstepHub& h;
        ~Finished() {
            std::lock_guard<std::mutex> lk(h.mu_);
            --h.running_;
            --h.live_;
            h.cv_hub_.notify_all();
        }
    };

    struct CycleTimeoutError : std::runtime_error {
        using std::runtime_error::runtime_error;
    };

    void schedule() {
        std::unique_lock<std::mutex> lk(mu_);
        const unsigned n = pes();
        for (;;) {
            cv_hub_.wait(lk, [&] { return running_ == 0; });
            if (live_ == 0) return;
            int next = -1;
            for (unsigned pe = 0; pe < n; ++pe)
                if (reqs_[pe].pending && (next < 0 || reqs_[pe].due < reqs_[next].due)) next = int(pe);
            Request& q = reqs_[next];
            bool failed = false;
            while (hub_->cycle() < q.due) {
                if (hub_->cycle() >= opt_.max_cycles) {
                    failed = true;
                    break;
                }
                hub_->tick();
            }
            if (failed) {
                for (unsigned pe = 0; pe < n; ++pe)
                    if (reqs_[pe].pending) {
                        reqs_[pe].pending = false, reqs_[pe].done = true, reqs_[pe].failed = true, ++running_;
                        cv_pe_[pe].notify_one();
                    }
                continue;
            }
            switch (q.op) {
            case Op::Data: hub_->set_data(unsigned(next), q.value); break;
            case Op::Control: hub_->set_ctrl(unsigned(next), control_reg_to_pins(uint8_t(q.value))); break;
            case Op::Status: q.result = status_pins_to_reg_busy(hub_->stat(unsigned(next)), hub_->busy_bit()); break;
            case Op::Delay: break;
            }
            if (observer_) observer_(unsigned(next), q.op, q.op == Op::Status ? q.result : q.value, hub_->cycle());
            q.pending = false;
            q.done = true;
            ++running_;
            cv_pe_[unsigned(next)].notify_one();
        }
    }

    std::unique_ptr<PapersPins> hub_;
    Options opt_;
    std::vector<std::unique_ptr<Port>> ports_;
    std::vector<std::mt19937_64> rng_;
    Observer observer_;
    std::mutex mu_;
    std::condition_variable cv_hub_;
    std::vector<std::condition_variable> cv_pe_;  ///< one per PE: the hub wakes only the PE it served
    std::vector<Request> reqs_;
    unsigned running_ = 0, live_ = 0;
};

}  // namespace aggnet::sim
