// cause_names.hpp: the check every engine library's cause_name() passes
// (tests/test_besu_ops.cpp, tests/test_cop_ops.cpp): the names come from the
// engine's generated cause_text() (tools/gentables.py cause_text_fn), so each
// cause first..last reads "NAME: meaning", `sample` starts with its own
// "NAME: ", cause 0 is "no cause logged" and any other code "an unknown cause".
#pragma once

#include <catch2/catch.hpp>

#include <string>

namespace aggnet::test {

inline void check_cause_names(const char* (*name)(unsigned), unsigned first, unsigned last, unsigned sample,
                              const std::string& sample_name) {
    for (unsigned c = first; c <= last; ++c) {
        const std::string s = name(c);
        INFO("cause " << c << ": " << s);
        REQUIRE(s.find(": ") != std::string::npos);
        REQUIRE(s.size() > s.find(": ") + 10);
    }
    REQUIRE(std::string(name(sample)).rfind(sample_name + ": ", 0) == 0);
    REQUIRE(std::string(name(0)) == "no cause logged");
    REQUIRE(std::string(name(200)) == "an unknown cause");
}

}  // namespace aggnet::test
