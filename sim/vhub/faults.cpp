// faults.cpp: the fault injector (faults.hpp).
#include "faults.hpp"

#include <algorithm>

namespace aggnet::vhub {

void Injector::pass(Lane& lane, Bytes f, std::vector<Bytes>& out) {
    if (cut_) {
        ++cut_frames_;
        return;
    }
    if (!percent_ || rng_() % 100 >= percent_) return emit(lane, std::move(f), out);
    ++damaged_;
    const Kind k = Kind(rng_() % kKinds);
    ++by_kind_[k];
    switch (k) {
    case Drop:
        return;
    case Flip:
        if (f.size() > 1) f[1 + rng_() % (f.size() - 1)] ^= uint8_t(1u << (rng_() % 8));
        return emit(lane, std::move(f), out);
    case Burst: {
        // 2..8 consecutive bits, after the FLAG.
        const size_t bits = (f.size() - 1) * 8;
        if (bits < 2) return emit(lane, std::move(f), out);
        const size_t len = std::min<size_t>(2 + rng_() % 7, bits);
        const size_t at = 8 + rng_() % (bits - len + 1);
        for (size_t b = at; b < at + len; ++b) f[b / 8] ^= uint8_t(0x80u >> (b % 8));
        return emit(lane, std::move(f), out);
    }
    case Dup:
        emit(lane, f, out);
        return emit(lane, std::move(f), out);
    case Reorder:
        if (!lane.held.empty()) out.push_back(std::move(lane.held));
        lane.held = std::move(f);
        lane.held_at = steady::now();
        return;
    case Garbage: {
        Bytes g(1 + rng_() % 16);
        for (auto& b : g) b = uint8_t(rng_());
        out.push_back(std::move(g));
        return emit(lane, std::move(f), out);
    }
    case kKinds:
        break;
    }
}

void Injector::expire(Lane& lane, steady::time_point now, std::vector<Bytes>& out) {
    if (!lane.held.empty() && now >= lane.due()) out.push_back(std::move(lane.held)), lane.held.clear();
}

std::string Injector::summary() const {
    static const char* names[kKinds] = {"dropped", "bit-flipped", "burst-flipped", "duplicated", "reordered",
                                        "garbage-led"};
    std::string s = std::to_string(damaged_) + " frames damaged (";
    for (int k = 0; k < kKinds; ++k) s += (k ? ", " : "") + std::to_string(by_kind_[k]) + " " + names[k];
    return s + ")";
}

void Injector::emit(Lane& lane, Bytes f, std::vector<Bytes>& out) {
    out.push_back(std::move(f));
    if (!lane.held.empty()) out.push_back(std::move(lane.held)), lane.held.clear();
}

}  // namespace aggnet::vhub
