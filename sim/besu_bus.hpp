// sim/besu_bus.hpp: a bus master on a Verilated besu_engine (rtl/besu/), for
// test_besu_engine and bench_besu_cycles.  One request at a time through
// access(); sample() keeps a read on the bus every cycle (the engine takes a
// request each cycle and answers two cycles later) to find the first cycle a
// BESU is in a state.  Errors throw std::runtime_error with what was asked.
#pragma once

#include "besu_model.hpp"
#include "harness.hpp"

#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace aggnet::sim::besu {

constexpr uint16_t WINDOW_BASE = aggnet::besu::regs::WINDOW << 12;  // tools/linkgen.py WINDOWS: BESU

template <class V>
struct EngineBus {
    Harness<V> h;
    explicit EngineBus(const std::string& name) : h(name) { h.reset(); }

    void present(bool we, unsigned pe, uint16_t reg, uint32_t wdata, bool call = false, unsigned len = 0) {
        h->bus_req_valid = 1;
        h->bus_req_call = call;
        h->bus_req_len = len;
        h->bus_req_wdata_hi = 0;
        h->bus_req_we = we;
        h->bus_req_pe = pe;
        h->bus_req_addr = uint16_t(WINDOW_BASE | reg);
        h->bus_req_wdata = wdata;
        h->bus_req_size = 4;
        if (!h->bus_req_ready) throw std::runtime_error("besu_engine: bus_req_ready low");
    }
    Rsp access(bool we, unsigned pe, uint16_t reg, uint32_t wdata = 0, bool call = false, unsigned len = 0) {
        present(we, pe, reg, wdata, call, len);
        h.tick();
        h->bus_req_valid = 0;
        h->bus_req_call = 0;
        for (unsigned i = 0; i < 8; ++i) {
            if (h->bus_rsp_valid) {
                Rsp r;
                r.err = h->bus_rsp_err;
                r.rdata = h->bus_rsp_rdata;
                r.len = h->bus_rsp_len;
                r.rdata_hi = h->bus_rsp_rdata_hi;
                h.tick();
                return r;
            }
            h.tick();
        }
        throw std::runtime_error("besu_engine: no bus response within 8 cycles");
    }
    static std::string what(const char* op, unsigned pe, uint16_t reg, unsigned err) {
        char b[96];
        std::snprintf(b, sizeof b, "%s PE%u reg 0x%03x: bus error %u", op, pe, reg, err);
        return b;
    }
    void write(unsigned pe, uint16_t reg, uint32_t v) {
        const Rsp r = access(true, pe, reg, v);
        if (r.err != OK) throw std::runtime_error(what("write", pe, reg, r.err));
    }
    uint32_t read(unsigned pe, uint16_t reg) {
        const Rsp r = access(false, pe, reg);
        if (r.err != OK) throw std::runtime_error(what("read", pe, reg, r.err));
        return r.rdata;
    }
    unsigned state(unsigned pe, unsigned b) { return read(pe, uint16_t(R_CTL + b)); }
    /// A CALL's start (a write with bus_req_call, `len` operand bytes) and
    /// an ask for its result (a read with bus_req_call), as link_port makes
    /// them (docs/link.md, "The engine register bus").
    Rsp call_start(unsigned pe, uint16_t reg, uint32_t operand, unsigned len) {
        return access(true, pe, reg, operand, true, len);
    }
    Rsp call_ask(unsigned pe, uint16_t reg) { return access(false, pe, reg, 0, true, 0); }
    /// Supervisor: every node's BAR_CFG[b] (cfg[i] for node i).
    void load(unsigned b, const std::vector<uint32_t>& cfg) {
        for (unsigned i = 0; i < cfg.size(); ++i) {
            write(i, R_MODE, KEY);
            write(i, uint16_t(R_CFG + b), cfg[i]);
            write(i, R_MODE, 0);
        }
    }
    void settle() { h.ticks(64); }

    /// Present the write (pe, BAR_CTL[b] <- code) in this cycle and, from the
    /// next cycle on, a read of node `at`'s BAR_CTL[b] in every cycle; returns
    /// the number of cycles from the write's cycle on the bus to the cycle of
    /// the first read that returned `state` (both requests are registered the
    /// same way, so this is the state's latency as the bus sees it), or 0 if
    /// not within `limit` cycles.  Leaves the bus idle with no response pending.
    unsigned write_then_sample(unsigned pe, unsigned b, unsigned code, unsigned at, unsigned state,
                               unsigned limit = 1000) {
        present(true, pe, uint16_t(R_CTL + b), code);
        std::vector<uint64_t> issued;  // cycles of the reads in flight, oldest first
        const uint64_t t0 = h.cycle();
        unsigned found = 0;
        bool write_answered = false;
        while (h.cycle() - t0 < limit + 8) {
            h.tick();
            if (h->bus_rsp_valid) {
                if (!write_answered) {
                    write_answered = true;
                    if (h->bus_rsp_err != OK) throw std::runtime_error(what("write", pe, uint16_t(R_CTL + b), h->bus_rsp_err));
                } else {
                    const uint64_t at_cycle = issued.front();
                    issued.erase(issued.begin());
                    if (!found && h->bus_rsp_err == OK && (h->bus_rsp_rdata & 7) == state)
                        found = unsigned(at_cycle - t0);
                }
            }
            if (found || h.cycle() - t0 >= limit) {
                h->bus_req_valid = 0;
                break;
            }
            issued.push_back(h.cycle());
            present(false, at, uint16_t(R_CTL + b), 0);
        }
        h->bus_req_valid = 0;
        h.ticks(4);  // drain the reads in flight
        return found;
    }
};

}  // namespace aggnet::sim::besu
