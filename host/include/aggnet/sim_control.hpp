// sim_control.hpp: a client of the virtual hub's control socket, DIR/control
// (aggnet-sim; docs/host.md, "The control socket").  One ASCII line per
// command, one line back: "ok[ fields]" or "err <message>".
//
//   aggnet::SimControl sim("/tmp/aggnet-abc");     // DIR, or DIR/control
//   sim.hold();                                    // the hub clock stops
//   uint64_t c = sim.step(100);                    // 100 cycles, then the cycle count
//   sim.release();
//   aggnet::SimStatus s = sim.status();            // s.cycle, s.pes, s.queued, ...
//   sim.quit();
//
// Each call connects, sends its line, reads the one reply line and closes, so
// nothing is held between calls.  Every call is bounded by the timeout given
// to the constructor (default 10 s) and throws DeviceError naming the control
// socket and the command: on timeout, when the hub cannot be reached or
// closes the connection, on a garbled reply, and on an `err` reply, carrying
// the sim's message.  A bad argument (step 0, an empty trace path) throws
// aggnet::Error before anything is sent.
#pragma once

#include <aggnet/error.hpp>

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace aggnet {

/// What `status` reports.
struct SimStatus {
    uint64_t cycle = 0;      ///< hub clock cycles since reset
    bool held = false;       ///< the clock is stopped (hold)
    unsigned pes = 0;        ///< N
    uint64_t engines = 0;    ///< engine windows present, bit w = window w
    uint64_t clk_hz = 0;     ///< the hub clock the sim stands for
    uint64_t queued = 0;     ///< bytes waiting to enter the hub
    unsigned clients = 0;    ///< connected PE clients
    uint64_t damaged = 0;    ///< frames damaged by the fault injector
    /// Every key=value of the reply, in order, the unknown ones included.
    std::vector<std::pair<std::string, std::string>> fields;
};

class SimControl {
public:
    static constexpr std::chrono::nanoseconds kDefaultTimeout = std::chrono::seconds(10);
    static constexpr uint64_t kMaxStep = 1000000000;  ///< step's bound, the sim's
    /// step(k) waits the timeout plus k cycles at this rate: the slowest
    /// simulation (a loaded machine, the largest hub) a step still waits for,
    /// so that a long step is not taken for a stuck sim, and a stuck sim is
    /// still reported within a bound.
    static constexpr uint64_t kStepFloorHz = 100000;

    /// `where`: the hub's directory (what aggnet-sim prints) or its control
    /// socket (a path whose last component is "control").  Does not connect.
    explicit SimControl(const std::string& where, std::chrono::nanoseconds timeout = kDefaultTimeout);

    SimStatus status();
    /// Hub clock cycles since reset.
    uint64_t cycle();
    /// Stops the hub clock (arriving frames queue up); returns the cycle.
    uint64_t hold();
    /// Lets the clock run again whenever there is work; returns the cycle.
    uint64_t release();
    /// While held: runs k (1..kMaxStep) cycles; returns the cycle after them.
    /// Waits up to the timeout plus k / kStepFloorHz seconds for the answer.
    uint64_t step(uint64_t k);
    /// Starts an FST waveform in `path` (made absolute here: the sim's working
    /// directory is not ours).
    void trace(const std::string& path);
    void trace_off();
    /// Drops every frame both ways, as a pulled cable does, until mend();
    /// each returns the cycle.
    uint64_t cut();
    uint64_t mend();
    /// Asks the sim to exit (it answers first, then removes its sockets).
    void quit();

    /// One command line (without '\n'); returns what follows "ok " ("" for a
    /// bare "ok").  The typed calls above are built on it.
    std::string request(const std::string& line) { return request(line, timeout_); }
    /// The same with its own bound on the wait for the answer.
    std::string request(const std::string& line, std::chrono::nanoseconds timeout);

    /// The control socket's path.
    const std::string& path() const { return path_; }
    /// "sim control DIR/control": how messages name it.
    std::string device() const { return "sim control " + path_; }

private:
    uint64_t cycle_reply(const std::string& cmd);
    std::string path_;
    std::chrono::nanoseconds timeout_;
};

/// The hub directory of a sim: device string ("sim:DIR/pe2" -> "DIR"), or ""
/// for another kind.  Throws DeviceSyntaxError for a malformed string.
std::string sim_dir_of(const std::string& device);

}  // namespace aggnet
