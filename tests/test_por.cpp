// por (rtl/common/por.v): rst is high for exactly 2**BITS edges after
// configuration, and again whenever ext_rst is held (2-flop synchronized).
#include "harness.hpp"

#include <Vpor.h>
#include <catch2/catch.hpp>

using aggnet::sim::Harness;

TEST_CASE("por holds reset for 2**BITS cycles after configuration", "[por]") {
    Harness<Vpor> h("por");
    h->ext_rst = 0;
    h->eval();
    unsigned high = 0;
    while (h->rst) {
        h.tick();
        ++high;
        REQUIRE(high <= 64);
    }
    REQUIRE(high == 16);  // BITS = 4
    h.ticks(100);
    REQUIRE(h->rst == 0);
}

TEST_CASE("por re-asserts reset while ext_rst is held", "[por]") {
    Harness<Vpor> h("por_ext");
    h->ext_rst = 0;
    h.ticks(20);
    REQUIRE(h->rst == 0);
    h->ext_rst = 1;
    h.tick();
    REQUIRE(h->rst == 0);  // still in the synchronizer
    h.tick();
    h.tick();
    REQUIRE(h->rst == 1);  // two synchronizer edges, then the counter clears
    h.ticks(40);
    REQUIRE(h->rst == 1);
    h->ext_rst = 0;
    unsigned high = 0;
    while (h->rst) {
        h.tick();
        ++high;
        REQUIRE(high <= 64);
    }
    REQUIRE(high >= 16);
    REQUIRE(high <= 19);
}
