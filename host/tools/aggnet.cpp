// aggnet: command-line tool for a hub port.  Same library, same code path,
// whether DEVICE is the virtual hub or a board.
//
//   aggnet probe DEVICE
//   aggnet barrier DEVICE [--mask M] [--count C] [--timeout-ms T]
//   aggnet waitvec DEVICE --bit 0|1 [--mask M] [--timeout-ms T]
//   aggnet sim-quit DEVICE          (virtual hub only: stop aggnet-sim)
//
// Exit codes: 0 ok, 1 runtime error (the message says what), 2 usage error.
#include <aggnet/cli.hpp>
#include <aggnet/device.hpp>
#include <aggnet/papers.hpp>
#include <aggnet/link_defs.hpp>
#include <aggnet/link_papers.hpp>
#include <aggnet/papers_device.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace aggnet;

namespace {

using Usage = cli::UsageError;

const char* kTop =
    "usage: aggnet COMMAND DEVICE [options]\n"
    "commands:\n"
    "  probe DEVICE       describe the hub and our port: PEs, our PE, GO/INT/I bits, arrived PEs;\n"
    "                     over the link also its engines, clock, map hashes and link statistics\n"
    "  barrier DEVICE     run barriers and report the round-trip distribution\n"
    "  waitvec DEVICE     one p_waitvec() exchange; prints the vector\n"
    "  sim-quit DEVICE    ask a virtual hub (aggnet-sim) to shut down\n"
    "DEVICE: sim:DIR/peK | ppdev:/dev/parportN?pe=K[&n=N] | serial:/dev/ttyUSBn@BAUD[?pe=K] (the link)\n"
    "'aggnet COMMAND --help' describes a command.  Exit: 0 ok, 1 error, 2 usage.\n";

const char* kProbe =
    "usage: aggnet probe DEVICE\n"
    "  Opens DEVICE, attaches as PAPERS (control CE|U0, mask = ourselves) and prints the hub's\n"
    "  size, our PE, the status register's GO, INT and I bits, and which PEs have arrived\n"
    "  (S high with a mask naming us).\n";
const char* kBarrier =
    "usage: aggnet barrier DEVICE [--mask M] [--count C] [--timeout-ms T]\n"
    "  Runs C (default 1000) barriers over mask M (default: all PEs; hex 0x.., decimal, or 'all')\n"
    "  and prints min / median / p99 / max round trip per barrier in microseconds and the port\n"
    "  accesses per barrier.  Every PE of M must run the same command.  T: per-wait timeout\n"
    "  (default 10000 ms); on expiry the error names the PEs that had not arrived.\n";
const char* kWaitvec =
    "usage: aggnet waitvec DEVICE --bit 0|1 [--mask M] [--timeout-ms T]\n"
    "  One p_waitvec(): sends BIT, prints the vector (PE k at bit k; 0 outside M).\n";
const char* kQuit =
    "usage: aggnet sim-quit DEVICE\n"
    "  Virtual hub only: connects to a free port of aggnet-sim and asks it to shut down.\n";

constexpr uint64_t kMaxCount = 10000000;       ///< --count: ten million barriers
constexpr uint64_t kMaxTimeoutMs = 86400000;   ///< --timeout-ms: one day

struct Args {
    std::string device;
    bool has_mask = false;
    uint64_t mask = 0;
    uint64_t count = 1000;
    uint64_t timeout_ms = 10000;
    int bit = -1;
    bool help = false;
};

Args parse(int argc, char** argv, bool mask_ok, bool count_ok, bool bit_ok) {
    Args a;
    bool seen_mask = false, seen_count = false, seen_timeout = false;
    for (int i = 2; i < argc; ++i) {
        const std::string s = argv[i];
        auto val = [&]() -> std::string {
            if (i + 1 >= argc) throw Usage(s + " needs a value");
            return argv[++i];
        };
        if (s == "--help" || s == "-h") a.help = true;
        else if (s == "--mask" && mask_ok) {
            const std::string v = val();
            a.has_mask = true;
            if (seen_mask) throw Usage("--mask is given twice");
            seen_mask = true;
            a.mask = v == "all" ? 0 : cli::number(s, v, 1, UINT64_MAX);
            if (v == "all") a.has_mask = false;
        } else if (s == "--count" && count_ok) {
            if (seen_count) throw Usage("--count is given twice");
            seen_count = true;
            a.count = cli::number(s, val(), 1, kMaxCount);
        } else if (s == "--timeout-ms" && (count_ok || bit_ok)) {
            if (seen_timeout) throw Usage("--timeout-ms is given twice");
            seen_timeout = true;
            a.timeout_ms = cli::number(s, val(), 1, kMaxTimeoutMs);
        } else if (s == "--bit" && bit_ok) {
            const std::string v = val();
            if (v != "0" && v != "1") throw Usage("--bit wants 0 or 1, not '" + v + "'");
            a.bit = v == "1";
        } else if (!s.empty() && s[0] == '-') throw Usage("unknown option '" + s + "'");
        else if (a.device.empty()) a.device = s;
        else throw Usage("unexpected argument '" + s + "'");
    }
    if (!a.help && a.device.empty()) throw Usage("missing DEVICE");
    // The device string is checked here, before anything touches a hub.
    if (!a.help) {
        try {
            parse_device(a.device);
        } catch (const DeviceSyntaxError& e) {
            throw Usage(e.what());
        }
    }
    return a;
}

std::string bits(uint64_t v, unsigned n) {
    std::string s;
    for (unsigned k = n; k-- > 0;) s += (v >> k & 1) ? '1' : '0';
    return s;
}

std::string hex(uint64_t v) {
    char b[24];
    std::snprintf(b, sizeof b, "0x%llx", (unsigned long long)v);
    return b;
}

int probe(const Args& a) {
    auto t = open_papers_port(a.device);
    std::printf("device:   %s\n", t->describe().c_str());
    Papers p(*t);
    std::printf("hub:      %u PEs; we are PE%u\n", p.pes(), p.pe());
    const auto st = p.status();
    std::printf("status:   GO=%d INT=%d I (others' D, PE k at bit k)=%s\n", st.go, st.intr, bits(st.vec, p.pes()).c_str());
    const uint64_t arr = p.arrived();
    std::printf("arrived:  %s (S high, mask naming PE%u)\n", arr ? pe_list(arr).c_str() : "none", p.pe());
    if (LinkPapersPort* l = link_of(*t)) {
        // The link's HELLO and the hub's INFO window (docs/link.md).
        const auto& h = l->hello();
        auto& c = l->client();
        const unsigned pe = p.pe();
        auto info = [&](uint16_t reg) { return c.read(pe, uint16_t(link_defs::WIN_INFO << 12 | reg), 4); };
        std::printf("link:     protocol %u; this port serves PE%u..PE%u; hub clock %.2f MHz\n", h.version, h.first_pe,
                    h.first_pe + h.port_pes - 1, double(h.clk_hz) / 1e6);
        std::printf("engines: ");
        for (unsigned w = 0; w < 16; ++w)
            if (h.engines >> w & 1) std::printf(" window %u (map hash 0x%08x)", w, info(uint16_t(link_defs::INFO_MAP_HASH + w)));
        std::printf("\n");
        std::printf("link statistics:");
        for (unsigned i = 0; i < link_defs::STAT_COUNT; ++i)
            std::printf(" %s %u", link_defs::stat_name(i), info(uint16_t(link_defs::INFO_STAT + i)));
        std::printf("\n");
    }
    if (auto* s = dynamic_cast<SimTransport*>(transport_of(*t)))
        std::printf("hub clock: cycle %llu, %llu cycles per register access\n", (unsigned long long)s->hub_cycle(),
                    (unsigned long long)s->cycles_per_access());
    return 0;
}

int barrier(const Args& a) {
    auto t = open_papers_port(a.device);
    Papers p(*t);
    const uint64_t mask = a.has_mask ? a.mask : p.all_mask();
    const auto to = std::chrono::milliseconds(a.timeout_ms);
    p.enqueue(mask, to);
    auto* sim = dynamic_cast<SimTransport*>(transport_of(*t));
    std::vector<double> us;
    us.reserve(a.count);
    const uint64_t acc0 = p.port().accesses();
    const uint64_t cyc0 = sim ? sim->hub_cycle() : 0;
    for (uint64_t i = 0; i < a.count; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        p.wait(to);
        const auto t1 = std::chrono::steady_clock::now();
        us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    }
    const uint64_t acc = p.port().accesses() - acc0;
    const uint64_t cyc = sim ? sim->hub_cycle() - cyc0 : 0;
    std::sort(us.begin(), us.end());
    auto pct = [&](double q) { return us[std::min(us.size() - 1, size_t(q * double(us.size() - 1) + 0.5))]; };
    std::printf("PE%u: %llu barriers over mask %s (%s)\n", p.pe(), (unsigned long long)a.count, hex(mask).c_str(),
                pe_list(mask).c_str());
    std::printf("round trip per barrier, us: min %.1f  median %.1f  p99 %.1f  max %.1f\n", us.front(), pct(0.5),
                pct(0.99), us.back());
    std::printf("port accesses per barrier: %.2f (this PE)\n", double(acc) / double(a.count));
    if (sim)
        std::printf("hub cycles per barrier: %.1f (%llu cycles per access)\n", double(cyc) / double(a.count),
                    (unsigned long long)sim->cycles_per_access());
    return 0;
}

int waitvec(const Args& a) {
    if (a.bit < 0) throw Usage("waitvec needs --bit 0|1");
    auto t = open_papers_port(a.device);
    Papers p(*t);
    const uint64_t mask = a.has_mask ? a.mask : p.all_mask();
    const auto to = std::chrono::milliseconds(a.timeout_ms);
    p.enqueue(mask, to);
    const uint64_t v = p.waitvec(a.bit == 1, to);
    std::printf("PE%u: waitvec(%d) over mask %s = %s (binary, PE%u..PE0: %s)\n", p.pe(), a.bit, hex(mask).c_str(),
                hex(v).c_str(), p.pes() - 1, bits(v, p.pes()).c_str());
    return 0;
}

int sim_quit(const Args& a) {
    auto t = open_device(a.device);
    auto* s = dynamic_cast<SimTransport*>(t.get());
    if (!s) throw Error("sim-quit: " + a.device + " is not a virtual hub port");
    const uint64_t c = s->hub_cycle();
    s->quit();
    std::printf("aggnet-sim asked to quit at hub cycle %llu\n", (unsigned long long)c);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "help")) {
        std::fputs(kTop, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    const std::string cmd = argv[1];
    const char* help = cmd == "probe" ? kProbe : cmd == "barrier" ? kBarrier : cmd == "waitvec" ? kWaitvec
                     : cmd == "sim-quit" ? kQuit : nullptr;
    if (!help) {
        std::fprintf(stderr, "aggnet: unknown command '%s'\n%s", cmd.c_str(), kTop);
        return 2;
    }
    try {
        const Args a = parse(argc, argv, cmd == "barrier" || cmd == "waitvec", cmd == "barrier", cmd == "waitvec");
        if (a.help) {
            std::fputs(help, stdout);
            return 0;
        }
        if (cmd == "probe") return probe(a);
        if (cmd == "barrier") return barrier(a);
        if (cmd == "waitvec") return waitvec(a);
        return sim_quit(a);
    } catch (const Usage& u) {
        std::fprintf(stderr, "aggnet %s: %s\n%s", cmd.c_str(), u.what(), help);
        return cli::kUsageExit;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "aggnet %s: %s\n", cmd.c_str(), e.what());
        return 1;
    }
}
