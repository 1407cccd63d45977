// harness.hpp: the one Verilator testbench template every aggnet test uses.
//
//   aggnet::sim::Harness<Vtop> h("papers_hub_n4");
//   h.reset();              // rst high for a few cycles, then low
//   h->pe_data[...] = ...;  // drive inputs through operator->
//   h.tick();               // one full clock cycle (falling, rising edge)
//
// * One VerilatedContext per harness; the model is built on it.
// * FST tracing is opt-in: set AGGNET_TRACE=<dir> (each harness writes
//   <dir>/<name>.fst) or call trace_to(path).  The file name is printed.  The
//   trace is flushed and closed in the destructor, which runs while a failed
//   Catch2 REQUIRE unwinds the stack, so the waveform of a failing test is
//   complete.
// * Cycle timeout: tick() throws CycleTimeout once max_cycles is exceeded, so a
//   wait on a condition that never comes cannot hang a test.
// * The model's ports are reached with operator->; clk and rst are driven by
//   the harness (the top must name them clk and rst; a board top's clock is
//   its oscillator pin, clock_of() below, and it has no rst: its por resets it).
#pragma once

#include <verilated.h>
#include <verilated_fst_c.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <sys/stat.h>
#include <type_traits>
#include <utility>

namespace aggnet::sim {

/// Does the model have an `rst` input?  (por, for one, has none.)
template <class M, class = void>
struct has_rst : std::false_type {};
template <class M>
struct has_rst<M, std::void_t<decltype(std::declval<M&>().rst)>> : std::true_type {};

/// The model's clock input: `clk`, or a board top's oscillator pin
/// (fw/<board>/top.v: `clk_12mhz`, `clk_25mhz`; under Verilator the PLL of
/// rtl/common/pll.v passes it through, so it is the hub clock).
template <class M, class = void>
struct has_clk : std::false_type {};
template <class M>
struct has_clk<M, std::void_t<decltype(std::declval<M&>().clk)>> : std::true_type {};
template <class M, class = void>
struct has_clk_12mhz : std::false_type {};
template <class M>
struct has_clk_12mhz<M, std::void_t<decltype(std::declval<M&>().clk_12mhz)>> : std::true_type {};
template <class M>
auto& clock_of(M& m) {
    if constexpr (has_clk<M>::value) return m.clk;
    else if constexpr (has_clk_12mhz<M>::value) return m.clk_12mhz;
    else return m.clk_25mhz;
}

struct CycleTimeout : std::runtime_error {
    using std::runtime_error::runtime_error;
};

template <class Model>
class Harness {
public:
    explicit Harness(std::string name, uint64_t max_cycles = UINT64_MAX)
        : name_(std::move(name)), max_cycles_(max_cycles),
          ctx_(std::make_unique<VerilatedContext>()) {
        ctx_->traceEverOn(true);
        model_ = std::make_unique<Model>(ctx_.get(), name_.c_str());
        clock_of(*model_) = 0;
        set_rst(1);
        model_->eval();
        if (const char* dir = std::getenv("AGGNET_TRACE"); dir && *dir) {
            ::mkdir(dir, 0777);
            trace_to(std::string(dir) + "/" + name_ + ".fst");
        }
    }
    Harness(const Harness&) = delete;
    Harness& operator=(const Harness&) = delete;
    ~Harness() { close_trace(); model_->final(); }

    Model* operator->() { return model_.get(); }
    Model& dut() { return *model_; }
    VerilatedContext& context() { return *ctx_; }
    const std::string& name() const { return name_; }

    /// Start an FST waveform of this model; prints the file name.
    void trace_to(const std::string& path) {
        close_trace();
        trace_ = std::make_unique<VerilatedFstC>();
        model_->trace(trace_.get(), 99);
        trace_->open(path.c_str());
        trace_path_ = path;
        std::fprintf(stderr, "[harness] %s: FST trace -> %s\n", name_.c_str(), path.c_str());
        dump();
    }
    void close_trace() {
        if (trace_) {
            trace_->flush();
            trace_->close();
            trace_.reset();
        }
    }
    const std::string& trace_path() const { return trace_path_; }

    /// Hold rst high for `cycles` clock cycles, then release it.
    void reset(unsigned cycles = 3) {
        set_rst(1);
        for (unsigned i = 0; i < cycles; ++i) tick();
        set_rst(0);
        model_->eval();
    }

    /// One clock cycle: falling edge, then rising edge.  Inputs set before
    /// tick() are sampled at its rising edge; outputs read after it are the
    /// registered values of that edge.
    void tick() {
        if (cycle_ >= max_cycles_)
            throw CycleTimeout(name_ + ": cycle timeout after " + std::to_string(cycle_) + " cycles");
        clock_of(*model_) = 0;
        model_->eval();
        ctx_->timeInc(5);
        dump();
        clock_of(*model_) = 1;
        model_->eval();
        ctx_->timeInc(5);
        dump();
        ++cycle_;
    }
    void ticks(uint64_t n) {
        for (uint64_t i = 0; i < n; ++i) tick();
    }
    /// Tick until pred() holds; returns the cycles it took.  Throws
    /// CycleTimeout after `limit` cycles.
    template <class Pred>
    uint64_t tick_until(Pred pred, uint64_t limit) {
        for (uint64_t i = 0; i < limit; ++i) {
            if (pred()) return i;
            tick();
        }
        if (pred()) return limit;
        throw CycleTimeout(name_ + ": condition not met within " + std::to_string(limit) + " cycles");
    }
    uint64_t cycle() const { return cycle_; }
    void set_max_cycles(uint64_t m) { max_cycles_ = m; }

private:
    void set_rst(int v) {
        if constexpr (has_rst<Model>::value) model_->rst = v;
    }
    void dump() {
        if (trace_) trace_->dump(ctx_->time());
    }
    std::string name_;
    uint64_t max_cycles_;
    uint64_t cycle_ = 0;
    std::unique_ptr<VerilatedContext> ctx_;
    std::unique_ptr<Model> model_;
    std::unique_ptr<VerilatedFstC> trace_;
    std::string trace_path_;
};

}  // namespace aggnet::sim
