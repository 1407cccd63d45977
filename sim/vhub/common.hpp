// common.hpp: what every part of the virtual hub (sim/vhub/) shares: its
// byte and clock types, the errno message of a failed system call, and the
// bound on replies queued for one client.
#pragma once

#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace aggnet::vhub {

using steady = std::chrono::steady_clock;
using Bytes = std::vector<uint8_t>;

/// Reply bytes queued for one client (a channel's or a control client's)
/// before it is dropped.
constexpr size_t kMaxQueued = 64 * 1024;

inline std::string errno_text() { return std::strerror(errno); }

}  // namespace aggnet::vhub
