// options.cpp: aggnet-sim's command line (options.hpp).
#include "options.hpp"

#include "common.hpp"
#include "hub_rtl.hpp"
#include "hub_select.hpp"

#include <aggnet/cli.hpp>
#include <aggnet/link_defs.hpp>

#include <algorithm>
#include <cstdio>
#include <random>
#include <sstream>
#include <unistd.h>

namespace aggnet::vhub {

namespace L = aggnet::link_defs;

namespace {

const char* const kUsage =
    "usage: aggnet-sim --pes N [--dir DIR] [--pty] [--engines LIST] [--mux] [--trace FILE.fst]\n"
    "                  [--faults PERCENT] [--fault-seed S]\n"
    "  Serves a Verilated aggnet_hub with N PEs; its link frames (docs/link.md) travel over\n"
    "  DIR/peK (PE K only), DIR/link (every PE) and, with --pty, the pseudo-terminals\n"
    "  DIR/pty-peK and DIR/pty-link; DIR/control holds, steps and traces the hub (docs/vhub.md).\n"
    "  --pes N             hub size (built sizes: %s)\n"
    "  --dir DIR           socket directory: created if missing; if it exists it must hold\n"
    "                      nothing but what an aggnet-sim left (default: a new /tmp/aggnet-XXXXXX)\n"
    "  --pty               also offer the channels as pseudo-terminals\n"
    "  --engines LIST      comma-separated engines the hub must have (e.g. papers): runs the\n"
    "                      built hub with the fewest engines that has them all, so that only\n"
    "                      what the run uses is simulated; refused if none has them.  Default:\n"
    "                      the hub with every engine.  Built hubs (BUILD/models/*.so):\n"
    "%s"
    "  --mux               run a hub with the boards' link multiplexer in front of its port\n"
    "                      (rtl/link/link_mux.v, a `(mux)` hub above): each DIR/peK is the\n"
    "                      byte stream of PE K's own header UART, DIR/link the USB UART's\n"
    "  --trace FILE.fst    record an FST waveform of the run\n"
    "  --faults PERCENT    damage PERCENT%% of the frames both ways (0..100; drops, bit flips,\n"
    "                      bursts, duplicates, reordering, garbage)\n"
    "  --fault-seed S      seed of the fault injector (default: random, printed)\n"
    "Stop it with SIGINT/SIGTERM or `quit` on DIR/control; it removes what it made.\n"
    "Exit: 0 stopped, 1 runtime error, 2 usage error.\n";

/// Every size some hub family was built at.
std::vector<unsigned> sizes_built() {
    std::vector<unsigned> all;
    for (const auto& f : sim::rtl_families<sim::HubModel>()) all.insert(all.end(), f.sizes().begin(), f.sizes().end());
    std::sort(all.begin(), all.end());
    all.erase(std::unique(all.begin(), all.end()), all.end());
    return all;
}

std::string built_sizes() {
    std::string b;
    for (unsigned s : sizes_built()) b += (b.empty() ? "" : " ") + std::to_string(s);
    return b;
}

/// One line per hub family: its engines (asked of its model) and sizes.
std::string built_hubs() {
    std::string out;
    for (const auto& f : sim::hub_families()) {
        std::string sizes;
        for (unsigned s : f.sizes) sizes += (sizes.empty() ? "" : " ") + std::to_string(s);
        out += "                        " + f.name + ": " + sim::engine_names(f.engines) + " (N = " + sizes + ")" +
               (f.mux ? " (mux)" : "") + "\n";
    }
    return out;
}

void print_usage(FILE* f) {
    std::string sizes, hubs;
    try {
        sizes = built_sizes();
        hubs = built_hubs();
    } catch (const std::exception& e) {  // a model plugin that does not load
        sizes = "?";
        hubs = std::string("                        (none listed: ") + e.what() + ")\n";
    }
    std::fprintf(f, kUsage, sizes.c_str(), hubs.c_str());
}

/// --engines LIST: the window of each named engine.
std::vector<unsigned> parse_engines(const std::string& list) {
    std::vector<unsigned> out;
    std::string known;
    for (unsigned w = 1; w < 16; ++w)
        if (const char* n = L::win_name(w)) known += (known.empty() ? "" : ", ") + std::string(n);
    if (list.back() == ',') throw cli::UsageError("--engines " + list + ": an empty engine name after the last ','");
    std::stringstream in(list);
    for (std::string name; std::getline(in, name, ',');) {
        if (name.empty()) throw cli::UsageError("--engines " + list + ": an empty engine name between ','s");
        unsigned found = 0;
        for (unsigned w = 1; w < 16 && !found; ++w)
            if (const char* n = L::win_name(w); n && name == n) found = w;
        if (!found) throw cli::UsageError("--engines: unknown engine '" + name + "' (engines: " + known + ")");
        for (unsigned w : out)
            if (w == found) throw cli::UsageError("--engines " + list + ": '" + name + "' is named twice");
        out.push_back(found);
    }
    return out;
}

}  // namespace

std::string engine_list(uint16_t engines) {
    const std::string s = sim::engine_names(engines);
    return s.empty() ? "none" : s;
}

std::optional<int> parse_options(int argc, char** argv, Options& o) {
    try {
        for (int i = 1; i < argc; ++i) {
            const std::string a = argv[i];
            auto value = [&]() -> std::string {
                if (i + 1 >= argc) throw cli::UsageError(a + " needs a value");
                return argv[++i];
            };
            auto once = [&](bool seen) {
                if (seen) throw cli::UsageError(a + " is given twice");
            };
            if (a == "--help" || a == "-h") {
                print_usage(stdout);
                return 0;
            } else if (a == "--pes") {
                once(o.pes != 0);
                o.pes = unsigned(cli::number("--pes", value(), 2, 64));
                const auto sizes = sizes_built();
                if (sizes.empty())
                    throw cli::UsageError("no hub model is built in " + sim::rtl_plugin_dir() +
                                          " (make build builds them all; cmake --build BUILD --target "
                                          "HubModel_plugins)");
                if (std::find(sizes.begin(), sizes.end(), o.pes) == sizes.end())
                    throw cli::UsageError("--pes " + std::to_string(o.pes) +
                                          ": no hub of that size was built (built: " + built_sizes() +
                                          "; make build builds every configured size, AGGNET_HUB_SIZES adds one)");
            } else if (a == "--dir") {
                once(o.have_dir);
                o.dir = cli::nonempty("--dir", value());
                o.have_dir = true;
            } else if (a == "--pty") {
                once(o.pty);
                o.pty = true;
            } else if (a == "--mux") {
                once(o.mux);
                o.mux = true;
            } else if (a == "--engines") {
                once(!o.engines_arg.empty());
                o.engines_arg = cli::nonempty("--engines", value());
                o.want_engines = parse_engines(o.engines_arg);
            } else if (a == "--trace") {
                once(!o.trace.empty());
                o.trace = cli::nonempty("--trace", value());
            } else if (a == "--faults") {
                once(o.faults != 0);
                o.faults = unsigned(cli::number("--faults", value(), 0, 100));
            } else if (a == "--fault-seed") {
                once(o.have_seed);
                o.fault_seed = cli::number("--fault-seed", value(), 0, UINT64_MAX);
                o.have_seed = true;
            } else {
                throw cli::UsageError("unknown argument '" + a + "'");
            }
        }
        if (!o.pes) throw cli::UsageError("--pes N is required");
        if (o.have_seed && !o.faults) throw cli::UsageError("--fault-seed without --faults");
        if (!o.trace.empty()) {
            // Fail now, not silently at the end: the waveform must be writable.
            FILE* f = std::fopen(o.trace.c_str(), "w");
            if (!f) throw cli::UsageError("--trace " + o.trace + ": cannot write it: " + errno_text());
            std::fclose(f);
        }
    } catch (const cli::UsageError& e) {
        std::fprintf(stderr, "aggnet-sim: %s\n", e.what());
        print_usage(stderr);
        return cli::kUsageExit;
    } catch (const std::exception& e) {
        // a model plugin that does not load (sim/rtl_families.hpp)
        std::fprintf(stderr, "aggnet-sim: %s\n", e.what());
        return 1;
    }
    if (!o.have_seed) o.fault_seed = std::random_device{}() * 0x100000001ull ^ uint64_t(::getpid());
    return std::nullopt;
}

}  // namespace aggnet::vhub
