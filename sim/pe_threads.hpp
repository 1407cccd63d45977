// sim/pe_threads.hpp: PE programs on their own threads, as one PC per PE
// would run them, with their failures carried back to the test.
//
//   PeThreads t;
//   t.start([&] { ... PE 0 ... });      // runs at once
//   ... the test's own thread may drive other PEs meanwhile ...
//   t.join();                            // joins all, rethrows the first
//                                        // failure in start order
//
// on_pe_threads(n, fn) is the common case: fn(pe) for every pe < n, joined.
// join_errors() joins and returns every thread's failure instead, for a
// caller that reports them per PE (sim/lockstep.hpp); rethrow_first() of
// that list is what join() does.
// A PeThreads destroyed unjoined (the test threw) joins without rethrowing.
#pragma once

#include <exception>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

namespace aggnet::sim {

/// Rethrows the first failure in `errs`, if any.
inline void rethrow_first(const std::vector<std::exception_ptr>& errs) {
    for (auto& e : errs)
        if (e) std::rethrow_exception(e);
}

class PeThreads {
public:
    PeThreads() = default;
    PeThreads(const PeThreads&) = delete;
    PeThreads& operator=(const PeThreads&) = delete;
    ~PeThreads() { join_all(); }

    void start(std::function<void()> fn) {
        auto err = std::make_shared<std::exception_ptr>();
        errs_.push_back(err);
        th_.emplace_back([fn = std::move(fn), err] {
            try {
                fn();
            } catch (...) {
                *err = std::current_exception();
            }
        });
    }

    /// Joins all; rethrows the first failure in start order.
    void join() { rethrow_first(join_errors()); }

    /// Joins all; every thread's failure (null if it returned), in start order.
    std::vector<std::exception_ptr> join_errors() {
        join_all();
        std::vector<std::exception_ptr> out;
        for (auto& e : errs_) out.push_back(*e);
        return out;
    }

private:
    void join_all() {
        for (auto& t : th_)
            if (t.joinable()) t.join();
    }
    std::vector<std::thread> th_;
    std::vector<std::shared_ptr<std::exception_ptr>> errs_;
};

/// fn(pe) on its own thread for every pe < n; joins them all, then rethrows
/// the first failure, in PE order.
inline void on_pe_threads(unsigned n, const std::function<void(unsigned)>& fn) {
    PeThreads t;
    for (unsigned pe = 0; pe < n; ++pe) t.start([&fn, pe] { fn(pe); });
    t.join();
}

}  // namespace aggnet::sim
