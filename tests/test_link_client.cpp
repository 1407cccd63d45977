// LinkClient (host/src/link_client.cpp) on its own: a fake pipe with a fake
// clock, and FakeHub (tests/fake_hub.hpp), a C++ hub that follows
// docs/link.md's rules (per-PE last seq and stored reply, HELLO resets,
// duplicates answered again, stale frames answered ERR STALE, WAIT with ACK
// then DATA).  Checks: the link error within the retry bound with
// device, PE, op and address in the message; stale and wrong replies
// ignored; hub ERR -> RegisterError; version mismatch and unserved PEs ->
// DeviceError; WAIT keep-alives, WAIT timeout, a link cut during a WAIT.
#include "fake_hub.hpp"
#include "link_util.hpp"

#include <aggnet/error.hpp>
#include <aggnet/link_client.hpp>
#include <catch2/catch.hpp>

#include <deque>
#include <functional>
#include <map>
#include <vector>

using namespace aggnet;
using namespace aggnet::link;
using aggnet::test::FakeHub;
using std::chrono::milliseconds;
using std::chrono::nanoseconds;
namespace D = aggnet::link_defs;

namespace {

/// A pipe with a fake clock: the hub (when connected) answers after `latency`.
struct FakePipe : LinkPipe {
    nanoseconds t{0};
    nanoseconds latency = std::chrono::microseconds(100);
    FakeHub* hub = nullptr;
    bool cut = false;
    Decoder dec;
    std::deque<std::pair<nanoseconds, std::vector<uint8_t>>> q;
    uint64_t sent_frames = 0;
    std::vector<nanoseconds> sent_at;  // when each frame went out
    std::function<void(std::vector<Frame>&)> tamper;  // may edit/add replies
    bool v3 = false;  // the hub answers in the frames of link versions 1-3 (CRC-16)
    std::vector<uint8_t> wire(const Frame& f) const { return v3 ? test::encode_v3(f) : encode(f); }

    void send(const uint8_t* data, size_t n) override {
        ++sent_frames;
        sent_at.push_back(t);
        if (cut || !hub) return;
        std::vector<Frame> out;
        for (size_t i = 0; i < n; ++i)
            if (dec.push(data[i])) hub->handle(dec.frame(), out);
        if (tamper) tamper(out);
        for (const auto& f : out) q.emplace_back(t + latency, wire(f));
    }
    size_t recv(uint8_t* buf, size_t cap, nanoseconds until) override {
        if (hub && !cut) {
            std::vector<Frame> out;
            hub->poll(out);
            for (const auto& f : out) q.emplace_back(t + latency, wire(f));
        }
        if (!q.empty() && q.front().first <= until) {
            if (q.front().first > t) t = q.front().first;
            auto bytes = q.front().second;
            q.pop_front();
            REQUIRE(bytes.size() <= cap);
            std::copy(bytes.begin(), bytes.end(), buf);
            return bytes.size();
        }
        if (until > t) t = until;
        return 0;
    }
    nanoseconds now() override { return t; }
};

LinkConfig cfg() {
    LinkConfig c;
    c.resend_timeout = milliseconds(10);
    c.max_attempts = 4;
    return c;
}

}  // namespace

TEST_CASE("LinkClient: resends back off to resend_timeout_max, and a sign of life starts again", "[link][client]") {
    FakePipe pipe;
    FakeHub hub;
    pipe.hub = &hub;
    LinkConfig c = cfg();  // 10 ms, 4 attempts
    c.resend_timeout_max = milliseconds(35);
    c.max_attempts = 6;
    // 10 + 20 + 35 + 35 + 35 + 35: doubling, capped at the maximum
    CHECK(c.give_up_time() == milliseconds(170));
    CHECK(cfg().give_up_time() == milliseconds(40));  // no maximum: no backoff
    LinkClient cl(pipe, "sim:/x/pe0", c);
    cl.write(0, 0x1004, 1, 1);  // HELLO and WRITE answered: synced
    // The link goes dead: the next command's frames go out 10, 20, 35, 35,
    // 35 ms apart, and it fails 35 ms after the last: 170 ms unanswered.
    pipe.cut = true;
    const size_t first = pipe.sent_at.size();
    const nanoseconds t0 = pipe.now();
    try {
        cl.read(0, 0x1004, 1);
        FAIL("no LinkError");
    } catch (const LinkError& e) {
        INFO(e.what());
        CHECK(e.attempts == 6);
        CHECK(std::string(e.what()).find("6 frames in 170 ms (resends 10 ms backing off to 35 ms)") !=
              std::string::npos);
    }
    REQUIRE(pipe.sent_at.size() - first == 6);
    const long gaps[] = {10, 20, 35, 35, 35};
    for (size_t i = 0; i < 5; ++i) {
        INFO("gap " << i);
        CHECK(pipe.sent_at[first + i + 1] - pipe.sent_at[first + i] == milliseconds(gaps[i]));
    }
    CHECK(pipe.now() - t0 == c.give_up_time());
    // A reply resets the interval: two lost frames, then the hub answers; the
    // next command's first resend comes 10 ms after it, not 35 ms.
    pipe.cut = false;
    int lose = 2;
    pipe.tamper = [&](std::vector<Frame>& out) {
        if (lose > 0) {
            --lose;
            out.clear();
        }
    };
    CHECK(cl.read(0, 0x1004, 1) == 1);  // the hub answers the third frame, 10 + 20 ms on
    lose = 1;
    const size_t mark = pipe.sent_at.size();
    CHECK(cl.read(0, 0x1004, 1) == 1);
    REQUIRE(pipe.sent_at.size() - mark == 2);
    CHECK(pipe.sent_at[mark + 1] - pipe.sent_at[mark] == milliseconds(10));
}

TEST_CASE("LinkClient: a cut link fails every call with LinkError within the retry bound", "[link][client]") {
    FakePipe pipe;
    pipe.cut = true;
    LinkClient c(pipe, "serial:/dev/ttyUSB7@3000000", cfg());
    const nanoseconds bound = cfg().resend_timeout * cfg().max_attempts;
    auto expect_link_error = [&](auto call, const char* op, const char* addr) {
        const nanoseconds t0 = pipe.now();
        const uint64_t sent0 = pipe.sent_frames;
        try {
            call();
            FAIL("no LinkError");
        } catch (const LinkError& e) {
            const std::string m = e.what();
            INFO(m);
            CHECK(m.find("serial:/dev/ttyUSB7@3000000") != std::string::npos);
            CHECK(m.find("PE3") != std::string::npos);
            CHECK(m.find(op) != std::string::npos);
            CHECK(m.find(addr) != std::string::npos);
            CHECK(e.pe == 3);
            CHECK(e.attempts == cfg().max_attempts);
        }
        CHECK(pipe.now() - t0 <= bound);
        CHECK(pipe.sent_frames - sent0 == cfg().max_attempts);
    };
    // the first command of a PE is preceded by HELLO: that is what fails
    expect_link_error([&] { c.read(3, 0x1004, 1); }, "READ 0x1004: no reply to the HELLO before it", "0x1004");
    expect_link_error([&] { c.write(3, 0x1005, 7, 1); }, "WRITE 0x1005: no reply to the HELLO before it", "0x1005");
    expect_link_error([&] { c.hello(3); }, "HELLO", "0x0000");
    // once synced, the op itself is named
    pipe.cut = false;
    FakeHub hub;
    pipe.hub = &hub;
    c.hello(3);
    pipe.cut = true;
    expect_link_error([&] { c.read(3, 0x1234, 2); }, "READ 0x1234: no reply after", "0x1234");
    // The failed READ used up a seq the hub never saw, and the hub takes only
    // last seq + 1 as new: so the next command says HELLO first.
    expect_link_error([&] { c.write(3, 0x2345, 0xbeef, 2); }, "WRITE 0x2345: no reply to the HELLO before it",
                      "0x2345");
    expect_link_error([&] { c.wait(3, 0x3456, 1, 1, 1, std::chrono::seconds(5)); }, "WAIT", "0x3456");
    // Mended, the PE resynchronises and carries on.
    pipe.cut = false;
    c.write(3, 0x1001, 0x42, 1);
    CHECK(c.read(3, 0x1001, 1) == 0x42);
}

TEST_CASE("LinkClient: reads, writes, errors, stale replies", "[link][client]") {
    FakePipe pipe;
    FakeHub hub;
    pipe.hub = &hub;
    LinkClient c(pipe, "sim:test", cfg());
    HelloInfo h = c.hello(1);
    CHECK(h.version == D::VERSION);
    CHECK(h.port_pes == 4);
    CHECK(h.clk_hz == 48000000u);
    c.write(1, 0x1010, 0x12345678, 4);
    CHECK(c.read(1, 0x1010, 4) == 0x12345678u);
    CHECK(c.read(1, 0x1010, 2) == 0x5678u);
    CHECK(hub.applied == 1);
    try {
        c.read(1, 0xE001, 1);
        FAIL("no RegisterError");
    } catch (const RegisterError& e) {
        CHECK(e.code == D::ERR_NO_REG);
        CHECK(std::string(e.what()).find("NO_REG") != std::string::npos);
    }
    CHECK_THROWS_AS(c.write(1, 0xF001, 1, 1), RegisterError);
    // PE 9 is outside the port (PEs 0..3): refused without a frame
    const uint64_t sent = pipe.sent_frames;
    CHECK_THROWS_AS(c.read(9, 0x1010, 1), DeviceError);
    CHECK(pipe.sent_frames == sent);
    CHECK_THROWS_AS(c.read(1, 0x1010, 5), std::invalid_argument);
    CHECK_THROWS_AS(c.write(1, 0x1010, 0x100, 1), std::invalid_argument);
    CHECK_THROWS_AS(c.wait(1, 0x1010, 0x0f, 0x10, 1, milliseconds(1)), std::invalid_argument);

    // stale replies (old seq, wrong op, wrong addr, other PE) before the real one
    pipe.tamper = [](std::vector<Frame>& out) {
        if (out.empty()) return;
        Frame a = out[0], b = out[0], d = out[0], e = out[0];
        a.seq = uint8_t(a.seq - 1);
        b.op = D::OP_HELLO_R;
        d.addr ^= 1;
        e.pe = uint8_t(e.pe + 1);
        out.insert(out.begin(), {a, b, d, e});
    };
    const uint64_t stale0 = c.stats().stale;
    c.write(1, 0x1011, 0x99, 1);
    CHECK(c.read(1, 0x1011, 1) == 0x99u);
    CHECK(c.stats().stale - stale0 == 8);
    CHECK(hub.applied == 2);
}

TEST_CASE("LinkClient: ERR STALE: a restarted host's HELLO skips out of the window; a lost sequence state is "
          "rebuilt and the command applied once; a PE another program drives fails with LinkError",
          "[link][client]") {
    FakePipe pipe;
    FakeHub hub;
    pipe.hub = &hub;
    // The PE's last seq in the hub, from an earlier program: 10.  This
    // host starts at seq 0, 10 behind: its HELLO is stale (docs/link.md rule 2).
    hub.pes[1].known = true;
    hub.pes[1].seq = 10;
    LinkClient c(pipe, "sim:test", cfg());
    c.write(1, 0x1030, 0x55, 1);
    CHECK(hub.stale == 1);
    CHECK(c.stats().resyncs == 1);
    CHECK(hub.pes[1].seq == uint8_t(0 + D::HELLO_SKIP + 1));  // HELLO 128, then the write at 129
    CHECK(hub.applied == 1);
    CHECK(c.read(1, 0x1030, 1) == 0x55u);

    // The hub loses the PE's state mid-run (another program said HELLO on
    // it): the next write is stale, not applied; the host says HELLO and
    // sends it again, applied exactly once.
    hub.pes[1].seq = uint8_t(hub.pes[1].seq + 77);
    c.write(1, 0x1031, 0x66, 1);
    CHECK(hub.applied == 2);
    CHECK(hub.get(1, 0x1031) == 0x66u);
    CHECK(c.stats().resyncs == 2);

    // Another program on the same PE moves its seq on every frame: the call
    // fails after max_stale resyncs, naming the reason, and nothing is applied.
    hub.pes[1].seq = uint8_t(hub.pes[1].seq + 50);
    pipe.tamper = [&](std::vector<Frame>&) { hub.pes[1].seq = uint8_t(hub.pes[1].seq + 50); };
    try {
        c.write(1, 0x1032, 0x77, 1);
        FAIL("no LinkError");
    } catch (const LinkError& e) {
        CHECK_THAT(e.what(), Catch::Contains("ERR STALE") && Catch::Contains("another program") &&
                                 Catch::Contains("PE1"));
    }
    CHECK(!hub.written(1, 0x1032));
    CHECK(c.stats().resyncs == 2 + cfg().max_stale + 1);
    pipe.tamper = nullptr;
    c.write(1, 0x1032, 0x77, 1);
    CHECK(hub.get(1, 0x1032) == 0x77u);
}

TEST_CASE("LinkClient: lost replies are resent and never applied twice", "[link][client]") {
    FakePipe pipe;
    FakeHub hub;
    pipe.hub = &hub;
    LinkClient c(pipe, "sim:test", cfg());
    int n = 0;
    pipe.tamper = [&](std::vector<Frame>& out) {
        if (++n % 2) out.clear();  // every other reply is lost
    };
    for (uint32_t v = 0; v < 50; ++v) c.write(2, 0x1020, v, 1);
    CHECK(hub.applied == 50);
    CHECK(hub.get(2, 0x1020) == 49u);
    CHECK(c.stats().resends >= 25);
}

TEST_CASE("LinkClient: WAIT keep-alives, completion, timeout, link cut while pending", "[link][client]") {
    FakePipe pipe;
    FakeHub hub;
    pipe.hub = &hub;
    LinkClient c(pipe, "sim:test", cfg());
    c.hello(0);
    // satisfied at once: DATA without ACK
    hub.set(0, 0x1030, 0x81);
    CHECK(c.wait(0, 0x1030, 0x80, 0x80, 1, milliseconds(100)) == 0x81u);
    // pending: ACK, keep-alives answered with ACK, then DATA when the register changes
    hub.set(0, 0x1031, 0);
    c.start_wait(0, 0x1031, 0x01, 0x01, 1, pipe.now() + milliseconds(500));
    uint8_t buf[256];
    while (pipe.now() < milliseconds(200) + nanoseconds(0) && !c.done(0)) {
        const nanoseconds until = c.poll();
        const size_t k = pipe.recv(buf, sizeof buf, until);
        c.feed(buf, k);
    }
    CHECK(!c.done(0));  // 100+ ms of waiting, several keep-alives, no link error
    hub.set(0, 0x1031, 0x03);
    while (!c.done(0)) {
        const nanoseconds until = c.poll();
        const size_t k = pipe.recv(buf, sizeof buf, until);
        c.feed(buf, k);
    }
    LinkResult r = c.take(0);
    CHECK(r.kind == LinkResult::ok);
    CHECK(r.value == 0x03u);
    CHECK(r.attempts > cfg().max_attempts);  // keep-alives went on past the retry bound
    // never satisfied: TimeoutError at the deadline
    hub.set(0, 0x1032, 0);
    const nanoseconds t0 = pipe.now();
    CHECK_THROWS_AS(c.wait(0, 0x1032, 1, 1, 1, milliseconds(50)), TimeoutError);
    CHECK(pipe.now() - t0 >= milliseconds(50));
    CHECK(pipe.now() - t0 < milliseconds(60));
    // the link goes down while a WAIT is pending: LinkError after the bound
    c.start_wait(0, 0x1032, 1, 1, 1, pipe.now() + std::chrono::seconds(10));
    for (int i = 0; i < 3; ++i) {
        const nanoseconds until = c.poll();
        const size_t k = pipe.recv(buf, sizeof buf, until);
        c.feed(buf, k);
    }
    pipe.cut = true;
    const nanoseconds cut_at = pipe.now();
    while (!c.done(0)) {
        const nanoseconds until = c.poll();
        if (c.done(0)) break;
        const size_t k = pipe.recv(buf, sizeof buf, until);
        c.feed(buf, k);
    }
    r = c.take(0);
    CHECK(r.kind == LinkResult::link_error);
    // replies already in flight at the cut may still arrive (one latency); after
    // the last sign of life, max_attempts keep-alives go unanswered, then it fails
    INFO("failed " << (pipe.now() - cut_at).count() << " ns after the cut; " << r.message);
    CHECK(pipe.now() - cut_at <= cfg().resend_timeout * (cfg().max_attempts + 1) + pipe.latency);
}

TEST_CASE("LinkClient: a hub that answers in the CRC-16 frames of link versions 1-3 is named", "[link][client]") {
    FakePipe pipe;
    FakeHub hub;
    pipe.hub = &hub;
    pipe.v3 = true;
    LinkClient c(pipe, "sim:test", cfg());
    try {
        c.read(0, 0x10, 1);
        FAIL("no LinkError");
    } catch (const LinkError& e) {
        const std::string m = e.what();
        INFO(m);
        CHECK(m.find("CRC-16 format of link versions 1-3") != std::string::npos);
        CHECK(m.find("rebuild and load it") != std::string::npos);
    }
    CHECK(c.rx_stats().legacy >= 1);
    CHECK(c.rx_stats().frames_ok == 0);
    // and the same hub in this version's frames is fine
    pipe.v3 = false;
    LinkClient ok(pipe, "sim:test", cfg());
    CHECK(ok.rx_stats().legacy == 0);
    CHECK(ok.hello(0).version == D::VERSION);
}

TEST_CASE("LinkClient: a hub of another protocol version is refused", "[link][client]") {
    FakePipe pipe;
    FakeHub hub;
    hub.version = D::VERSION + 1;
    pipe.hub = &hub;
    LinkClient c(pipe, "sim:test", cfg());
    try {
        c.read(0, 0x10, 1);
        FAIL("no DeviceError");
    } catch (const DeviceError& e) {
        CHECK(std::string(e.what()).find("version") != std::string::npos);
    }
}
