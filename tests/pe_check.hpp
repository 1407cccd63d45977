// pe_check.hpp: checks on PE threads.  Catch2 2.x's assertion macros are not
// thread-safe (they share the run context; two threads checking at once
// corrupted the heap in test_besu_ops), so a PE thread checks with PE_CHECK
// and PE_CHECK_MSG (and PE_FAIL), which hold one lock around Catch and carry
// their context in the message instead of a scoped INFO (whose stack is
// shared too).
#pragma once

#include <catch2/catch.hpp>

#include <mutex>
#include <sstream>

namespace aggnet::test {
inline std::mutex& catch_mutex() {
    static std::mutex m;
    return m;
}
}  // namespace aggnet::test

// The condition is evaluated before the lock is taken (it may block: a
// barrier), so a failure shows the expression, not Catch's expansion.
#define PE_CHECK(cond) PE_CHECK_MSG(cond, "on a PE thread")

#define PE_FAIL(msg)                                                               \
    do {                                                                           \
        std::ostringstream pe_check_msg_;                                          \
        pe_check_msg_ << msg;                                                      \
        std::lock_guard<std::mutex> pe_check_lock_(aggnet::test::catch_mutex());   \
        FAIL_CHECK(pe_check_msg_.str());                                           \
    } while (0)

#define PE_CHECK_MSG(cond, msg)                                                    \
    do {                                                                           \
        const bool pe_check_ok_ = static_cast<bool>(cond);                         \
        std::lock_guard<std::mutex> pe_check_lock_(aggnet::test::catch_mutex());   \
        if (pe_check_ok_) {                                                        \
            SUCCEED();                                                             \
        } else {                                                                   \
            std::ostringstream pe_check_msg_;                                      \
            pe_check_msg_ << msg << ": " #cond;                                    \
            FAIL_CHECK(pe_check_msg_.str());                                       \
        }                                                                          \
    } while (0)
