// serial: end to end.  The aggnet CLI (a separate process) opens
// serial:/dev/pts/N@3000000?pe=0 -- a pseudo-terminal whose other side is
// bridged, byte for byte, to the link port of a Verilated aggnet_hub -- and
// runs PAPERS barriers with PE1, a PE cabled to the hub's pins that the test
// drives as a PC port would (seed 000 section 4.3.2).  So the whole path is
// checked: device string, SerialPipe (termios2 on a pty), LinkClient,
// LinkPapersPort, the link RTL, the PAPERS window and papers_hub.
#include "hub_rtl.hpp"
#include "pty.hpp"
#include "vhub_process.hpp"

#include <aggnet/papers_regs.hpp>
#include <catch2/catch.hpp>

#include <atomic>
#include <deque>
#include <thread>

#ifndef AGGNET_CLI_EXE
#error "AGGNET_CLI_EXE: path of the aggnet CLI"
#endif

using namespace aggnet;
using aggnet::test::Pty;
using aggnet::test::run_program;
using aggnet::test::Run;
using Catch::Matchers::Contains;
namespace R = aggnet::papers_regs;

namespace {

/// The hub on the far end of the cable, and PE1 on its pins.
struct Bridge {
    Pty& pty;
    std::unique_ptr<sim::HubModel> hm = sim::make_hub_rtl(4, "serial_hub_n4");
    sim::HubModel& h = *hm;
    std::atomic<bool> stop{false};
    std::atomic<unsigned> pe1_barriers{0};
    std::thread th;
    explicit Bridge(Pty& p) : pty(p) {
        h.reset();
        th = std::thread([this] { run(); });
    }
    ~Bridge() {
        stop = true;
        th.join();
    }
    void pins(unsigned pe, reg_t v) { h.set_data(pe, v); }
    bool go(unsigned pe) { return h.go(pe); }
    void run() {
        std::deque<uint8_t> rx;
        std::vector<uint8_t> tx;
        // PE1: mask {PE0, PE1}; PE2 and PE3 alone (never in anybody's way).
        const reg_t m1 = reg_t(0x3) << R::DATA_B0;
        pins(1, m1);
        pins(2, reg_t(0x4) << R::DATA_B0);
        pins(3, reg_t(0x8) << R::DATA_B0);
        enum { Raise, WaitGo, Drop, WaitReset } st = Raise;
        while (!stop) {
            uint8_t b[256];
            const ssize_t r = ::read(pty.master, b, sizeof b);
            if (r > 0) rx.insert(rx.end(), b, b + r);
            for (int i = 0; i < 256; ++i) {
                h.rx(false, 0);
                if (!rx.empty() && h.cycle() % 4 == 0) {
                    h.rx(true, rx.front());
                    rx.pop_front();
                }
                if (h.tx_valid()) tx.push_back(h.tx_data());
                h.tick();
                // _p_wait() on PE1's pins.
                switch (st) {
                case Raise: pins(1, m1 | (reg_t(1) << R::DATA_S)); st = WaitGo; break;
                case WaitGo: if (go(1)) st = Drop; break;
                case Drop: pins(1, m1); ++pe1_barriers; st = WaitReset; break;
                case WaitReset: if (!go(1)) st = Raise; break;
                }
            }
            if (!tx.empty()) {
                pty.write_all(tx.data(), tx.size());
                tx.clear();
            }
            if (r <= 0 && rx.empty()) std::this_thread::sleep_for(std::chrono::microseconds(50));
        }
    }
};

}  // namespace

TEST_CASE("serial: the CLI barriers over a pty with a PE cabled to the hub's pins", "[serial][link][cli]") {
    Pty pty;
    Bridge bridge(pty);
    const std::string dev = "serial:" + pty.path + "@3000000?pe=0";
    Run r = run_program({AGGNET_CLI_EXE, "probe", dev});
    INFO(r.out);
    CHECK(r.status == 0);
    CHECK_THAT(r.out, Contains("link, PE0 of 4") && Contains("48 MHz"));
    CHECK_THAT(r.out, Contains("serves PE0..PE3") && Contains("window 1 (map hash 0x") &&
                          Contains("CRC_ERR 0"));
    const unsigned before = bridge.pe1_barriers;
    r = run_program({AGGNET_CLI_EXE, "barrier", dev, "--mask", "0x3", "--count", "40", "--timeout-ms", "5000"});
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
