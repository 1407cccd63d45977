// aggnet: command-line tool for a hub port.  Same library, same code path,
// whether DEVICE is the virtual hub or a board.
//
//   aggnet probe DEVICE
//   aggnet papers barrier DEVICE [--mask M] [--count C] [--timeout-ms T]
//   aggnet papers waitvec DEVICE --bit 0|1 [--mask M] [--timeout-ms T]
// One subcommand group per engine (papers today); probe and sim are the hub's.
//   aggnet board-check DEVICE [--round-trips R] [--barriers B] [--timeout-ms T]
//   aggnet board-check --stream DEVICE [--stream DEVICE ...] [--usb DEVICE] [--round-trips R] [--timeout-ms T]
//   aggnet barr DEVICE [--key K] [--timeout-ms T]    (BESU engine, seed 001's diagnostic)
//   aggnet cop DEVICE OP[,OP...]|all|orders [--count C] [--pes P] [--key K] [--seed S] [--timeout-ms T]
//                                   (COP engine, seed 004: checked rounds, latency distribution;
//                                    orders: the exact double sum against SUMF over shuffled terms)
//   aggnet scalar ping|ring DEVICE [--count C] [--to P] [--timeout-ms T]
//                                   (scalar engine, seed 003: ping-pong latency, a token round the ring)
//   aggnet sim DIR status|cycle|hold|release|step K|trace FILE|trace off|cut|mend|quit
//                                   (virtual hub only: its control socket)
//
// Exit codes: 0 ok, 1 runtime error (the message says what), 2 usage error.
#include <aggnet/besu.hpp>
#include <aggnet/board_check.hpp>
#include <aggnet/cli.hpp>
#include <aggnet/cop.hpp>
#include <aggnet/device.hpp>
#include <aggnet/papers.hpp>
#include <aggnet/link_defs.hpp>
#include <aggnet/link_papers.hpp>
#include <aggnet/papers_device.hpp>
#include <aggnet/scalar.hpp>
#include <aggnet/sim_control.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
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
    "  papers barrier DEVICE   PAPERS (seed 000): run barriers and report the round-trip distribution\n"
    "  papers waitvec DEVICE   PAPERS: one p_waitvec() exchange; prints the vector\n"
    "  board-check DEVICE after flashing: HELLO, map hashes, a link loopback with error counts, a\n"
    "                     barrier and a waitvec with every PE; on ppdev: every DB25 pin. PASS/FAIL lines\n"
    "  board-check --stream DEVICE ... [--usb DEVICE]   every stream of a board with a UART per PE:\n"
    "                     which PE answers on which pins, a loopback, the stream's error counters\n"
    "  barr DEVICE        BESU (seed 001): the offline diagnostic: every BESU's registers, every mesh\n"
    "                     link, every BESU over all nodes; names the failing node, link or BESU\n"
    "  cop DEVICE OP      COP (seed 004): run OP (barrier, sum, max, min, or, and, xor, scan, bcast,\n"
    "                     fetch-add, exsum, or all) C times with every PE of the port, checked; p50/p99\n"
    "  scalar ping DEVICE scalar messages (seed 003): ping-pong between two PEs, round trip p50/p90/p99\n"
    "  scalar ring DEVICE scalar messages: a token passed round every PE, then a wildcard receive\n"
    "  sim DIR CMD        control a virtual hub (aggnet-sim) through DIR/control: status, cycle,\n"
    "                     hold, release, step K, trace FILE, trace off, cut, mend, quit\n"
    "DEVICE: sim:DIR/peK | sim:DIR/link?pe=K | serial:/dev/ttyUSBn@BAUD[?pe=K] (the link)\n"
    "        | ppdev:/dev/parportN?pe=K[&n=N] (a PC parallel port)\n"
    "'aggnet COMMAND --help' describes a command.  Exit: 0 ok, 1 error, 2 usage.\n";

const char* kProbe =
    "usage: aggnet probe DEVICE\n"
    "  Opens DEVICE, attaches as PAPERS (control CE|U0, mask = ourselves) and prints the hub's\n"
    "  size, our PE, the status register's GO, INT and I bits, and which PEs have arrived\n"
    "  (S high with a mask naming us).\n";
const char* kBarrier =
    "usage: aggnet papers barrier DEVICE [--mask M] [--count C] [--timeout-ms T]\n"
    "  Runs C (default 1000) barriers over mask M (default: all PEs; hex 0x.., decimal, or 'all')\n"
    "  and prints min / median / p99 / max round trip per barrier in microseconds and the port\n"
    "  accesses per barrier.  Every PE of M must run the same command.  T: per-wait timeout\n"
    "  (default 10000 ms); on expiry the error names the PEs that had not arrived.\n";
const char* kWaitvec =
    "usage: aggnet papers waitvec DEVICE --bit 0|1 [--mask M] [--timeout-ms T]\n"
    "  One p_waitvec(): sends BIT, prints the vector (PE k at bit k; 0 outside M).\n";
const char* kCheck =
    "usage: aggnet board-check DEVICE [--round-trips R] [--barriers B] [--timeout-ms T]\n"
    "  What to run after flashing a board: one line per check, PASS, FAIL or SKIP, with numbers.\n"
    "  Over the link (serial:, sim:): hello (protocol, PEs, engines, clock), map hashes (against this\n"
    "  libaggnet's), loopback (R, default 200, writes of a pattern into our PE's PAPERS MASK0 and\n"
    "  read-backs: wrong values, round-trip median/p99/max, resends, stale replies, the hub's link\n"
    "  statistics), barrier (B, default 10, with every PE: one program acts as every PE on a shared\n"
    "  link such as a board's USB UART; skipped on a port that serves one PE), waitvec, restore (the\n"
    "  PAPERS registers touched are written back).  On ppdev: one PE's pins with a mask of only\n"
    "  ourselves (S -> GO, IR -> INT, GI, each mask bit), one line per DB25 pin; a broken pin is\n"
    "  named with how it is stuck.  Run it on an idle hub.  Every step ends within T ms (default\n"
    "  10000).  Exit 0: every check passed (skips allowed); 1: a check failed; 2: usage.\n"
    "\n"
    "usage: aggnet board-check --stream DEVICE [--stream DEVICE ...] [--usb DEVICE] [--round-trips R]\n"
    "                          [--timeout-ms T]\n"
    "  A board with a UART per PE (the *_uart configurations, docs/link_mux.md): one link device per\n"
    "  stream, e.g. --stream serial:/dev/serial/by-id/usb-FTDI_..._A1-if00-port0@3000000?pe=1 for the\n"
    "  cable on PE 1's header pins (header stream k speaks for PE k), and --usb for the board's USB\n"
    "  UART (any PE).  Checked one stream after the other: streams (INFO MUX_STREAMS: the hub has a\n"
    "  multiplexer, each stream exists and is given its own PE), map hashes, and per stream: hello,\n"
    "  pins (its frames step that stream's FRAMES counter, no other's: else the cable is on another\n"
    "  stream's pins), loopback (R, default 200, as above), present (INFO MUX_ABSENT), counters\n"
    "  (FRAMES steps by the frames sent; BIND, OVERRUN, TXDROP, PARTIAL and the link port's error\n"
    "  counters do not step).  A stream that does not answer is traced through one that does:\n"
    "  BIND on stream m (its frames refused there: the cable is on stream m's pins, or pe= is\n"
    "  wrong), FRAMES without a reply (the hub's TX wire), PARTIAL (a wrong baud), or nothing on any\n"
    "  stream (unplugged, RX/TX swapped).  Exit as above.\n";
const char* kBarr =
    "usage: aggnet barr DEVICE [--key K] [--timeout-ms T]\n"
    "  Seed 001's offline diagnostic `barr` for the hub's BESU engine (docs/besu.md).  Acting as\n"
    "  every node's PE over one shared link (sim:DIR/link, or a board's USB UART), in supervisor\n"
    "  mode (K: the hub's BESU_KEY, default 0x53455550): per node, writes and reads back every\n"
    "  BESU's BAR_CFG and BAR_CTL; per mesh link, a two-node partition on BESU 0 (a barrier up and\n"
    "  back, a eureka each way); per BESU, a barrier and a eureka over every node.  One ok/FAIL\n"
    "  line each; a FAIL names the node, link or BESU and what its router still waits for.  Leaves\n"
    "  every BESU unconfigured and idle.  Run it on an idle hub (it rewrites BAR_CFG).  T: each\n"
    "  wait (default 1000 ms).  Exit 0: all ok; 1: a check failed; 2: usage.\n";
const char* kCop =
    "usage: aggnet cop DEVICE OP[,OP...]|all|orders [--count C] [--pes P] [--key K] [--seed S] [--timeout-ms T]\n"
    "  Hall's coordination processor (seed 004, docs/cop.md) in the hub's COP engine.  Acting as\n"
    "  PEs first..first+P-1 of the port (default: every PE it serves; a port for one PE, such as\n"
    "  sim:DIR/peK, gives P = 1), in supervisor mode with K (the hub's COP_KEY, default 0x434F5053)\n"
    "  sets the TC vector and broadcast mask of process 0's key 0 to those PEs, then runs OP C\n"
    "  times (default 1000) with every one of them at once: barrier, sum, max, min, or, and, xor\n"
    "  (64-bit), scan (inclusive prefix sum), bcast (root k mod P, the others receive), fetch-add\n"
    "  (tickets from Data RAM word 1: each round's must be the next P numbers), exsum (the exact\n"
    "  double sum; refused NOFPU, and said so, while the COP has no FPU), fscan (the prefix sum\n"
    "  of doubles), exscan (the exact prefix sum of doubles), or all of them.  orders instead\n"
    "  runs one SUMF and one EXSUMF round over the same P terms (large powers of two that\n"
    "  cancel, small quarters) assigned to the PEs in C orders (default 8), and prints each\n"
    "  order's two results: EXSUMF's bits must be the exact sum every time; SUMF's follow the\n"
    "  order.\n"
    "  Each result is checked against plain arithmetic over the round's contributions (drawn from\n"
    "  S, default 1).  Prints per OP the round time (first CALL sent to last result) min / p50 /\n"
    "  p99 / max in microseconds and the CALLs per PE per round.  Run it on a hub no other program\n"
    "  uses (it rewrites key 0's TC).  T: each CALL (default 10000 ms).  Exit 0: every result\n"
    "  right; 1: a wrong result or an error (named); 2: usage.\n";
const char* kScalar =
    "usage: aggnet scalar ping|ring DEVICE [--count C] [--to P] [--timeout-ms T]\n"
    "  Pai's scalar send/receive (seed 003 chapter 6, docs/scalar.md) in the hub's scalar engine, one\n"
    "  program acting as several PEs over the hub's shared link (sim:DIR/link, or a board's USB UART).\n"
    "    ping  C (default 1000) round trips between DEVICE's PE and PE P (default the next one): a\n"
    "          send there, a receive there, a send back, a receive back (4 CALLs), every value\n"
    "          checked; prints the round trip min / p50 / p90 / p99 / max in microseconds\n"
    "    ring  a token passed C times (default 10) round every PE of the port, each hop a send and\n"
    "          a typed receive from the previous PE; then every other PE sends its number to the\n"
    "          first (types differ) and the first takes them with a wildcard receive (any source,\n"
    "          any type), then by type, each checked\n"
    "  T: each send or receive (default 10000 ms); on expiry the error says what it waited for.\n"
    "  Exit 0: every value right; 1: a wrong value or an error (named); 2: usage.\n";
const char* kSim =
    "usage: aggnet sim DIR status|cycle|hold|release|step K|trace FILE|trace off|cut|mend|quit\n"
    "  Sends one command to the control socket DIR/control of the virtual hub aggnet-sim (DIR is\n"
    "  what it prints at start) and prints the answer:\n"
    "    status      the hub's cycle, held, PEs, engines, clock, queued bytes, clients, damaged frames\n"
    "    cycle       hub clock cycles since reset\n"
    "    hold        stop the hub clock (frames that arrive queue up); prints the cycle\n"
    "    release     let the clock run again whenever there is work; prints the cycle\n"
    "    step K      while held, run K (1..1000000000) cycles; prints the cycle after them\n"
    "    trace FILE  start an FST waveform in FILE; trace off stops it\n"
    "    cut, mend   drop every link frame both ways (a pulled cable) / stop doing so\n"
    "    quit        the sim exits and removes its sockets\n"
    "  Each command waits at most --timeout-ms T (default 10000) for the answer.\n";

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
        for (unsigned w = 1; w < 16; ++w)  // window 0 is the hub's own INFO
            if (h.engines >> w & 1) {
                bool ok = true;
                std::printf(" [window %u: %s]", w,
                            board_check::engine_hash(w, info(uint16_t(link_defs::INFO_MAP_HASH + w)), ok).c_str());
            }
        std::printf("\n");
        std::printf("link statistics:");
        for (unsigned i = 0; i < link_defs::STAT_COUNT; ++i)
            std::printf(" %s %u", link_defs::stat_name(i), info(uint16_t(link_defs::INFO_STAT + i)));
        std::printf("\n");
    }
    return 0;
}

int barrier(const Args& a) {
    auto t = open_papers_port(a.device);
    Papers p(*t);
    const uint64_t mask = a.has_mask ? a.mask : p.all_mask();
    const auto to = std::chrono::milliseconds(a.timeout_ms);
    p.enqueue(mask, to);
    // The virtual hub tells its clock through its control socket.
    const std::string dir = sim_dir_of(a.device);
    std::unique_ptr<SimControl> sim = dir.empty() ? nullptr : std::make_unique<SimControl>(dir);
    std::vector<double> us;
    us.reserve(a.count);
    const uint64_t acc0 = p.port().accesses();
    const uint64_t cyc0 = sim ? sim->cycle() : 0;
    for (uint64_t i = 0; i < a.count; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        p.wait(to);
        const auto t1 = std::chrono::steady_clock::now();
        us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    }
    const uint64_t acc = p.port().accesses() - acc0;
    const uint64_t cyc = sim ? sim->cycle() - cyc0 : 0;
    std::sort(us.begin(), us.end());
    auto pct = [&](double q) { return us[std::min(us.size() - 1, size_t(q * double(us.size() - 1) + 0.5))]; };
    std::printf("PE%u: %llu barriers over mask %s (%s)\n", p.pe(), (unsigned long long)a.count, hex(mask).c_str(),
                pe_list(mask).c_str());
    std::printf("round trip per barrier, us: min %.1f  median %.1f  p99 %.1f  max %.1f\n", us.front(), pct(0.5),
                pct(0.99), us.back());
    std::printf("port accesses per barrier: %.2f (this PE)\n", double(acc) / double(a.count));
    if (sim)
        std::printf("hub cycles per barrier: %.1f (the hub's clock, all PEs' traffic included)\n",
                    double(cyc) / double(a.count));
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

/// `board-check --stream DEVICE ... [--usb DEVICE]`: every stream of a
/// board with a UART per PE, one device each.
bool board_check_streams(const std::vector<std::string>& header, const std::string& usb,
                        const board_check::Options& o, const board_check::Sink& print) {
    std::vector<LinkConnection> open;
    std::vector<board_check::Stream> streams;
    bool ok = true;
    auto add = [&](const std::string& dev, unsigned stream) {
        try {
            open.push_back(open_link(dev, o.step_timeout));
        } catch (const Error& e) {
            print({board_check::Verdict::fail, "open", e.what()});
            ok = false;
            return;
        }
        streams.push_back({*open.back().client, stream, open.back().pe});
    };
    open.reserve(header.size() + 1);  // the Streams refer to the clients
    for (const auto& d : header) add(d, board_check::Stream::header);
    if (!usb.empty()) add(usb, board_check::Stream::usb);
    if (!streams.empty()) ok = board_check::check_streams(streams, o, print) && ok;
    return ok;
}

int board_check_cmd(int argc, char** argv) {
    board_check::Options o;
    std::string device, usb;
    std::vector<std::string> header;
    bool seen_rt = false, seen_b = false, seen_t = false, seen_usb = false;
    for (int i = 2; i < argc; ++i) {
        const std::string s = argv[i];
        auto val = [&](bool& seen) -> std::string {
            if (seen) throw Usage(s + " is given twice");
            seen = true;
            if (i + 1 >= argc) throw Usage(s + " needs a value");
            return argv[++i];
        };
        if (s == "--round-trips") o.round_trips = unsigned(cli::number(s, val(seen_rt), 1, 1000000));
        else if (s == "--barriers") o.barriers = unsigned(cli::number(s, val(seen_b), 1, 1000000));
        else if (s == "--timeout-ms") o.step_timeout = std::chrono::milliseconds(cli::number(s, val(seen_t), 1, kMaxTimeoutMs));
        else if (s == "--stream") {
            bool once = false;  // --stream may be repeated
            header.push_back(val(once));
        } else if (s == "--usb") usb = val(seen_usb);
        else if (!s.empty() && s[0] == '-') throw Usage("unknown option '" + s + "'");
        else if (device.empty()) device = s;
        else throw Usage("unexpected argument '" + s + "'");
    }
    const bool streams = !header.empty() || seen_usb;
    if (streams && !device.empty())
        throw Usage("give DEVICE, or the board's streams with --stream/--usb, not both");
    if (streams && seen_b) throw Usage("--barriers is for one DEVICE: the stream checks run no barrier");
    if (!streams && device.empty()) throw Usage("missing DEVICE (or --stream DEVICE ...)");
    std::vector<std::string> all = header;
    if (seen_usb) all.push_back(usb);
    if (!streams) all.push_back(device);
    DeviceSpec d;
    for (const auto& dev : all) {
        try {
            d = parse_device(dev);
        } catch (const DeviceSyntaxError& e) {
            throw Usage(e.what());
        }
        if (streams && d.kind == DeviceSpec::Ppdev)
            throw Usage("a stream is a link device (serial:, sim:), not '" + dev + "'");
    }
    std::string list;
    for (const auto& dev : all) list += " " + dev;
    std::printf("board-check%s%s\n", streams ? " streams:" : "", list.c_str());
    const board_check::Sink print = [](const board_check::Check& c) {
        std::printf("%s\n", board_check::format(c).c_str());
        std::fflush(stdout);
    };
    bool ok;
    if (streams) {
        ok = board_check_streams(header, usb, o, print);
    } else if (d.kind == DeviceSpec::Ppdev) {
        std::unique_ptr<Transport> t;
        try {
            t = open_device(device);
        } catch (const DeviceError& e) {
            print({board_check::Verdict::fail, "open", e.what()});
            return 1;
        }
        LptPort port(*t);
        ok = board_check::check_pins(port, o, print);
    } else {
        ok = board_check::check_link(device, o, print);
    }
    std::printf("%s\n", ok ? "board-check: every check passed" : "board-check: FAILED (see the FAIL lines)");
    return ok ? 0 : 1;
}

/// The value after option argv[i] (i moves past it); `seen` refuses the option twice.
std::string option_value(int argc, char** argv, int& i, bool& seen) {
    const std::string s = argv[i];
    if (seen) throw Usage(s + " is given twice");
    if (i + 1 >= argc) throw Usage(s + " needs a value");
    seen = true;
    return argv[++i];
}

/// The link behind DEVICE, said HELLO to; `missing` if the hub has no engine in `window`.
LinkConnection open_engine_link(const std::string& device, std::chrono::nanoseconds t, unsigned window,
                                const char* missing, link::HelloInfo& hi) {
    LinkConnection lc;
    try {
        lc = open_link(device, std::max<std::chrono::nanoseconds>(t, std::chrono::milliseconds(1000)));
    } catch (const DeviceSyntaxError& e) {
        throw Usage(e.what());
    }
    hi = lc.client->hello(lc.pe);
    if (!(hi.engines >> window & 1)) throw Error(device + ": " + missing);
    return lc;
}

int barr_cmd(int argc, char** argv) {
    std::string device;
    uint32_t key = besu::regs::DEFAULT_KEY;
    uint64_t timeout_ms = 1000;
    bool seen_key = false, seen_t = false;
    for (int i = 2; i < argc; ++i) {
        const std::string s = argv[i];
        auto val = [&](bool& seen) { return option_value(argc, argv, i, seen); };
        if (s == "--key") key = uint32_t(cli::number(s, val(seen_key), 1, 0xffffffffu));
        else if (s == "--timeout-ms") timeout_ms = cli::number(s, val(seen_t), 1, kMaxTimeoutMs);
        else if (!s.empty() && s[0] == '-') throw Usage("unknown option '" + s + "'");
        else if (device.empty()) device = s;
        else throw Usage("unexpected argument '" + s + "'");
    }
    if (device.empty()) throw Usage("missing DEVICE");
    const auto t = std::chrono::milliseconds(timeout_ms);
    link::HelloInfo hi;
    LinkConnection lc = open_engine_link(device, t, link_defs::WIN_BESU, "the hub has no BESU engine (built without EN_BESU)", hi);
    besu::Node first(*lc.client, lc.pe, t);
    const besu::Mesh m = first.mesh();
    const std::string need = ", barr needs every node's PE 0.." + std::to_string(m.nodes() - 1) +
                             ": use the hub's shared link (sim:DIR/link, or the board's USB UART)";
    if (hi.first_pe != 0 || hi.port_pes < m.nodes())
        throw Error(device + ": this link serves PEs " + std::to_string(hi.first_pe) + ".." +
                    std::to_string(hi.first_pe + hi.port_pes - 1) + need);
    // A per-PE socket or pty (aggnet-sim's DIR/peK) passes only its own PE's frames though
    // HELLO names the port behind it: another PE's HELLO goes unanswered while ours answers.
    for (unsigned p = 0; p < m.nodes(); ++p) {
        if (p == lc.pe) continue;
        try {
            lc.client->hello(p);
        } catch (const LinkError&) {
            lc.client->hello(lc.pe);  // throws if the link itself is down
            throw Error(device + ": this port carries PE" + std::to_string(lc.pe) + " only (PE" + std::to_string(p) +
                        " does not answer on it)" + need);
        }
    }
    std::vector<std::unique_ptr<besu::Node>> own;
    std::vector<besu::Node*> nodes;
    for (unsigned i = 0; i < m.nodes(); ++i) {
        own.push_back(std::make_unique<besu::Node>(*lc.client, i, t));
        nodes.push_back(own.back().get());
    }
    std::printf("barr %s: %ux%ux%u mesh, %u BESUs per node\n", device.c_str(), m.X, m.Y, m.Z, first.besus());
    const besu::BarrReport r = besu::barr(nodes, key, t);
    for (const auto& l : r.lines) std::printf("%s\n", l.c_str());
    std::printf("barr: %u checks, %zu failed: %s\n", r.checks, r.failures.size(),
                r.ok() ? "every check passed" : "FAILED (see the FAIL lines)");
    return r.ok() ? 0 : 1;
}

uint64_t bits_of(double d) {
    uint64_t u;
    std::memcpy(&u, &d, sizeof u);
    return u;
}
std::string strf_g(double d) {
    char b[32];
    std::snprintf(b, sizeof b, "%g", d);
    return b;
}

int cop_cmd(int argc, char** argv) {
    std::string device, op;
    uint32_t key = cop::DEFAULT_KEY;
    uint64_t timeout_ms = 10000, count = 1000, pes = 0, seed = 1;
    bool seen_key = false, seen_t = false, seen_c = false, seen_p = false, seen_s = false;
    for (int i = 2; i < argc; ++i) {
        const std::string s = argv[i];
        auto val = [&](bool& seen) { return option_value(argc, argv, i, seen); };
        if (s == "--key") key = uint32_t(cli::number(s, val(seen_key), 1, 0xffffffffu));
        else if (s == "--timeout-ms") timeout_ms = cli::number(s, val(seen_t), 1, kMaxTimeoutMs);
        else if (s == "--count") count = cli::number(s, val(seen_c), 1, 100000000);
        else if (s == "--pes") pes = cli::number(s, val(seen_p), 1, 64);
        else if (s == "--seed") seed = cli::number(s, val(seen_s), 0, UINT64_MAX);
        else if (!s.empty() && s[0] == '-') throw Usage("unknown option '" + s + "'");
        else if (device.empty()) device = s;
        else if (op.empty()) op = s;
        else throw Usage("unexpected argument '" + s + "'");
    }
    if (device.empty()) throw Usage("missing DEVICE");
    if (op.empty()) throw Usage("missing OP");
    std::vector<std::string> ops;  // OP, a comma-separated list of them, or all
    const bool orders = op == "orders";
    if (orders && !seen_c) count = 8;
    for (size_t a = 0; !orders && a <= op.size();) {
        const size_t b = std::min(op.find(',', a), op.size());
        const std::string one = op.substr(a, b - a);
        bool found = false;
        for (const char* o : cop::kRoundOps)
            if (one == "all" || one == o) ops.push_back(o), found = true;
        if (!found) throw Usage("no COP operation '" + one + "'");
        a = b + 1;
    }
    const auto t = std::chrono::milliseconds(timeout_ms);
    link::HelloInfo hi;
    LinkConnection lc = open_engine_link(device, t, link_defs::WIN_COP,
                                         "the hub has no COP engine (built without EN_COP; aggnet-sim --engines cop)", hi);
    // a port for one PE (a per-PE socket or pty) answers only its own PE's HELLO
    unsigned first = lc.pe, n = 1;
    if (!pes || pes > 1) {
        const unsigned want = pes ? unsigned(pes) : hi.port_pes;
        bool shared = hi.port_pes > 1;
        for (unsigned p = hi.first_pe; shared && p < hi.first_pe + want; ++p) {
            if (p == lc.pe) continue;
            try {
                lc.client->hello(p);
            } catch (const LinkError&) {
                lc.client->hello(lc.pe);
                shared = false;
            }
        }
        if (shared) first = hi.first_pe, n = want;
        else if (pes > 1)
            throw Error(device + ": this port carries PE" + std::to_string(lc.pe) +
                        " only: --pes > 1 needs the hub's shared link (sim:DIR/link, or the board's USB UART)");
        if (want > hi.port_pes) throw Error(device + ": this link serves " + std::to_string(hi.port_pes) + " PEs");
    }
    std::vector<std::unique_ptr<cop::Channel>> own;
    std::vector<cop::Channel*> chans;
    for (unsigned p = first; p < first + n; ++p) {
        own.push_back(std::make_unique<cop::Channel>(*lc.client, p, t));
        chans.push_back(own.back().get());
    }
    const uint64_t set = (n >= 64 ? ~uint64_t(0) : ((uint64_t(1) << n) - 1)) << first;
    {
        cop::Supervisor s(*chans[0], key);
        s.set_tc(0, set);
        s.set_bm(0, set);
    }
    std::printf("cop %s: PEs %u..%u of %u, %u channels, %s\n", device.c_str(), first, first + n - 1, hi.hub_pes,
                chans[0]->channels(), chans[0]->has_fpu() ? "FPU" : "no FPU (the double ops are refused NOFPU)");
    if (orders) {
        const cop::Orders o = cop::exact_orders(chans, unsigned(count), seed);
        std::printf("the same %u terms on PEs %u..%u in %zu orders (shuffled with --seed %llu); their exact sum %.17g "
                    "(0x%016llx)\n", n, first, first + n - 1, o.rows.size(), (unsigned long long)seed, o.exact,
                    (unsigned long long)bits_of(o.exact));
        std::printf("%-5s %-22s %-22s  %s\n", "order", "SUMF (channel order)", "EXSUMF (exact)", "terms by PE");
        for (size_t k = 0; k < o.rows.size(); ++k) {
            std::string t;
            for (double x : o.rows[k].terms) t += strf_g(x) + " ";
            std::printf("%-5zu 0x%016llx     0x%016llx      %s\n", k, (unsigned long long)o.rows[k].sumf,
                        (unsigned long long)o.rows[k].exsumf, t.c_str());
        }
        std::printf("cop orders: EXSUMF gave the exact sum's bits in every order\n");
        return 0;
    }
    std::printf("%-10s %8s %10s %10s %10s %10s %10s  %s\n", "op", "rounds", "min us", "p50 us", "p99 us", "max us",
                "CALLs/PE", "last result");
    for (const auto& o : ops) {
        cop::Rounds r;
        try {
            r = cop::run_rounds(chans, o, unsigned(count), seed);
        } catch (const cop::CopError& e) {
            if (e.cause != cop::C_NOFPU) throw;
            std::printf("%-10s refused: the hub's COP has no FPU yet (NOFPU); the exact double sum joins when it lands\n",
                        o.c_str());
            continue;
        }
        std::printf("%-10s %8zu %10.1f %10.1f %10.1f %10.1f %10.2f  0x%llx\n", o.c_str(), r.us.size(),
                    r.percentile(0), r.percentile(0.5), r.percentile(0.99), r.percentile(1),
                    double(r.calls) / double(n * r.us.size()), (unsigned long long)r.last);
    }
    std::printf("cop: every result checked\n");
    return 0;
}

int scalar_cmd(int argc, char** argv) {
    // argv[2] is ping or ring
    if (argc < 3) throw Usage("missing ping or ring");
    const std::string what = argv[2];
    if (what != "ping" && what != "ring") throw Usage("no scalar command '" + what + "' (ping, ring)");
    std::string device;
    uint64_t timeout_ms = 10000, count = what == "ping" ? 1000 : 10, to = 64;
    bool seen_t = false, seen_c = false, seen_to = false;
    for (int i = 3; i < argc; ++i) {
        const std::string s = argv[i];
        auto val = [&](bool& seen) { return option_value(argc, argv, i, seen); };
        if (s == "--timeout-ms") timeout_ms = cli::number(s, val(seen_t), 1, kMaxTimeoutMs);
        else if (s == "--count") count = cli::number(s, val(seen_c), 1, kMaxCount);
        else if (s == "--to") to = cli::number(s, val(seen_to), 0, 63);
        else if (!s.empty() && s[0] == '-') throw Usage("unknown option '" + s + "'");
        else if (device.empty()) device = s;
        else throw Usage("unexpected argument '" + s + "'");
    }
    if (device.empty()) throw Usage("missing DEVICE");
    const auto t = std::chrono::milliseconds(timeout_ms);
    link::HelloInfo hi;
    LinkConnection lc = open_engine_link(
        device, t, link_defs::WIN_SCALAR,
        "the hub has no scalar engine (built without EN_SCALAR; aggnet-sim --engines scalar)", hi);
    scalar::Port first(*lc.client, lc.pe, t);
    // the PEs this port carries besides ours (a per-PE socket answers only its own PE's HELLO)
    std::vector<unsigned> pes{lc.pe};
    for (unsigned p = hi.first_pe; p < hi.first_pe + hi.port_pes && p < first.pes(); ++p) {
        if (p == lc.pe) continue;
        try {
            lc.client->hello(p);
            pes.push_back(p);
        } catch (const LinkError&) {
            lc.client->hello(lc.pe);
            break;
        }
    }
    if (pes.size() < 2)
        throw Error(device + ": this port carries PE" + std::to_string(lc.pe) +
                    " only: scalar " + what + " needs two PEs or more on the hub's shared link (sim:DIR/link, or the "
                    "board's USB UART)");
    std::vector<std::unique_ptr<scalar::Port>> own;
    auto port_of = [&](unsigned p) -> scalar::Port& {
        for (auto& o : own)
            if (o->pe() == p) return *o;
        own.push_back(std::make_unique<scalar::Port>(*lc.client, p, t));
        return *own.back();
    };
    std::printf("scalar %s: PE%u of %u, buffers of %u messages\n", device.c_str(), lc.pe, first.pes(), first.depth());
    if (what == "ping") {
        const unsigned peer = to < 64 ? unsigned(to) : pes[1];
        if (peer == lc.pe || std::find(pes.begin(), pes.end(), peer) == pes.end())
            throw Usage("--to " + std::to_string(peer) + " is not another PE of this port");
        const scalar::PingPong r = scalar::ping_pong(first, port_of(peer), unsigned(count));
        std::printf("ping PE%u <-> PE%u: %zu round trips, %.1f CALLs each; round trip us: min %.1f p50 %.1f p90 %.1f "
                    "p99 %.1f max %.1f\n",
                    lc.pe, peer, r.us.size(), double(r.calls) / double(r.us.size()), r.percentile(0),
                    r.percentile(0.5), r.percentile(0.9), r.percentile(0.99), r.percentile(1));
        std::printf("scalar ping: every value checked\n");
        return 0;
    }
    // ring: the token goes pes[0] -> pes[1] -> ... -> pes[0], C laps, +1 per hop
    const unsigned k = unsigned(pes.size());
    uint32_t token = 0;
    const auto t0 = std::chrono::steady_clock::now();
    for (unsigned lap = 0; lap < count; ++lap)
        for (unsigned i = 0; i < k; ++i) {
            scalar::Port& from = port_of(pes[i]);
            scalar::Port& next = port_of(pes[(i + 1) % k]);
            from.send(next.pe(), 1, token + 1);
            const scalar::Message m = next.recv(int(from.pe()), 1);
            if (m.value != token + 1 || m.source != from.pe())
                throw Error("ring: PE" + std::to_string(next.pe()) + " got token " + std::to_string(m.value) +
                            " from PE" + std::to_string(m.source) + ", want " + std::to_string(token + 1) +
                            " from PE" + std::to_string(from.pe()));
            token = m.value;
        }
    const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    std::printf("ring of %u PEs: token passed %u times round, %u hops, %.1f us per hop (a send and a receive)\n", k,
                unsigned(count), token, us / token);
    // wildcards: every other PE sends its number to the first, type 100 + its number
    for (unsigned i = 1; i < k; ++i) port_of(pes[i]).send(lc.pe, uint16_t(100 + pes[i]), pes[i]);
    const scalar::Message any = first.recv(scalar::Any, scalar::Any);
    if (any.source != pes[1] || any.value != pes[1])
        throw Error("wildcard: the oldest message is PE" + std::to_string(pes[1]) + "'s, got PE" +
                    std::to_string(any.source) + "'s");
    std::printf("wildcard receive (any source, any type): value %u type %u from PE%u (the oldest)\n", any.value,
                unsigned(any.type), any.source);
    for (unsigned i = k; i-- > 2;) {  // the rest by type, newest first: each match skips the older ones
        const scalar::Message m = first.recv(scalar::Any, int(100 + pes[i]));
        if (m.source != pes[i] || m.value != pes[i])
            throw Error("typed receive: type " + std::to_string(100 + pes[i]) + " gave PE" + std::to_string(m.source));
        std::printf("typed receive (any source, type %u): value %u from PE%u\n", 100 + pes[i], m.value, m.source);
    }
    if (auto rest = first.try_recv()) throw Error("ring: a message left over from PE" + std::to_string(rest->source));
    std::printf("scalar ring: every value checked\n");
    return 0;
}

int sim(int argc, char** argv) {
    std::vector<std::string> words;
    uint64_t timeout_ms = 10000;
    bool seen_timeout = false;
    for (int i = 2; i < argc; ++i) {
        const std::string s = argv[i];
        if (s == "--timeout-ms") {
            if (seen_timeout) throw Usage("--timeout-ms is given twice");
            if (i + 1 >= argc) throw Usage(s + " needs a value");
            seen_timeout = true;
            timeout_ms = cli::number(s, argv[++i], 1, kMaxTimeoutMs);
        } else if (!s.empty() && s[0] == '-') {
            throw Usage("unknown option '" + s + "'");
        } else {
            words.push_back(s);
        }
    }
    if (words.empty()) throw Usage("missing DIR (aggnet-sim prints it: 'aggnet-sim: N PEs at DIR')");
    if (words.size() < 2) throw Usage("missing the command after " + words[0]);
    const std::string& cmd = words[1];
    const size_t nargs = words.size() - 2;
    auto want = [&](size_t n) {
        if (nargs != n)
            throw Usage("'" + cmd + "' takes " + (n ? std::to_string(n) + " argument" : std::string("no arguments")) +
                        ", not " + std::to_string(nargs));
    };
    // Arguments are checked before the hub is touched.
    uint64_t k = 0;
    if (cmd == "status" || cmd == "cycle" || cmd == "hold" || cmd == "release" || cmd == "quit" ||
        cmd == "cut" || cmd == "mend")
        want(0);
    else if (cmd == "step") want(1), k = cli::number("step", words[2], 1, SimControl::kMaxStep);
    else if (cmd == "trace") want(1), cli::nonempty("trace", words[2]);
    else throw Usage("unknown sim command '" + cmd + "'");

    SimControl c(cli::nonempty("DIR", words[0]), std::chrono::milliseconds(timeout_ms));
    if (cmd == "status") {
        const SimStatus st = c.status();
        for (const auto& f : st.fields) std::printf("%s=%s\n", f.first.c_str(), f.second.c_str());
    } else if (cmd == "cycle") {
        std::printf("cycle %llu\n", (unsigned long long)c.cycle());
    } else if (cmd == "hold") {
        std::printf("held at cycle %llu\n", (unsigned long long)c.hold());
    } else if (cmd == "release") {
        std::printf("released at cycle %llu\n", (unsigned long long)c.release());
    } else if (cmd == "cut") {
        std::printf("link cut at cycle %llu\n", (unsigned long long)c.cut());
    } else if (cmd == "mend") {
        std::printf("link mended at cycle %llu\n", (unsigned long long)c.mend());
    } else if (cmd == "step") {
        std::printf("cycle %llu after %llu steps\n", (unsigned long long)c.step(k), (unsigned long long)k);
    } else if (cmd == "trace" && words[2] == "off") {
        c.trace_off();
        std::printf("trace off\n");
    } else if (cmd == "trace") {
        c.trace(words[2]);
        std::printf("tracing to %s\n", words[2].c_str());
    } else {
        c.quit();
        std::printf("aggnet-sim at %s asked to quit\n", words[0].c_str());
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "help")) {
        std::fputs(kTop, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    std::string cmd = argv[1];
    if (cmd == "barrier" || cmd == "waitvec") {
        std::fprintf(stderr, "aggnet: '%s' is a PAPERS command: aggnet papers %s ...\n%s", cmd.c_str(), cmd.c_str(),
                     kTop);
        return 2;
    }
    if (cmd == "papers") {
        // The engine's group: drop "papers" so the command's own arguments
        // start at argv[2] as for the others.
        if (argc < 3 || (std::strcmp(argv[2], "barrier") && std::strcmp(argv[2], "waitvec"))) {
            std::fprintf(stderr, "aggnet papers: %s; its commands: barrier, waitvec\n%s",
                         argc < 3 ? "a command is needed" : ("unknown command '" + std::string(argv[2]) + "'").c_str(),
                         kTop);
            return 2;
        }
        cmd = argv[2];
        ++argv;
        --argc;
    }
    const char* help = cmd == "probe" ? kProbe : cmd == "barrier" ? kBarrier : cmd == "waitvec" ? kWaitvec
                     : cmd == "sim" ? kSim : cmd == "board-check" ? kCheck : cmd == "barr" ? kBarr
                     : cmd == "cop" ? kCop : cmd == "scalar" ? kScalar : nullptr;
    if (!help) {
        std::fprintf(stderr, "aggnet: unknown command '%s'\n%s", cmd.c_str(), kTop);
        return 2;
    }
    try {
        if (cmd == "sim" || cmd == "board-check" || cmd == "barr" || cmd == "cop" || cmd == "scalar") {
            if (argc > 2 && (!std::strcmp(argv[2], "--help") || !std::strcmp(argv[2], "-h"))) {
                std::fputs(help, stdout);
                return 0;
            }
            return cmd == "sim" ? sim(argc, argv) : cmd == "barr" ? barr_cmd(argc, argv)
                 : cmd == "cop" ? cop_cmd(argc, argv) : cmd == "scalar" ? scalar_cmd(argc, argv)
                 : board_check_cmd(argc, argv);
        }
        const Args a = parse(argc, argv, cmd == "barrier" || cmd == "waitvec", cmd == "barrier", cmd == "waitvec");
        if (a.help) {
            std::fputs(help, stdout);
            return 0;
        }
        if (cmd == "probe") return probe(a);
        if (cmd == "barrier") return barrier(a);
        return waitvec(a);
    } catch (const Usage& u) {
        std::fprintf(stderr, "aggnet %s: %s\n%s", cmd.c_str(), u.what(), help);
        return cli::kUsageExit;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "aggnet %s: %s\n", cmd.c_str(), e.what());
        return 1;
    }
}
