// aggnet-sim: the virtual hub.  The Verilated aggnet_hub -- the same hub top
// the board tops instantiate -- behind its link port, served over Unix
// sockets (and optionally pseudo-terminals) that carry the link's frames
// (docs/link.md): exactly the bytes a board's USB UART carries, so every
// client of the virtual hub also exercises the link RTL that goes on the
// board.  docs/vhub.md is the user's guide.
//
//   aggnet-sim --pes N [--dir DIR] [--pty] [--engines LIST] [--mux] [--trace FILE.fst]
//              [--faults PERCENT] [--fault-seed S]
//
// Channels (each one byte stream, each one client at a time):
//   DIR/peK       socket: frames of PE K only (a frame naming another PE is
//                 dropped and logged: a per-PE UART on header pins)
//   DIR/link      socket: frames of any PE (a board's shared USB UART: one
//                 program may act as every PE)
//   DIR/pty-peK, DIR/pty-link   with --pty: the same as pseudo-terminals
//                 (symlinks to /dev/pts/M), for serial:PATH@BAUD?pe=K
//   DIR/control   socket, a line protocol to hold, step and release the hub
//                 clock, read the cycle count, trace, cut the link and quit
//                 (docs/vhub.md; libaggnet's SimControl; `aggnet sim`)
//
// A client that disconnects, or is killed, leaves its PE's registers as it
// last wrote them, as a PC's port register keeps its value when the program
// exits: a PE killed with its barrier signal high keeps it high, and the
// others re-form without it (libaggnet's Papers does).  A new client may
// then take the channel; its HELLO resets the PE's sequence state.
//
// The parts, one concern per file pair in sim/vhub/:
//   options   the command line: --pes, --dir, ..., the usage text
//   sockets   listeners, accepting (with a back-off when out of
//             descriptors), and the check that --dir DIR is ours to use
//   channel   one channel: its socket or pty, its bytes both ways
//   faults    the fault injector (--faults P; `cut` / `mend`)
//   hub       the Verilated hub, its clock and byte stream, and the frame
//             routes between the stream and the channels
//   control   the control socket's line protocol
//   server    the ppoll() loop that serves the channels and the control
//             socket and runs the hub clock while it has work
//   main      this file: start-up, signals, the socket directory, exit
#include "hub.hpp"
#include "hub_select.hpp"
#include "options.hpp"
#include "server.hpp"
#include "sockets.hpp"

#include <aggnet/cli.hpp>
#include <aggnet/link_defs.hpp>
#include <aggnet/papers_regs.hpp>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <unistd.h>

using namespace aggnet;
using namespace aggnet::vhub;

namespace {

volatile sig_atomic_t g_signal = 0;
void on_signal(int sig) { g_signal = sig; }

/// Signals are blocked except inside ppoll(), so none is lost between the
/// flag check and the wait.  Blocked before the model exists: Verilator
/// may start worker threads (tracing), which inherit this mask, so that
/// SIGINT/SIGTERM can only be taken by the main thread in its ppoll() --
/// a signal handled by a worker would set the flag and leave the main
/// thread asleep (it did, under load: the hub then ignored SIGTERM).
/// Returns the mask ppoll() waits with.
sigset_t block_signals() {
    sigset_t block, waitmask;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    sigprocmask(SIG_BLOCK, &block, &waitmask);
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    sigaction(SIGHUP, &sa, nullptr);
    std::signal(SIGPIPE, SIG_IGN);
    return waitmask;
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    if (const auto rc = parse_options(argc, argv, o)) return *rc;
    const unsigned n = o.pes;
    const sigset_t waitmask = block_signals();

    std::unique_ptr<sim::HubModel> model;
    std::string family;
    try {
        // The hub family with the fewest engines that has every one asked
        // for (sim/hub_select.hpp): only what the run uses is simulated.
        uint16_t wanted = 0;
        for (unsigned w : o.want_engines) wanted = uint16_t(wanted | 1u << w);
        try {
            auto choice = sim::make_hub_with(n, wanted, "aggnet_sim", UINT64_MAX, o.mux);
            model = std::move(choice.model);
            family = choice.family;
        } catch (const std::invalid_argument& e) {
            std::fprintf(stderr, "aggnet-sim: %s%s%s: %s\n", o.mux ? "--mux " : "",
                         o.engines_arg.empty() ? "" : "--engines ", o.engines_arg.c_str(), e.what());
            return cli::kUsageExit;
        }
        if (!o.trace.empty()) {
            model->trace_to(o.trace);
            std::fprintf(stderr, "aggnet-sim: tracing to %s\n", o.trace.c_str());
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "aggnet-sim: %s\n", e.what());
        return 1;
    }
    // No cable is plugged into the virtual hub's pins: they read high, as a
    // board's pull-ups hold them, so every PE is absent (papers_hub,
    // Presence) until the link drives it.
    const reg_t floating = (reg_t(1) << papers_regs::reg_width(n)) - 1;
    for (unsigned pe = 0; pe < n; ++pe)
        model->set_data(pe, floating), model->set_ctrl(pe, uint8_t((1u << papers_regs::CTRL_WIDTH) - 1));
    auto hub = std::make_unique<Hub>(n, std::move(model), Injector(o.faults, o.fault_seed));
    try {
        hub->start();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "aggnet-sim: %s\n", e.what());
        return 1;
    }
    for (unsigned w : o.want_engines)
        if (!(hub->engines() >> w & 1)) {
            std::fprintf(stderr, "aggnet-sim: --engines %s: this hub was built without %s (built with: %s)\n",
                         o.engines_arg.c_str(), link_defs::win_name(w), engine_list(hub->engines()).c_str());
            return cli::kUsageExit;
        }

    std::string dir = o.dir;
    bool made_dir = false;
    try {
        if (!o.have_dir) {
            char tmpl[] = "/tmp/aggnet-XXXXXX";
            if (!::mkdtemp(tmpl)) throw std::runtime_error("mkdtemp /tmp/aggnet-XXXXXX: " + errno_text());
            dir = tmpl;
            made_dir = true;
        } else {
            while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
            made_dir = check_dir(dir);
        }
    } catch (const cli::UsageError& u) {
        std::fprintf(stderr, "aggnet-sim: %s\n", u.what());
        return cli::kUsageExit;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "aggnet-sim: %s\n", e.what());
        return 1;
    }

    int rc = 0;
    {
        Server server(*hub);
        try {
            server.open(dir, o.pty);
            std::printf("aggnet-sim: %u PEs at %s\n", n, dir.c_str());
            std::printf("aggnet-sim: engines %s (model %s); hub clock %.3f MHz; control socket %s/control\n",
                        engine_list(hub->engines()).c_str(), family.c_str(), double(hub->clk_hz()) / 1e6, dir.c_str());
            if (hub->streams() > 1)
                std::printf("aggnet-sim: link multiplexer: %u byte streams (DIR/peK is PE K's, DIR/link the shared "
                            "one)\n", hub->streams());
            std::printf("%s", hub->pty_paths().c_str());
            if (o.faults)
                std::printf("aggnet-sim: fault injector: %u%% of frames, --fault-seed %llu\n", o.faults,
                            static_cast<unsigned long long>(o.fault_seed));
            std::fflush(stdout);
            server.serve(waitmask, g_signal);
            std::fprintf(stderr, "aggnet-sim: %s after %llu cycles; frames in/out:%s\n",
                         g_signal ? strsignal(g_signal) : "stopped", static_cast<unsigned long long>(hub->cycle()),
                         hub->stats().c_str());
            if (hub->injector().active()) std::fprintf(stderr, "aggnet-sim: %s\n", hub->injector().summary().c_str());
            server.close();
        } catch (const std::exception& e) {
            std::fprintf(stderr, "aggnet-sim: %s\n", e.what());
            server.close();
            rc = 1;
        }
    }
    hub.reset();
    if (made_dir && ::rmdir(dir.c_str()) != 0)
        std::fprintf(stderr, "aggnet-sim: left %s in place: %s\n", dir.c_str(), errno_text().c_str());
    return rc;
}
