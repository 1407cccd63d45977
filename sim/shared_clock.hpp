// shared_clock.hpp: one simulated hub clock shared by several PE threads,
// each waiting in its LinkPipe::recv() for its own bytes (sim/link_hub.hpp,
// the multiplexed board tops of tests/test_uart_pe_tops.cpp).
//
// Simulated time advances only while some thread waits, and never past the
// earliest deadline of the threads waiting, so deadlines are on the hub's
// clock and are met however the machine schedules the threads.
//
// One waiting thread at a time runs the clock (the ticker). The others sleep,
// each on its own condition variable, until the ticker hands bytes to their
// stream (it wakes that stream's waiter only) or their deadline comes; a
// thread that leaves while nobody ticks wakes one other to take over. The
// ticker keeps the lock until another thread asks for it. (A design in which
// every waiting thread ticked a few cycles in turn and gave the lock away
// with sched_yield() lost the CPU to every other process on a loaded machine,
// and woke all 40 threads of a 40-PE test for every frame.)
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace aggnet::sim {

class SharedClock {
public:
    /// The lock over the hub and its queues, counting the threads that wait
    /// for it: the ticker keeps it until somebody does.
    class Mutex {
    public:
        void lock() {
            want_.fetch_add(1, std::memory_order_relaxed);
            m_.lock();
            want_.fetch_sub(1, std::memory_order_relaxed);
        }
        bool try_lock() { return m_.try_lock(); }
        void unlock() { m_.unlock(); }
        bool wanted() const { return want_.load(std::memory_order_relaxed) > 0; }

    private:
        std::mutex m_;
        std::atomic<int> want_{0};
    };

    Mutex& mutex() { return mu_; }

    /// With `lk` held on mutex(): returns true as soon as ready() (bytes for
    /// the caller's stream `key`), false once now() reaches `until`. While
    /// waiting it may run the clock: tick(wake) runs one cycle and calls
    /// wake(k) for every stream k it handed bytes to. A throw from tick() (a
    /// model's cycle limit) leaves the other threads a clock that still runs.
    template <class Now, class Ready, class Tick>
    bool wait(std::unique_lock<Mutex>& lk, unsigned key, std::chrono::nanoseconds until, Now now, Ready ready,
              Tick tick) {
        Waiter me{key, until};
        struct Leave {
            SharedClock& c;
            Waiter& me;
            ~Leave() { c.leave(me); }
        } leave{*this, me};
        waiters_.push_back(&me);
        earliest_ = std::min(earliest_, until);
        auto wake = [&](unsigned k) {
            for (Waiter* w : waiters_)
                if (w->key == k && w != &me) w->cv.notify_one();
        };
        for (;;) {
            if (ready()) return true;
            if (now() >= until) return false;
            if ((ticker_ && ticker_ != &me) || now() >= earliest_) {
                me.cv.wait(lk);
                continue;
            }
            ticker_ = &me;
            while (!ready() && !mu_.wanted() && now() < earliest_)
                for (int i = 0; i < 16 && now() < earliest_; ++i) tick(wake);
            if (now() >= earliest_) {  // time stops here until the earliest waiters have left
                ticker_ = nullptr;
                for (Waiter* w : waiters_)
                    if (w != &me && w->until <= now()) w->cv.notify_one();
            }
            if (mu_.wanted()) {  // a frame to send, pins to drive, bytes to take
                lk.unlock();
                std::this_thread::yield();
                lk.lock();
            }
        }
    }

private:
    struct Waiter {
        Waiter(unsigned k, std::chrono::nanoseconds u) : key(k), until(u) {}
        unsigned key;
        std::chrono::nanoseconds until;
        std::condition_variable_any cv;
    };

    void leave(Waiter& me) {
        waiters_.erase(std::find(waiters_.begin(), waiters_.end(), &me));
        earliest_ = std::chrono::nanoseconds::max();
        for (Waiter* w : waiters_) earliest_ = std::min(earliest_, w->until);
        if (ticker_ == &me) ticker_ = nullptr;
        // somebody must run the clock, or see that its own deadline came
        if (!ticker_ && !waiters_.empty()) {
            Waiter* next = waiters_.front();
            for (Waiter* w : waiters_)
                if (w->until < next->until) next = w;
            next->cv.notify_one();
        }
    }

    Mutex mu_;
    std::vector<Waiter*> waiters_;  ///< the threads in wait()
    std::chrono::nanoseconds earliest_ = std::chrono::nanoseconds::max();
    Waiter* ticker_ = nullptr;  ///< the waiter running the clock
};

}  // namespace aggnet::sim
