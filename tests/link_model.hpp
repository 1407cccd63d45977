// link_model.hpp: the C++ side of the link test benches, shared by
// tests/test_link_port.cpp (one link_port) and tests/test_link_mux.cpp
// (link_mux in front of one link_port): the model register bus behind the
// port, the fault injector on the byte streams, and the random command
// workload a LinkClient runs against them, checked as each command completes.
//
// The model bus (BusModel) answers after a random latency with random
// bus_req_ready stalls, checks the bus contract (fields stable while
// waiting, one request at a time, size 1..4, wdata zero above size), and
// logs every write it applies.  Registers (per PE unless noted):
//   0x1000+r  read/write            0x2000+r  read counter (each read returns
//   0x3000    shared free-running             the number of earlier reads)
//             counter (cycle / 16)  0xE000+r  missing (err 1)
//   0xF000+r  write refused (err 2) 0xD000    err 3 (reserved)
//   0x4000+r  a CALL engine (BusModel::accept_call)
#pragma once

#include "link_util.hpp"

#include <aggnet/link_client.hpp>
#include <aggnet/link_defs.hpp>
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <random>
#include <utility>
#include <vector>

namespace aggnet::test {

using aggnet::link::LinkClient;
using aggnet::link::LinkResult;
using std::chrono::nanoseconds;


namespace D = aggnet::link_defs;

constexpr uint64_t NS_PER_CYCLE = 20;  // the tests' hub clock: 50 MHz

inline uint32_t size_mask(unsigned s) { return s >= 4 ? 0xffffffffu : (1u << (8 * s)) - 1; }

// ---- the model register bus ------------------------------------------------
// eng_busy, where the model has it (link_uart ties it low inside)
template <class M>
auto set_busy(M& m, bool b, int) -> decltype(m.eng_busy = b, void()) {
    m.eng_busy = b;
}
template <class M>
void set_busy(M&, bool, long) {}
// bus_req_win, where the model has it (link_port's; link_uart keeps it
// inside): the request's window one-hot, beside bus_req_addr
template <class M>
auto check_win(M& m, int) -> decltype(m.bus_req_win, void()) {
    REQUIRE(m.bus_req_win == 1u << (m.bus_req_addr >> 12));
}
template <class M>
void check_win(M&, long) {}

struct BusModel {
    std::mt19937_64 rng;
    std::map<std::pair<unsigned, unsigned>, uint32_t> rw, rdcount;
    std::vector<std::vector<std::pair<uint16_t, uint32_t>>> wlog = std::vector<std::vector<std::pair<uint16_t, uint32_t>>>(64);
    bool pending = false;
    unsigned delay = 0;
    uint32_t rdata = 0;
    uint8_t err = 0;
    bool was_waiting = false;  // valid && !ready last cycle: fields must hold
    uint64_t held_key = 0;
    uint64_t requests = 0, reads_of_counter = 0;
    uint64_t cycle = 0;
    unsigned max_delay = 4;

    explicit BusModel(uint64_t seed) : rng(seed) {}

    template <class M>
    uint64_t key(M& m) {
        return (uint64_t(m.bus_req_we) | uint64_t(m.bus_req_pe) << 1 | uint64_t(m.bus_req_addr) << 8 |
                uint64_t(m.bus_req_size) << 24 | uint64_t(m.bus_req_wdata) << 28) ^
               (uint64_t(m.bus_req_call) << 63 | uint64_t(m.bus_req_len) << 58 | uint64_t(m.bus_req_wdata_hi) << 20);
    }
    // Window 4 (0x4000 + r) is a CALL engine: a start (call, write) begins a
    // job on the PE that finishes (operands & 0xff) * 4 cycles later with
    // call_result(operands, pe, r), r & 0xf bytes (at most 8); an ask (call,
    // read) is answered PENDING until then, then the result, once.  A start
    // while a job is on is refused, as is a CALL to 0x4F00 or an ask with no
    // job.  Window 0x1000 and the others take no CALL (NO_REG).
    struct Job {
        bool on = false;
        uint64_t ops = 0, at = 0;
        unsigned reg = 0;
    };
    std::vector<Job> jobs = std::vector<Job>(64);
    std::vector<std::vector<uint64_t>> calllog = std::vector<std::vector<uint64_t>>(64);
    uint32_t rdata_hi = 0;
    unsigned rlen = 0;
    bool call_rsp = false;
    uint64_t calls_started = 0, asks = 0;
    /// Before the clock edge: drive ready and the response.
    template <class M>
    void before(M& m) {
        m.bus_rsp_valid = 0;
        // a CALL job runs on by itself until its cycle: the engine is busy
        bool busy = false;
        for (const Job& j : jobs) busy |= j.on && cycle < j.at;
        set_busy(m, busy, 0);
        if (pending) {
            REQUIRE(m.bus_req_valid == 0);  // at most one request outstanding
            if (delay == 0) {
                m.bus_rsp_valid = 1;
                // junk above size (a CALL's result is the full 64 bits, 0 above its bytes)
                m.bus_rsp_rdata = call_rsp ? rdata : rdata | (uint32_t(rng()) & ~size_mask(last_size));
                m.bus_rsp_err = err;
                m.bus_rsp_rdata_hi = call_rsp ? rdata_hi : uint32_t(rng());
                m.bus_rsp_len = call_rsp ? rlen : unsigned(rng() % 16);
                pending = false;
            } else {
                --delay;
            }
            m.bus_req_ready = rng() & 1;
            return;
        }
        if (was_waiting) REQUIRE(key(m) == held_key);  // fields held while not taken
        m.bus_req_ready = (rng() % 3) != 0;
        if (m.bus_req_valid) {
            check_win(m, 0);
            const unsigned size = m.bus_req_size;
            REQUIRE(size >= 1);
            REQUIRE(size <= 4);
            if (!m.bus_req_we) REQUIRE(m.bus_req_wdata == 0u);
            REQUIRE((m.bus_req_wdata & ~size_mask(size)) == 0u);
            if (m.bus_req_call) {
                REQUIRE(size == 4u);
                REQUIRE(m.bus_req_len <= 8u);
                if (!m.bus_req_we) REQUIRE((m.bus_req_wdata_hi | m.bus_req_len) == 0u);
                const uint64_t ops = uint64_t(m.bus_req_wdata_hi) << 32 | m.bus_req_wdata;
                if (m.bus_req_len < 8) REQUIRE((ops >> (8 * m.bus_req_len)) == 0u);
            } else {
                REQUIRE((m.bus_req_wdata_hi | m.bus_req_len) == 0u);
            }
            if (m.bus_req_ready) {
                if (m.bus_req_call)
                    accept_call(m.bus_req_we, m.bus_req_pe, m.bus_req_addr,
                                uint64_t(m.bus_req_wdata_hi) << 32 | m.bus_req_wdata);
                else
                    accept(m.bus_req_we, m.bus_req_pe, m.bus_req_addr, m.bus_req_wdata, size);
                was_waiting = false;
            } else {
                was_waiting = true;
                held_key = key(m);
            }
        } else {
            was_waiting = false;
        }
    }
    unsigned last_size = 4;
    void accept_call(bool we, unsigned pe, unsigned addr, uint64_t ops) {
        ++requests;
        pending = true;
        delay = unsigned(rng() % (max_delay + 1));
        call_rsp = true;
        rdata = rdata_hi = 0;
        rlen = 0;
        err = 0;
        Job& j = jobs[pe];
        if ((addr & 0xf000) != 0x4000) {
            err = 1;
        } else if (addr == 0x4F00) {
            err = 2;
        } else if (we) {
            if (j.on) {
                err = 2;
                return;
            }
            ++calls_started;
            calllog[pe].push_back(ops);
            j = Job{true, ops, cycle + (ops & 0xff) * 4, addr & 0xfu};
            if (j.at > cycle) err = 3;
            else finish_job(pe);
        } else {
            ++asks;
            if (!j.on) err = 2;
            else if (cycle < j.at) err = 3;
            else finish_job(pe);
        }
    }
    void finish_job(unsigned pe) {
        Job& j = jobs[pe];
        const uint64_t v = call_result(j.ops, pe, j.reg);
        rdata = uint32_t(v);
        rdata_hi = uint32_t(v >> 32);
        rlen = std::min(j.reg, 8u);
        j.on = false;
    }
    static uint64_t call_result(uint64_t ops, unsigned pe, unsigned reg) {
        const unsigned len = std::min(reg, 8u);
        const uint64_t v = ops * 0x9E3779B97F4A7C15ull + pe;
        return len >= 8 ? v : v & ((uint64_t(1) << (8 * len)) - 1);
    }
    void accept(bool we, unsigned pe, unsigned addr, uint32_t wdata, unsigned size) {
        ++requests;
        pending = true;
        delay = unsigned(rng() % (max_delay + 1));
        call_rsp = false;
        last_size = size;
        rdata = 0;
        err = 0;
        const unsigned win = addr & 0xf000;
        if (win == 0x1000) {
            if (we) {
                rw[{pe, addr}] = wdata;
                wlog[pe].push_back({uint16_t(addr), wdata});
            } else {
                rdata = rw[{pe, addr}] & size_mask(size);
            }
        } else if (win == 0x2000) {
            if (we) err = 2;
            else {
                rdata = rdcount[{pe, addr}]++ & size_mask(size);
                ++reads_of_counter;
            }
        } else if (addr == 0x3000) {
            if (we) err = 2;
            else rdata = uint32_t(cycle / 16) & size_mask(size);
        } else if (win == 0xF000) {
            if (we) err = 2;
            else rdata = 0xA5 & size_mask(size);
        } else if (addr == 0xD000) {
            err = 3;
        } else {
            err = 1;
        }
    }
};

// ---- fault injector ----------------------------------------------------------
struct Injector {
    std::mt19937_64 rng;
    double rate = 0;   // probability that a frame is damaged in some way
    bool cut = false;  // drop everything
    uint64_t frames = 0, drops = 0, flips = 0, bursts = 0, dups = 0, garbage = 0, lost_bytes = 0, truncs = 0;
    explicit Injector(uint64_t seed) : rng(seed) {}

    void apply(const std::vector<uint8_t>& f, std::vector<uint8_t>& out) {
        ++frames;
        if (cut) {
            ++drops;
            return;
        }
        if (std::uniform_real_distribution<double>(0, 1)(rng) >= rate) {
            out.insert(out.end(), f.begin(), f.end());
            return;
        }
        std::vector<uint8_t> g = f;
        switch (rng() % 7) {
        case 0: ++drops; return;
        case 1: ++flips; g[rng() % g.size()] ^= uint8_t(1u << (rng() % 8)); break;
        case 2: {  // burst of 2..8 bits
            ++bursts;
            const size_t bit0 = rng() % (g.size() * 8);
            const unsigned n = 2 + rng() % 7;
            for (unsigned k = 0; k < n && (bit0 + k) / 8 < g.size(); ++k) g[(bit0 + k) / 8] ^= uint8_t(1u << ((bit0 + k) % 8));
            break;
        }
        case 3: ++dups; out.insert(out.end(), f.begin(), f.end()); break;
        case 4: {
            ++garbage;
            const unsigned n = 1 + rng() % 10;
            for (unsigned k = 0; k < n; ++k) out.push_back(test::spicy_byte(rng));
            break;
        }
        case 5: ++lost_bytes; g.erase(g.begin() + long(rng() % g.size())); break;
        default: ++truncs; g.resize(rng() % g.size()); break;
        }
        out.insert(out.end(), g.begin(), g.end());
    }
};

// ---- the random command workload ------------------------------------------------
struct Expect {
    uint8_t op = 0;
    uint16_t addr = 0;
    unsigned size = 1;
    enum { plain, counter_read, wait_counter, wait_timeout, hub_err, hello, call } kind = plain;
    uint64_t result = 0;     // call: expected RESULT (value), `size` its bytes
    uint32_t value = 0;      // value: expected DATA; wait_counter: the low nibble wanted
    uint8_t err = 0;
};

struct Workload {
    std::mt19937_64 rng;
    std::vector<unsigned> pes;
    unsigned first_pe, port_pes, hub_pes;
    std::map<std::pair<unsigned, unsigned>, uint32_t> shadow, reads;
    std::vector<std::vector<std::pair<uint16_t, uint32_t>>> writes = std::vector<std::vector<std::pair<uint16_t, uint32_t>>>(64);
    std::vector<Expect> cur = std::vector<Expect>(64);
    std::vector<std::vector<uint64_t>> calls = std::vector<std::vector<uint64_t>>(64);
    uint64_t done = 0, n_write = 0, n_read = 0, n_wait = 0, n_timeout = 0, n_err = 0, n_hello = 0, n_call = 0;
    unsigned call_bias = 0;

    Workload(uint64_t seed, std::vector<unsigned> p, unsigned first, unsigned n, unsigned hub)
        : rng(seed), pes(std::move(p)), first_pe(first), port_pes(n), hub_pes(hub) {}

    void start(LinkClient& c, unsigned pe, nanoseconds now) {
        Expect e;
        const unsigned size = 1 + rng() % 4;
        e.size = size;
        // call_bias% of the commands are CALLs on top of the mix below
        const unsigned r = (rng() % 100 < call_bias) ? 80 : unsigned(rng() % 100);
        if (r < 30) {  // write a read/write register
            e.op = D::OP_WRITE;
            e.addr = uint16_t(0x1000 + rng() % 8);
            const uint32_t v = uint32_t(rng()) & size_mask(size);
            shadow[{pe, e.addr}] = v;
            writes[pe].push_back({e.addr, v});
            c.start_write(pe, e.addr, v, size);
            ++n_write;
        } else if (r < 52) {  // read one back
            e.op = D::OP_READ;
            e.addr = uint16_t(0x1000 + rng() % 8);
            e.value = shadow[{pe, e.addr}] & size_mask(size);
            c.start_read(pe, e.addr, size);
            ++n_read;
        } else if (r < 64) {  // read counter: shows each read is applied once
            e.op = D::OP_READ;
            e.kind = Expect::counter_read;
            e.addr = uint16_t(0x2000 + rng() % 4);
            e.value = reads[{pe, e.addr}]++ & size_mask(size);
            c.start_read(pe, e.addr, size);
            ++n_read;
        } else if (r < 72) {  // WAIT for the free-running counter's low nibble
            e.op = D::OP_WAIT;
            e.kind = Expect::wait_counter;
            e.addr = 0x3000;
            e.size = 1;
            e.value = uint32_t(rng() % 16);
            c.start_wait(pe, e.addr, 0x0f, e.value, 1, now + nanoseconds(100000 * NS_PER_CYCLE));
            ++n_wait;
        } else if (r < 77) {  // WAIT that holds at once on a known register
            e.op = D::OP_WAIT;
            e.addr = uint16_t(0x1000 + rng() % 8);
            const uint32_t cur_v = shadow[{pe, e.addr}] & size_mask(size);
            const uint32_t mask = uint32_t(rng()) & size_mask(size);
            e.value = cur_v;
            c.start_wait(pe, e.addr, mask, cur_v & mask, size, now + nanoseconds(100000 * NS_PER_CYCLE));
            ++n_wait;
        } else if (r < 78) {  // WAIT that never holds: times out; the next command cancels it
            e.op = D::OP_WAIT;
            e.kind = Expect::wait_timeout;
            e.addr = uint16_t(0x1000 + rng() % 8);
            const uint32_t cur_v = shadow[{pe, e.addr}] & 0xff;
            c.start_wait(pe, e.addr, 0xff, cur_v ^ 0x5a, 1, now + nanoseconds(3000 * NS_PER_CYCLE));
            ++n_timeout;
        } else if (r < 93) {  // CALL: one job in the model's CALL engine, applied once
            e.op = D::OP_CALL;
            e.kind = Expect::call;
            e.addr = uint16_t(0x4000 + rng() % 9);
            const unsigned len = unsigned(rng() % 9);
            uint64_t ops = len ? uint64_t(rng()) >> (64 - 8 * len) : 0;
            if (rng() % 2 && len) ops &= ~uint64_t(0xff) | 0x3f;  // often short jobs, sometimes up to 1020 cycles
            e.size = std::min(e.addr & 0xfu, 8u);
            e.result = BusModel::call_result(ops, pe, e.addr & 0xfu);
            calls[pe].push_back(ops);
            c.start_call(pe, e.addr, ops, len, now + nanoseconds(100000 * NS_PER_CYCLE));
            ++n_call;
        } else if (r < 98) {  // errors from the engines
            e.kind = Expect::hub_err;
            switch (rng() % 6) {
            case 4: e.op = D::OP_CALL; e.addr = 0x4F00; e.err = D::ERR_REFUSED; c.start_call(pe, e.addr, 7, 1, now + nanoseconds(100000 * NS_PER_CYCLE)); break;
            case 5: e.op = D::OP_CALL; e.addr = uint16_t(0x1000 + rng() % 8); e.err = D::ERR_NO_REG; c.start_call(pe, e.addr, 0, 0, now + nanoseconds(100000 * NS_PER_CYCLE)); break;
            case 0: e.op = D::OP_READ; e.addr = uint16_t(0xE000 + rng() % 16); e.err = D::ERR_NO_REG; c.start_read(pe, e.addr, size); break;
            case 1: e.op = D::OP_WRITE; e.addr = uint16_t(0xF000 + rng() % 16); e.err = D::ERR_REFUSED; c.start_write(pe, e.addr, 1, 1); break;
            case 2: e.op = D::OP_WRITE; e.addr = 0xD000; e.err = D::ERR_BUS; c.start_write(pe, e.addr, 1, 1); break;
            default: e.op = D::OP_WAIT; e.addr = uint16_t(0xE000 + rng() % 16); e.err = D::ERR_NO_REG;
                     c.start_wait(pe, e.addr, 1, 1, 1, now + nanoseconds(100000 * NS_PER_CYCLE)); break;
            }
            ++n_err;
        } else {
            e.op = D::OP_HELLO;
            e.kind = Expect::hello;
            c.start_hello(pe);
            ++n_hello;
        }
        cur[pe] = e;
    }

    void check(unsigned pe, const LinkResult& r) {
        const Expect& e = cur[pe];
        INFO("PE" << pe << " op " << D::op_name(e.op) << " addr " << e.addr << ": " << r.message);
        REQUIRE(r.op == e.op);
        REQUIRE(r.addr == e.addr);
        switch (e.kind) {
        case Expect::plain:
        case Expect::counter_read:
            REQUIRE(r.kind == LinkResult::ok);
            REQUIRE(r.value == e.value);
            break;
        case Expect::wait_counter:
            REQUIRE(r.kind == LinkResult::ok);
            REQUIRE((r.value & 0x0f) == e.value);
            break;
        case Expect::wait_timeout:
            REQUIRE(r.kind == LinkResult::timeout);
            break;
        case Expect::hub_err:
            REQUIRE(r.kind == LinkResult::hub_error);
            REQUIRE(r.err == e.err);
            break;
        case Expect::call:
            REQUIRE(r.kind == LinkResult::ok);
            REQUIRE(r.result_len == e.size);
            REQUIRE(r.result == e.result);
            break;
        case Expect::hello:
            REQUIRE(r.kind == LinkResult::ok);
            REQUIRE(r.hello.version == D::VERSION);
            REQUIRE(r.hello.first_pe == first_pe);
            REQUIRE(r.hello.port_pes == port_pes);
            REQUIRE(r.hello.hub_pes == hub_pes);
            break;
        }
        ++done;
    }
};

}  // namespace aggnet::test
