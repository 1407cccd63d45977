// faults.hpp: the virtual hub's fault injector (--faults P; docs/vhub.md,
// "The fault injector").  Every frame on every channel, both ways, passes
// through a Lane of its channel; with probability P % the Injector drops it,
// flips one bit, flips a burst of 2..8 bits after the FLAG, duplicates it,
// holds it back behind the lane's next frame (at most kReorderMs: reordering)
// or puts 1..16 random bytes before it -- one of the six, equally likely.
// `cut` on the control socket makes it drop every frame until `mend`.
#pragma once

#include "common.hpp"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace aggnet::vhub {

/// One direction of one channel: frames pass through here on their way.
struct Lane {
    static constexpr int kReorderMs = 5;  ///< a frame held back for reordering waits at most this long
    Bytes held;                           ///< a frame held back (reordering)
    steady::time_point held_at;

    /// When the frame held back must go out; max() if none is.
    steady::time_point due() const {
        return held.empty() ? steady::time_point::max() : held_at + std::chrono::milliseconds(kReorderMs);
    }
};

class Injector {
public:
    enum Kind { Drop, Flip, Burst, Dup, Reorder, Garbage, kKinds };

    Injector(unsigned percent, uint64_t seed) : percent_(percent), rng_(seed) {}

    /// Passes one frame through a lane; appends what comes out to `out`.
    void pass(Lane& lane, Bytes f, std::vector<Bytes>& out);
    /// A frame held back too long goes out now.
    static void expire(Lane& lane, steady::time_point now, std::vector<Bytes>& out);

    bool active() const { return percent_ != 0; }
    uint64_t damaged() const { return damaged_; }
    void set_cut(bool c) { cut_ = c; }
    bool cut() const { return cut_; }
    uint64_t cut_frames() const { return cut_frames_; }
    /// "F frames damaged (k dropped, ...)", for the log at exit.
    std::string summary() const;

private:
    /// A frame goes out after any frame held back before it.
    static void emit(Lane& lane, Bytes f, std::vector<Bytes>& out);

    unsigned percent_;
    std::mt19937_64 rng_;
    bool cut_ = false;
    uint64_t damaged_ = 0, cut_frames_ = 0;
    uint64_t by_kind_[kKinds] = {};
};

}  // namespace aggnet::vhub
