// serial: end to end.  The aggnet CLI (a separate process) opens
// serial:/dev/pts/N@3000000?pe=0 -- a pseudo-terminal whose other side is
// bridged, byte for byte, to the link port of a Verilated aggnet_hub -- and
// runs PAPERS barriers with PE1, a PE cabled to the hub's pins that the test
// drives as a PC port would (seed 000 section 4.3.2).  So the whole path is
// checked: device string, SerialPipe (termios2 on a pty), LinkClient,
// LinkPapersPort, the link RTL, the PAPERS window and papers_hub.
#include "hub_bridge.hpp"
#include "pty.hpp"
#include "vhub_process.hpp"

#include <catch2/catch.hpp>

#ifndef AGGNET_CLI_EXE
#error "AGGNET_CLI_EXE: path of the aggnet CLI"
#endif

using namespace aggnet;
using aggnet::test::Pty;
using aggnet::test::run_program;
using aggnet::test::Run;
using Catch::Matchers::Contains;

using aggnet::test::Bridge;

TEST_CASE("serial: the CLI barriers over a pty with a PE cabled to the hub's pins", "[serial][link][cli]") {
    Pty pty;
    Bridge bridge(pty.master);
    const std::string dev = "serial:" + pty.path + "@3000000?pe=0";
    Run r = run_program({AGGNET_CLI_EXE, "probe", dev});
    INFO(r.out);
    CHECK(r.status == 0);
    CHECK_THAT(r.out, Contains("link, PE0 of 4") && Contains("48 MHz"));
    CHECK_THAT(r.out, Contains("serves PE0..PE3") && Contains("[window 1: papers 0x") && Contains("= ours]") &&
                          Contains("scratch (no register map to check)") &&
                          Contains("CRC_ERR 0"));
    const unsigned before = bridge.pe1_barriers;
    r = run_program({AGGNET_CLI_EXE, "papers", "barrier", dev, "--mask", "0x3", "--count", "40", "--timeout-ms", "5000"});
    INFO(r.out);
    CHECK(r.status == 0);
    CHECK_THAT(r.out, Contains("40 barriers over mask 0x3"));
    // PE1 went through the same barriers (it may be one ahead, waiting).
    const unsigned pe1 = bridge.pe1_barriers - before;
    CHECK(pe1 >= 40);
    CHECK(pe1 <= 41);
}

TEST_CASE("serial: device strings that do not open say why, exit 1; malformed ones exit 2", "[serial][cli]") {
    Run r = run_program({AGGNET_CLI_EXE, "probe", "serial:/dev/nonexistent-aggnet-tty@3000000"});
    CHECK(r.status == 1);
    CHECK_THAT(r.out, Contains("/dev/nonexistent-aggnet-tty"));
    r = run_program({AGGNET_CLI_EXE, "probe", "serial:/dev/ttyUSB0@3000000?pe=1&pe=2"});
    CHECK(r.status == 2);
    CHECK_THAT(r.out, Contains("pe= is given twice"));
    r = run_program({AGGNET_CLI_EXE, "probe", "serial:/dev/ttyUSB0"});
    CHECK(r.status == 2);
    CHECK_THAT(r.out, Contains("needs a baud rate"));
}
