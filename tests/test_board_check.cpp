// test_board_check.cpp: `aggnet board-check DEVICE` (issue 10 item 10), the
// command a user runs after flashing a board.  Over the link it runs against
// the virtual hub as a board would be reached: its pseudo-terminal as a
// serial line and its shared link socket (every check passes), per-PE
// sockets (the barrier is skipped, saying why), a hub that damages 10 % of
// the frames (the loopback passes and counts resends) and a cut link (exit 1
// naming the link error, within the link's deadline).  The pin-by-pin check
// runs against the fake ppdev layer wired to a Verilated papers hub, sound
// and with one broken wire, which the report must name by its DB25 pin.
#include "fake_ppdev.hpp"
#include "vhub_process.hpp"

#include <aggnet/besu.hpp>
#include <aggnet/board_check.hpp>
#include <aggnet/besu_regs.hpp>
#include <aggnet/engines.hpp>
#include <aggnet/papers_regs.hpp>
#include <aggnet/papers_device.hpp>
#include <aggnet/link_papers.hpp>

#include <map>
#include <regex>

#ifndef AGGNET_CLI_EXE
#error "AGGNET_CLI_EXE: path of the aggnet CLI"
#endif

using namespace aggnet;
using namespace aggnet::test;
using Catch::Matchers::Contains;
namespace bc = aggnet::board_check;

namespace {

Run run_check(const std::string& device, std::vector<std::string> extra = {}) {
    std::vector<std::string> args{AGGNET_CLI_EXE, "board-check", device};
    args.insert(args.end(), extra.begin(), extra.end());
    Run r = run_program(args);
    INFO(r.out);
    return r;
}

/// The verdict of the check `name` in a report ("" when it has no line).
std::string verdict(const std::string& out, const std::string& name) {
    std::smatch m;
    const std::regex re("(PASS|FAIL|SKIP)  " + name + " ");
    return std::regex_search(out, m, re) ? m[1].str() : "";
}

/// A number the loopback line reports, e.g. "resends 12".
long number_after(const std::string& out, const std::string& key) {
    std::smatch m;
    const std::regex re(key + " \\+?([0-9]+)");
    return std::regex_search(out, m, re) ? std::stol(m[1].str()) : -1;
}

void all_link_checks_pass(const Run& r) {
    INFO(r.out);
    CHECK(r.status == 0);
    for (const char* c : {"hello", "map hashes", "loopback", "barrier", "waitvec", "restore"})
        CHECK(verdict(r.out, c) == "PASS");
    CHECK_THAT(r.out, !Contains("FAIL"));
    CHECK_THAT(r.out, Contains("hub of 4 PEs") && Contains("papers 0x") && Contains("= ours") &&
                          Contains("400 round trips") && Contains(", 0 wrong") && Contains("every check passed"));
    CHECK_THAT(r.out, Contains("every PE read what the others sent"));
}

/// Runs the pin check on the fake port; returns the checks by name.
std::map<std::string, bc::Check> pin_check(FakePpdev& fake, bool& ok) {
    auto io = std::shared_ptr<IoctlLayer>(&fake, [](IoctlLayer*) {});
    PpdevTransport t("/dev/parport0", 0, 2, io);
    LptPort port(t);
    std::map<std::string, bc::Check> got;
    std::string report;
    ok = bc::check_pins(port, {}, [&](const bc::Check& c) {
        got[c.name] = c;
        report += bc::format(c) + "\n";
    });
    UNSCOPED_INFO(report);
    return got;
}

}  // namespace

TEST_CASE("board-check: every engine's map hash is checked from the generated registry", "[board-check]") {
    // The registry (aggnet/engines.hpp, tools/hubgen.py) reads each hash from
    // the generated Verilog; the engines' own C++ headers carry it too.
    const auto* papers = aggnet::engines::find(aggnet::link_defs::WIN_PAPERS);
    const auto* besu = aggnet::engines::find(aggnet::link_defs::WIN_BESU);
    REQUIRE(papers);
    REQUIRE(besu);
    CHECK(std::string(papers->name) == "papers");
    CHECK(papers->map_hash == aggnet::papers_regs::MAP_HASH);
    CHECK(besu->map_hash == aggnet::besu::regs::MAP_HASH);
    CHECK(aggnet::engines::find(aggnet::link_defs::WIN_INFO) == nullptr);
    bool ok = false;
    CHECK_THAT(bc::engine_hash(besu->window, besu->map_hash, ok), Contains("besu 0x") && Contains("= ours"));
    CHECK(ok);
    CHECK_THAT(bc::engine_hash(besu->window, besu->map_hash ^ 1, ok), Contains("but ours is"));
    CHECK(!ok);
    // an engine this library has no map of is named, and nothing is claimed
    for (const auto& e : aggnet::engines::kEngines)
        if (!e.map_hash) {
            CHECK_THAT(bc::engine_hash(e.window, 0, ok), Contains(e.name) && Contains("no register map"));
            CHECK(ok);
            CHECK_THAT(bc::engine_hash(e.window, 0x1234, ok), Contains("but ours is 0x00000000"));
            CHECK(!ok);
        }
    // a window no engine of this revision has
    unsigned unknown = 16;
    for (unsigned w = 15; w >= 1 && unknown == 16; --w)
        if (!aggnet::engines::find(w)) unknown = w;
    REQUIRE(unknown < 16);
    CHECK_THAT(bc::engine_hash(unknown, 0xabcd, ok), Contains("does not know"));
}

TEST_CASE("board-check: the virtual hub's pty as a board's USB UART, one program acting as every PE",
          "[board-check][vhub]") {
    SimProcess hub(4, {"--pty"});
    all_link_checks_pass(run_check("serial:" + hub.dir() + "/pty-link@3000000"));
}

TEST_CASE("board-check: the shared link socket passes; a per-PE socket skips the barrier saying why",
          "[board-check][vhub]") {
    SimProcess hub(4);
    all_link_checks_pass(run_check(hub.link_dev(0)));
    const Run r = run_check(hub.dev(1));
    INFO(r.out);
    CHECK(r.status == 0);
    CHECK(verdict(r.out, "loopback") == "PASS");
    CHECK(verdict(r.out, "barrier") == "SKIP");
    CHECK_THAT(r.out, Contains("a barrier needs every PE") && Contains("carries PE1 only") && Contains("DIR/link"));
    // The registers it wrote are back as they were: PE1's mask reads 0 as after reset.
    auto port = open_papers_port(hub.link_dev(1));
    CHECK(link_of(*port)->client().read(1, uint16_t(link_defs::WIN_PAPERS << 12 | papers_regs::W_MASK0), 4) == 0);
    CHECK(link_of(*port)->client().read(1, uint16_t(link_defs::WIN_PAPERS << 12 | papers_regs::W_OWNER), 1) == 0);
}

TEST_CASE("board-check: with the fault injector on, the loopback passes and counts the resends",
          "[board-check][vhub][faults]") {
    SimProcess hub(4, {"--faults", "10", "--fault-seed", "7"});
    const Run r = run_check(hub.link_dev(0));
    INFO(r.out);
    CHECK(r.status == 0);
    CHECK(verdict(r.out, "loopback") == "PASS");
    CHECK(number_after(r.out, "resends") > 0);
    CHECK(number_after(r.out, "CRC_ERR") + number_after(r.out, "BAD_LEN") + number_after(r.out, "DUP") > 0);
    CHECK(verdict(r.out, "barrier") == "PASS");
    CHECK(verdict(r.out, "waitvec") == "PASS");
}

TEST_CASE("board-check: a cut link fails (exit 1) naming the link error, within the link's deadline",
          "[board-check][vhub][faults]") {
    SimProcess hub(4);
    hub.control().cut();
    const auto t0 = std::chrono::steady_clock::now();
    const Run r = run_check(hub.link_dev(0));
    const auto secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    INFO(r.out);
    CHECK(r.status == 1);
    CHECK(verdict(r.out, "hello") == "FAIL");
    CHECK_THAT(r.out, Contains("link error") && Contains(hub.link_dev(0)) && Contains("HELLO") &&
                          Contains("no reply") && Contains("FAILED"));
    // The link gives up after 20 frames 50 ms apart; this bound only catches a hang.
    CHECK(secs < 30);
    // Cut in the middle of the loopback: that check fails, the rest is not run.
    hub.control().mend();
    std::thread cutter([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        hub.control().cut();
    });
    const Run mid = run_check(hub.link_dev(0), {"--round-trips", "1000000"});
    cutter.join();
    INFO(mid.out);
    CHECK(mid.status == 1);
    CHECK(verdict(mid.out, "loopback") == "FAIL");
    CHECK_THAT(mid.out, Contains("no reply") && Contains("not run: the link failed"));
}

TEST_CASE("board-check --stream: a hub without a link multiplexer fails saying so", "[board-check][vhub]") {
    // The virtual hub has one link port and no multiplexer (INFO MUX_STREAMS 0);
    // the stream checks themselves run on the board tops (test_uart_pe_tops.cpp).
    SimProcess hub(4);
    const Run r = run_program({AGGNET_CLI_EXE, "board-check", "--stream", hub.link_dev(0), "--usb", hub.link_dev(1)});
    INFO(r.out);
    CHECK(r.status == 1);
    CHECK(verdict(r.out, "streams") == "FAIL");
    CHECK_THAT(r.out, Contains("board-check streams: " + hub.link_dev(0) + " " + hub.link_dev(1)) &&
                          Contains("INFO MUX_STREAMS reads 0: this hub has no link multiplexer") &&
                          Contains("FAILED"));
    CHECK_THAT(r.out, !Contains("stream 0 "));  // nothing checked per stream
    // a stream that does not open is its own FAIL line
    const Run gone = run_program({AGGNET_CLI_EXE, "board-check", "--stream", "sim:/nonexistent-aggnet-dir/link?pe=0"});
    INFO(gone.out);
    CHECK(gone.status == 1);
    CHECK_THAT(gone.out, Contains("FAIL  open") && Contains("no virtual hub there"));
}

TEST_CASE("board-check --stream on the virtual hub's link multiplexer: sound, and a cable on another PE's pins",
          "[board-check][vhub][mux]") {
    // aggnet-sim --mux runs the boards' link_mux (docs/vhub.md): each pty is a
    // header UART's byte stream, pty-link the USB UART's.
    SimProcess hub(4, {"--mux", "--pty"});
    auto pty = [&](const std::string& ch, unsigned pe) {
        return "serial:" + hub.dir() + "/pty-" + ch + "@3000000?pe=" + std::to_string(pe);
    };
    const Run ok = run_program({AGGNET_CLI_EXE, "board-check", "--stream", pty("pe0", 0), "--stream", pty("pe1", 1),
                                "--stream", pty("pe2", 2), "--stream", pty("pe3", 3), "--usb", pty("link", 0),
                                "--round-trips", "20"});
    INFO(ok.out);
    CHECK(ok.status == 0);
    CHECK(verdict(ok.out, "streams") == "PASS");
    CHECK_THAT(ok.out, Contains("4 the USB UART (any PE); counters of 16 bits;"));  // INFO MUX_USB_ANY, MUX_CNT_W
    for (unsigned k = 0; k <= 4; ++k)
        for (const char* c : {"hello", "pins", "loopback", "present", "counters"})
            CHECK(verdict(ok.out, "stream " + std::to_string(k) + " " + c) == "PASS");
    // PE2's cable plugged into PE1's pins: every frame refused there (BIND),
    // and the report says so; the other streams still pass.
    const Run bad = run_program({AGGNET_CLI_EXE, "board-check", "--stream", pty("pe0", 0), "--stream", pty("pe1", 2),
                                 "--round-trips", "20", "--timeout-ms", "3000"});
    INFO(bad.out);
    CHECK(bad.status == 1);
    CHECK(verdict(bad.out, "stream 0 counters") == "PASS");
    CHECK(verdict(bad.out, "stream 2 hello") == "FAIL");
    CHECK_THAT(bad.out, Contains("BIND +") && Contains("the cable is on stream 1's pins, not stream 2's"));
}

TEST_CASE("board-check: usage errors exit 2", "[board-check]") {
    CHECK(run_check("sim:/tmp/x/port0").status == 2);
    CHECK(run_check("sim:/tmp/x/link?pe=0", {"--round-trips", "0"}).status == 2);
    CHECK(run_check("sim:/tmp/x/link?pe=0", {"--bogus"}).status == 2);
    // the stream form: link devices only, not beside DEVICE, no barriers
    CHECK(run_program({AGGNET_CLI_EXE, "board-check", "--stream", "ppdev:/dev/parport0?pe=0"}).status == 2);
    CHECK(run_check("sim:/tmp/x/link?pe=0", {"--stream", "sim:/tmp/x/link?pe=1"}).status == 2);
    CHECK(run_program({AGGNET_CLI_EXE, "board-check", "--stream", "sim:/tmp/x/link?pe=0", "--barriers", "2"}).status ==
          2);
    CHECK(run_program({AGGNET_CLI_EXE, "board-check", "--usb", "sim:/tmp/x/link?pe=0", "--usb", "sim:/tmp/x/link?pe=1"})
              .status == 2);
    CHECK(run_program({AGGNET_CLI_EXE, "board-check", "--stream"}).status == 2);
    const Run gone = run_check("sim:/nonexistent-aggnet-dir/link?pe=0");
    CHECK(gone.status == 1);
    CHECK_THAT(gone.out, Contains("FAIL  open") && Contains("no virtual hub there"));
}

TEST_CASE("board-check pins: a sound cable passes every pin one PE can observe", "[board-check][ppdev]") {
    FakePpdev fake;
    fake.partner_arrives = false;  // PE1 idle: S low, its mask naming itself
    fake.partner_mask = 0x2;
    bool ok = false;
    auto got = pin_check(fake, ok);
    CHECK(ok);
    CHECK(got["pin steps"].verdict == bc::Verdict::pass);
    for (unsigned pin : {4, 5, 6, 7, 8, 9, 10, 11, 16, 17}) {
        INFO("pin " << pin << ": " << got["pin " + std::to_string(pin)].detail);
        CHECK(got["pin " + std::to_string(pin)].verdict == bc::Verdict::pass);
    }
    for (unsigned pin : {1, 2, 3, 12, 13, 14, 15}) {
        INFO("pin " << pin);
        CHECK(got["pin " + std::to_string(pin)].verdict == bc::Verdict::skip);
    }
    CHECK_THAT(got["pin 5"].detail, Contains("D3, S"));
    CHECK_THAT(got["pin 11"].detail, Contains("Busy, GO"));
}

TEST_CASE("board-check pins: a broken wire is named by its DB25 pin and how it is stuck", "[board-check][ppdev]") {
    struct Case {
        const char* what;
        uint8_t FakePpdev::*mask;
        uint8_t FakePpdev::*level;
        uint8_t bit, value;
        unsigned pin;
        const char* says;
    };
    const Case cases[] = {
        {"IR (D2) stuck low", &FakePpdev::data_stuck, &FakePpdev::data_level, 1u << 2, 0, 4, "stuck low"},
        {"B1 (D5) stuck low", &FakePpdev::data_stuck, &FakePpdev::data_level, 1u << 5, 0, 7, "stuck low"},
        {"Busy stuck high", &FakePpdev::stat_stuck, &FakePpdev::stat_level, 1u << 7, 1u << 7, 11, "stuck high"},
        {"Ack stuck high", &FakePpdev::stat_stuck, &FakePpdev::stat_level, 1u << 6, 1u << 6, 10, "stuck high"},
        {"Init (GI) stuck low", &FakePpdev::ctrl_stuck, &FakePpdev::ctrl_level, 1u << 2, 0, 16, "stuck low"},
        // Presence (CE read active low on the cable): a broken /SelectIn wire,
        // pulled high, leaves the PE absent; one shorted low, always present.
        {"SelectIn (CE) stuck high", &FakePpdev::ctrl_stuck, &FakePpdev::ctrl_level, 1u << 3, 1u << 3, 17, "stuck high"},
        {"SelectIn (CE) stuck low", &FakePpdev::ctrl_stuck, &FakePpdev::ctrl_level, 1u << 3, 0, 17, "stuck low"},
    };
    for (const Case& c : cases) {
        INFO(c.what);
        FakePpdev fake;
        fake.partner_arrives = false;
        fake.partner_mask = 0x2;
        fake.*c.mask = c.bit;
        fake.*c.level = c.value;
        bool ok = true;
        auto got = pin_check(fake, ok);
        CHECK_FALSE(ok);
        CHECK(got["pin steps"].verdict == bc::Verdict::fail);
        const auto& p = got["pin " + std::to_string(c.pin)];
        INFO(p.detail);
        CHECK(p.verdict == bc::Verdict::fail);
        CHECK_THAT(p.detail, Contains(c.says) && Contains("this explains every reading"));
        unsigned failed = 0;
        for (const auto& kv : got) failed += kv.first != "pin steps" && kv.second.verdict == bc::Verdict::fail;
        CHECK(failed == 1);  // that pin and no other
    }
}

// ---- aggnet barr: the BESU engine's offline diagnostic (seed 001) -----------------------

TEST_CASE("barr: passes on the virtual hub's 2x2x2 mesh; names a cut mesh link; refuses a per-PE socket",
          "[barr][besu][vhub]") {
    SimProcess hub(8);
    Run r = run_program({AGGNET_CLI_EXE, "barr", hub.link_dev(0), "--timeout-ms", "3000"});
    INFO(r.out);
    CHECK(r.status == 0);
    CHECK_THAT(r.out, Contains("2x2x2 mesh, 8 BESUs per node") && Contains("36 checks, 0 failed") &&
                          Contains("every check passed") && !Contains("FAIL "));
    {  // cut node 3's +Z link (to node 7), as a supervisor
        LinkConnection lc = open_link(hub.link_dev(0));
        besu::Node n3(*lc.client, 3);
        n3.supervisor();
        n3.set_fault(1u << 4);
        n3.user();
    }
    r = run_program({AGGNET_CLI_EXE, "barr", hub.link_dev(0), "--timeout-ms", "400"});
    INFO(r.out);
    CHECK(r.status == 1);
    CHECK_THAT(r.out, Contains("FAIL link node 3 (1,1,0) +Z <-> node 7 (1,1,1) -Z") && Contains("FAILED"));
    CHECK_THAT(r.out, Contains("ok   link node 0 (0,0,0) +X <-> node 1 (1,0,0) -X"));
    // a socket that carries one PE cannot act as every node
    r = run_program({AGGNET_CLI_EXE, "barr", hub.dev(2)});
    INFO(r.out);
    CHECK(r.status == 1);
    CHECK_THAT(r.out, Contains("barr needs every node's PE 0..7"));
    r = run_program({AGGNET_CLI_EXE, "barr"});
    CHECK(r.status == 2);
    r = run_program({AGGNET_CLI_EXE, "barr", hub.link_dev(0), "--key"});
    CHECK(r.status == 2);
}
