// test_host_device.cpp: device strings, and the ppdev transport against a fake
// ioctl layer that plays the PC port hardware and a 2-PE hub (the Verilated
// papers_hub) with a scripted partner PE, so the exact bytes libaggnet writes
// for enqueue, wait and waitvec -- including the control inversion -- are
// checked, and the waits really complete.
#include "fake_ppdev.hpp"

#include <aggnet/device.hpp>
#include <aggnet/papers.hpp>
#include <aggnet/papers_device.hpp>
#include <catch2/catch.hpp>

#include <cerrno>
#include <sys/ioctl.h>
#include <linux/parport.h>
#include <linux/ppdev.h>
#include <vector>

using namespace aggnet;
using Catch::Matchers::Contains;
using std::chrono::milliseconds;
using aggnet::test::FakePpdev;

namespace {

std::string device_error(const std::string& spec) {
    try {
        open_device(spec);
    } catch (const DeviceError& e) {
        return e.what();
    }
    return "(no DeviceError)";
}

std::string port_error(const std::string& spec) {
    try {
        open_papers_port(spec, milliseconds(200));
    } catch (const DeviceError& e) {
        return e.what();
    }
    return "(no DeviceError)";
}

}  // namespace

TEST_CASE("device strings: malformed ones name the wrong part", "[host][device]") {
    CHECK_THAT(device_error(""), Contains("empty device string"));
    CHECK_THAT(device_error("parport0"), Contains("no kind prefix"));
    CHECK_THAT(device_error("usb:/dev/x"), Contains("unknown kind 'usb'"));
    CHECK_THAT(device_error("sim:"), Contains("needs a socket path"));
    CHECK_THAT(device_error("sim:/tmp/x/port0"), Contains("'port0' is not peK (K = 0..63) or link"));
    CHECK_THAT(device_error("sim:/tmp/x/pe64"), Contains("is not peK"));
    CHECK_THAT(device_error("sim:/tmp/x/link"), Contains("say which PE") && Contains("sim:/tmp/x/link?pe=0"));
    CHECK_THAT(device_error("sim:/tmp/x/link?pe=64"), Contains("pe=64 is not a PE number (0..63)"));
    CHECK_THAT(device_error("sim:/tmp/x/link?pe=-1"), Contains("pe=-1 is not a PE number"));
    CHECK_THAT(device_error("sim:/tmp/x/link?pe=1&pe=2"), Contains("pe= is given twice"));
    CHECK_THAT(device_error("sim:/tmp/x/link?n=4&pe=1"), Contains("unknown option 'n=4'"));
    CHECK_THAT(device_error("sim:/tmp/x/pe3?pe=3"), Contains("DIR/pe3 takes no options"));
    CHECK_THAT(device_error("ppdev:/dev/parport0"), Contains("say which PE"));
    CHECK_THAT(device_error("ppdev:parport0?pe=0"), Contains("absolute device path"));
    CHECK_THAT(device_error("ppdev:/dev/parport0?pe=x"), Contains("pe=x is not a PE number"));
    CHECK_THAT(device_error("ppdev:/dev/parport0?pe=1&n=8"), Contains("at most 4 PEs"));
    CHECK_THAT(device_error("ppdev:/dev/parport0?pe=4"), Contains("pe=4 but the hub has n=4"));
    CHECK_THAT(device_error("ppdev:/dev/parport0?pe=0&speed=3"), Contains("unknown option 'speed=3'"));
    CHECK_THAT(device_error("serial:/dev/ttyUSB0"), Contains("needs a baud rate"));
    CHECK_THAT(device_error("serial:/dev/ttyUSB0@fast"), Contains("needs a baud rate"));
}

TEST_CASE("device strings: well-formed ones parse; the link kinds are not open_device's", "[host][device]") {
    auto s = parse_device("sim:/tmp/aggnet-abc/pe3");
    CHECK(s.kind == DeviceSpec::Sim);
    CHECK(s.path == "/tmp/aggnet-abc/pe3");
    CHECK(s.pe == 3);
    auto sl = parse_device("sim:/tmp/aggnet-abc/link?pe=3");
    CHECK(sl.kind == DeviceSpec::Sim);
    CHECK(sl.path == "/tmp/aggnet-abc/link");
    CHECK(sl.pe == 3);
    CHECK(parse_device("sim:/tmp/aggnet-abc/link?pe=63").pe == 63);
    CHECK(parse_device("sim:/tmp/aggnet-abc/pe63").pe == 63);
    auto p = parse_device("ppdev:/dev/parport1?pe=2&n=3");
    CHECK(p.kind == DeviceSpec::Ppdev);
    CHECK(p.path == "/dev/parport1");
    CHECK(p.pe == 2);
    CHECK(p.pes == 3);
    CHECK(parse_device("ppdev:/dev/parport0?pe=1").pes == 4);
    auto r = parse_device("serial:/dev/ttyUSB0@3000000");
    CHECK(r.kind == DeviceSpec::Serial);
    CHECK(r.baud == 3000000);
    CHECK_FALSE(r.pe_given);
    auto rp = parse_device("serial:/dev/ttyUSB1@12000000?pe=5");
    CHECK(rp.path == "/dev/ttyUSB1");
    CHECK(rp.baud == 12000000);
    CHECK(rp.pe == 5);
    CHECK(rp.pe_given);
    CHECK_THAT(device_error("serial:/dev/ttyUSB0@3000000?pe=64"), Contains("pe=64 is not a PE number"));
    CHECK_THAT(device_error("serial:/dev/ttyUSB0@3000000?n=4"), Contains("unknown option 'n=4'"));
    // serial: and sim: are the link, not three port registers: open_papers_port() opens them.
    CHECK_THAT(device_error("serial:/dev/ttyUSB0@3000000"), Contains("a serial: device carries link frames") &&
                                                                Contains("open_papers_port"));
    CHECK_THAT(device_error("sim:/tmp/aggnet-abc/pe0"), Contains("a sim: device carries link frames") &&
                                                            Contains("open_papers_port"));
}

TEST_CASE("device strings: unopenable ones carry the errno text", "[host][device]") {
    CHECK_THAT(port_error("sim:/nonexistent-aggnet-dir/pe0"),
               Contains("sim:/nonexistent-aggnet-dir/pe0: cannot connect") && Contains("No such file or directory") &&
                   Contains("no virtual hub there"));
    CHECK_THAT(port_error("sim:/nonexistent-aggnet-dir/link?pe=2"),
               Contains("sim:/nonexistent-aggnet-dir/link?pe=2: cannot connect") && Contains("no virtual hub there"));
    CHECK_THAT(device_error("ppdev:/nonexistent-aggnet-dir/parport9?pe=0"), Contains("cannot open: No such file or directory"));
    // /dev/null opens but is no ppdev device: PPCLAIM fails.
    CHECK_THAT(device_error("ppdev:/dev/null?pe=0"), Contains("PPCLAIM"));
}

TEST_CASE("ppdev: open claims, close releases; failures are DeviceErrors", "[host][ppdev]") {
    auto fake = std::make_shared<FakePpdev>();
    {
        PpdevTransport t("/dev/parport0", 0, 2, fake);
        CHECK(t.hub_pes() == 2);
        CHECK(t.pe_index() == 0);
        CHECK_THROWS_WITH(t.write_data(0x100), Contains("does not fit the 8-bit data register"));
    }
    REQUIRE(fake->calls.size() == 2);
    CHECK(fake->calls.front().req == PPCLAIM);
    CHECK(fake->calls.back().req == PPRELEASE);
    CHECK(fake->closed);

    auto busy = std::make_shared<FakePpdev>();
    busy->claim_errno = EBUSY;
    CHECK_THROWS_WITH(PpdevTransport("/dev/parport0", 0, 2, busy), Contains("PPCLAIM") && Contains("busy"));
    CHECK(busy->closed);
    auto denied = std::make_shared<FakePpdev>();
    denied->open_errno = EACCES;
    CHECK_THROWS_WITH(PpdevTransport("/dev/parport0", 0, 2, denied), Contains("Permission denied"));
}

TEST_CASE("ppdev: exact register bytes for attach, enqueue, wait, waitvec, mode, IR", "[host][ppdev]") {
    auto fake = std::make_shared<FakePpdev>();
    PpdevTransport t("/dev/parport0", 0, 2, fake);
    Papers p(t);
    using C = FakePpdev::Call;
    // Attach: control CE|U0 = 0x09 logical; the PC inverts 0x0b, and CE goes
    // out active low (presence, papers_regs::CABLE_CONTROL_INVERT), so the
    // register is 0x09 ^ 0x03 = 0x0a: pin 17 low, pin 1 (U0) high.
    // Data: our own mask, B0 at bit 4.
    REQUIRE(fake->writes() == std::vector<C>{{PPWCONTROL, 0x0a}, {PPWDATA, 0x10}});

    p.enqueue(0x3);  // alone before: no wait, just the new mask
    REQUIRE(fake->writes().back() == C{PPWDATA, 0x30});
    p.enqueue(0x3);  // unchanged: no traffic
    const size_t before_wait = fake->calls.size();
    p.wait(milliseconds(500));
    // wait: read until GO low, P_OUT(mask|S|PROBE), read until GO, P_OUT(mask).
    // (PROBE, data bit 1, only switches our own I bits to arrival flags, so
    // that a timeout can tell who never came from who left.)
    std::vector<C> w(fake->calls.begin() + long(before_wait), fake->calls.end());
    REQUIRE(w.size() >= 4);
    CHECK(w.front().req == PPRSTATUS);
    CHECK((w.front().byte & 0x80) == 0);
    std::vector<C> wr;
    for (auto& c : w)
        if (c.req != PPRSTATUS) wr.push_back(c);
    CHECK(wr == std::vector<C>{{PPWDATA, 0x3a}, {PPWDATA, 0x30}});
    CHECK((w[w.size() - 2].byte & 0x80) != 0);  // the read before the reset saw GO (bit 7)

    const size_t before_vec = fake->calls.size();
    const uint64_t v = p.waitvec(true, milliseconds(500));
    CHECK(v == 0x3);  // the partner sends D = 1
    wr.clear();
    for (size_t i = before_vec; i < fake->calls.size(); ++i)
        if (fake->calls[i].req != PPRSTATUS) wr.push_back(fake->calls[i]);
    // waitvec: P_OUT(b|S|PROBE), GO, PROBE off with S kept (0x39), x = P_IN(), P_OUT(b).
    CHECK(wr == std::vector<C>{{PPWDATA, 0x3b}, {PPWDATA, 0x39}, {PPWDATA, 0x31}});
    fake->partner_d = false;
    CHECK(p.waitvec(true, milliseconds(500)) == 0x1);

    p.set_mode(true);  // CE|GI|U0 = 0x0d logical -> register 0x0d ^ 0x03 = 0x0e
    CHECK(fake->writes().back() == C{PPWCONTROL, 0x0e});
    p.set_interrupt_request(true);  // IR added to the pins as they are (D = 1 from the last waitvec)
    CHECK(fake->writes().back() == C{PPWDATA, 0x35});
    for (auto& c : fake->calls) CHECK((c.req == PPCLAIM || c.req == PPWDATA || c.req == PPWCONTROL || c.req == PPRSTATUS));
}

TEST_CASE("ppdev: a wait whose partner never arrives times out naming it", "[host][ppdev]") {
    auto fake = std::make_shared<FakePpdev>();
    fake->partner_arrives = false;
    PpdevTransport t("/dev/parport0", 0, 2, fake);
    Papers p(t);
    p.enqueue(0x3);
    try {
        p.wait(milliseconds(20));
        FAIL("wait returned without the partner");
    } catch (const TimeoutError& e) {
        CHECK(e.missing_pes == 0x2);
        CHECK_THAT(e.what(), Contains("PE1"));
    }
    CHECK(fake->writes().back() == FakePpdev::Call{PPWDATA, 0x30});  // S withdrawn
}
