// sync2 (rtl/common/sync2.v): q is d delayed by exactly two clock edges, and
// rst clears both stages.  Random stimulus, seeded.
#include "harness.hpp"
#include "seed.hpp"

#include <Vsync2.h>
#include <catch2/catch.hpp>

#include <deque>
#include <random>

using aggnet::sim::Harness;

TEST_CASE("sync2 delays every bit by two edges", "[sync2]") {
    Harness<Vsync2> h("sync2");
    std::mt19937_64 rng(aggnet::sim::test_seed("sync2"));
    h.reset();
    REQUIRE(h->q == 0);
    std::deque<unsigned> hist{0, 0};
    for (int i = 0; i < 100000; ++i) {
        const unsigned d = rng() & 0xff;
        h->d = d;
        h.tick();
        hist.push_back(d);
        // after this edge, q = d of two edges ago (the value pushed one before)
        const unsigned expect = hist[hist.size() - 2];
        hist.pop_front();
        INFO("cycle " << h.cycle());
        REQUIRE(unsigned(h->q) == expect);
    }
}

TEST_CASE("sync2 reset clears both stages", "[sync2]") {
    Harness<Vsync2> h("sync2_reset");
    h.reset();
    h->d = 0xa5;
    h.ticks(2);
    REQUIRE(h->q == 0xa5);
    h->rst = 1;
    h->d = 0xff;
    h.tick();
    REQUIRE(h->q == 0);
    h->rst = 0;
    h.tick();
    REQUIRE(h->q == 0);  // first stage was cleared too, not 0xff
    h.tick();
    REQUIRE(h->q == 0xff);
}
