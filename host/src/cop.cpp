// libaggnet: the COP engine (seed 004) over the link; see aggnet/cop.hpp and
// docs/cop.md.
#include <aggnet/cop.hpp>
#include <aggnet/link_defs.hpp>
#include "strf.hpp"

#include <algorithm>
#include <cstdarg>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <cmath>
#include <exception>
#include <random>

namespace aggnet::cop {

namespace {
using aggnet::detail::strf;
bool collective(unsigned opcode) {
    const OpInfo* i = op_info(opcode);
    return i && (i->kind == K_BAR || i->kind == K_RED || i->kind == K_FLT || i->kind == K_SCAN);
}
uint64_t dbits(double d) {
    uint64_t u;
    std::memcpy(&u, &d, sizeof u);
    return u;
}
double bitsd(uint64_t u) {
    double d;
    std::memcpy(&d, &u, sizeof d);
    return d;
}
}  // namespace

const char* cause_name(unsigned c) {
    if (c == C_NONE) return "no cause logged";
    const char* t = cause_text(c);  // the table's meaning (tools/copgen.py CAUSES, docs/cop_regmap.md)
    return t ? t : "an unknown cause";
}

const char* op_name(unsigned opcode) {
    const OpInfo* i = op_info(opcode);
    return i ? i->name : "no such opcode";
}

unsigned reduce_opcode(Op op, bool w64) {
    static const unsigned o32[] = {OP_SUMI32, OP_MAXI32, OP_MINI32, OP_OR32, OP_AND32, OP_EXOR32};
    static const unsigned o64[] = {OP_SUMI64, OP_MAXI64, OP_MINI64, OP_OR64, OP_AND64, OP_EXOR64};
    return (w64 ? o64 : o32)[unsigned(op)];
}
unsigned reduce_opcode(FOp op) {
    static const unsigned o[] = {OP_SUMF, OP_MAXF, OP_MINF, OP_EXSUMF};
    return o[unsigned(op)];
}
unsigned scan_opcode(Scan s, bool w64) {
    if (w64) return s == Scan::Inclusive ? OP_SCANI64 : OP_SCANX64;
    return s == Scan::Inclusive ? OP_SCANI32 : OP_SCANX32;
}
unsigned scan_opcode(Scan s) { return s == Scan::Inclusive ? OP_SCANIF : OP_SCANXF; }
unsigned exact_scan_opcode(Scan s) { return s == Scan::Inclusive ? OP_EXSCANIF : OP_EXSCANXF; }

// ---- one PE's channel --------------------------------------------------------------

Channel::Channel(link::LinkClient& link, unsigned pe, std::chrono::nanoseconds timeout)
    : link_(link), pe_(pe), timeout_(timeout) {
    uint32_t id = 0, config = 0;
    try {
        const uint32_t hash = link_.read(pe_, uint16_t(link_defs::INFO_MAP_HASH + regs::WINDOW), 4);
        if (hash == 0)
            throw DeviceError(strf("PE%u: the hub has no COP (window %u empty: built without EN_COP)", pe,
                                   regs::WINDOW));
        if (hash != regs::MAP_HASH)
            throw DeviceError(strf("PE%u: the hub's COP register map hash is 0x%08x, this library's 0x%08x: rebuild "
                                   "one of them from the same tools/copgen.py",
                                   pe, hash, regs::MAP_HASH));
        id = link_.read(pe_, regs::addr(regs::ID), 4);
        config = link_.read(pe_, regs::addr(regs::CONFIG), 4);
        addr_ = int(link_.read(pe_, regs::addr(regs::ADDR), 4));
    } catch (const RegisterError& e) {
        throw DeviceError(strf("PE%u: no COP channel for this PE (the hub has fewer channels, or no COP): ", pe) +
                          e.what());
    }
    if (id != 0x434F5001)
        throw DeviceError(strf("PE%u: the COP window's ID is 0x%08x, not 0x434f5001 (\"COP\", version 1)", pe, id));
    channels_ = config & 0x7f;
    fpu_ = config >> 7 & 1;
}

uint32_t Channel::reg(uint16_t r) { return link_.read(pe_, regs::addr(r), 4); }

void Channel::set_reg(uint16_t r, uint32_t v, const char* what) {
    try {
        link_.write(pe_, regs::addr(r), v, 4);
    } catch (const RegisterError& e) {
        if (e.code != link_defs::ERR_REFUSED) throw;
        refused(strf("%s (write 0x%x)", what, v));
    }
}

uint64_t Channel::pair(uint16_t lo) { return uint64_t(reg(lo)) | uint64_t(reg(uint16_t(lo + 1))) << 32; }
uint64_t Channel::waiting(unsigned mask) { return pair(mask ? regs::WAIT1_LO : regs::WAIT0_LO); }
uint64_t Channel::tc(unsigned mask) { return pair(mask ? regs::TC1_LO : regs::TC0_LO); }
uint64_t Channel::bm(unsigned mask) { return pair(mask ? regs::BM1_LO : regs::BM0_LO); }

void Channel::set_addr(unsigned a) {
    if (addr_ == int(a)) return;
    addr_ = -1;
    set_reg(regs::ADDR, a, "ADDR");
    addr_ = int(a);
}

void Channel::refused(const std::string& what) {
    // the channel logged why (CAUSE: bits 7..0 the cause, 14..8 the opcode)
    const uint32_t c = reg(regs::CAUSE);
    const unsigned cause = c & 0xff, op = c >> 8 & 0x7f;
    const std::string msg = strf("PE%u: COP %s refused: %s", pe_, what.c_str(), cause_name(cause));
    if (cause == C_PRIV) throw ProtectionError(msg, pe_, op, cause);
    throw CopError(msg, pe_, op, cause);
}

unsigned Channel::cancel() {
    const auto r = link_.call(pe_, regs::addr(regs::CANCEL), 0, 0, timeout_);
    return unsigned(r.value);
}

uint64_t Channel::timed_out(unsigned opcode, unsigned mask) {
    const auto ms = (long long)(timeout_.count() / 1000000);
    std::string why;
    uint64_t missing = 0;
    // who the round waits for, read before the CANCEL below withdraws this PE's contribution
    const uint32_t lk = reg(regs::LOCK);
    if (collective(opcode)) {
        missing = waiting(mask);
        why = missing ? "; the round still waits for " + pe_list(missing)
                      : "; no round open (it completed, or was never joined)";
    } else if (opcode == OP_RECV) {
        why = "; no broadcast arrived in this channel's mailbox";
    }
    if ((lk >> 7 & 1) && (lk & 0x3f) != pe_) why += strf("; PE%u holds the COP lock", lk & 0x3f);
    // CANCEL (docs/cop.md "CANCEL") so that nothing of this CALL stays armed in
    // the COP.  RUNNING lasts at most one service step and its round's tree or
    // FPU sequence (hundreds of hub clocks): ask again, a bounded number of times.
    unsigned c = cancel(), tries = 1;
    for (; (c & 3) == CX_RUNNING && tries < kCancelTries; ++tries) c = cancel();
    const unsigned outcome = c & 3;
    if (outcome == CX_FINISHED) {
        // the reply came while the deadline passed
        if (c >> 2 & 1) {
            const unsigned cause = c >> 8 & 0xff;
            const std::string msg = strf("PE%u: COP %s refused: %s", pe_, op_name(opcode), cause_name(cause));
            if (cause == C_PRIV) throw ProtectionError(msg, pe_, opcode, cause);
            throw CopError(msg, pe_, opcode, cause);
        }
        // a result: CANCEL kept it as the channel's last reply, XMIT returns it
        const auto r = link_.call(pe_, regs::addr(regs::call(OP_XMIT, 0)), 0, 0, timeout_);
        last_len_ = r.len;
        return r.value;
    }
    const char* what = outcome == CX_WITHDRAWN ? "CALL cancelled: withdrawn"
                       : outcome == CX_NONE    ? "CALL cancelled: nothing was pending (its reply was handed over "
                                                 "as the deadline passed: XMIT returns it)"
                                               : "CANCEL still says RUNNING";
    throw TimeoutError(strf("PE%u: COP %s (key %u) did not finish within %lld ms", pe_, op_name(opcode), mask, ms) +
                           why + strf(" (%s", what) +
                           (outcome == CX_RUNNING ? strf(" after %u tries; the command stays in the COP)", tries)
                                                  : std::string(")")),
                       missing);
}

Channel::Handle Channel::start(unsigned opcode, uint64_t operand) { return start_on(mask_, opcode, operand); }

Channel::Handle Channel::start_on(unsigned mask, unsigned opcode, uint64_t operand) {
    if (started_) throw ProtocolError(strf("PE%u: COP %s started while another COP CALL is open", pe_, op_name(opcode)));
    const OpInfo* i = op_info(opcode);
    const unsigned len = i ? i->operand_len : 0;
    if (len == 4) operand &= 0xffffffffu;
    if (collective(opcode)) set_addr(0);  // collectives use round tag 0
    link_.start_call(pe_, regs::addr(regs::call(opcode, mask)), operand, len, link_.now() + timeout_);
    ++calls_;
    started_ = true;
    return Handle{opcode, mask & 1, true};
}

uint64_t Channel::finish(Handle& h) {
    if (!h.open || !started_) throw ProtocolError(strf("PE%u: COP finish() without a started CALL", pe_));
    h.open = false;
    started_ = false;
    try {
        const auto r = link_.finish_call(pe_);
        last_len_ = r.len;
        return r.value;
    } catch (const RegisterError& e) {
        if (e.code != link_defs::ERR_REFUSED) throw;
        refused(op_name(h.opcode));
    } catch (const TimeoutError&) {
        return timed_out(h.opcode, h.mask);
    }
}

uint64_t Channel::call(unsigned opcode, uint64_t operand) {
    Handle h = start(opcode, operand);
    return finish(h);
}
uint64_t Channel::call_on(unsigned mask, unsigned opcode, uint64_t operand) {
    Handle h = start_on(mask, opcode, operand);
    return finish(h);
}

void Channel::barrier() { call(OP_BENTRY); }
int32_t Channel::reduce(Op op, int32_t v) { return int32_t(uint32_t(call(reduce_opcode(op, false), uint32_t(v)))); }
int64_t Channel::reduce(Op op, int64_t v) { return int64_t(call(reduce_opcode(op, true), uint64_t(v))); }
double Channel::reduce(FOp op, double v) { return bitsd(call(reduce_opcode(op), dbits(v))); }
int32_t Channel::scan(int32_t v, Scan s) { return int32_t(uint32_t(call(scan_opcode(s, false), uint32_t(v)))); }
int64_t Channel::scan(int64_t v, Scan s) { return int64_t(call(scan_opcode(s, true), uint64_t(v))); }
double Channel::scan(double v, Scan s) { return bitsd(call(scan_opcode(s), dbits(v))); }
double Channel::exact_scan(double v, Scan s) { return bitsd(call(exact_scan_opcode(s), dbits(v))); }
void Channel::broadcast(uint32_t v) { call(OP_BCAST32, v); }
void Channel::broadcast(uint64_t v) { call(OP_BCAST64, v); }
uint64_t Channel::receive(unsigned* len) {
    const uint64_t v = call(OP_RECV);
    if (len) *len = last_len_;
    return v;
}

uint32_t Channel::fetch_add(unsigned a, uint32_t v) {
    set_addr(a);
    return uint32_t(call(OP_RMW32, v));
}
uint64_t Channel::fetch_add(unsigned a, uint64_t v) {
    set_addr(a);
    return call(OP_RMW64, v);
}
uint32_t Channel::read(unsigned a) {
    set_addr(a);
    return uint32_t(call(OP_RSRAM32));
}
uint64_t Channel::read64(unsigned a) {
    set_addr(a);
    return call(OP_RSRAM64);
}
void Channel::write(unsigned a, uint32_t v) {
    set_addr(a);
    call(OP_WSRAM32, v);
}
void Channel::write(unsigned a, uint64_t v) {
    set_addr(a);
    call(OP_WSRAM64, v);
}

void Channel::lock() { call(OP_LOCK); }
void Channel::unlock() { call(OP_UNLOCK); }

Lock::~Lock() {
    try {
        ch_.unlock();
    } catch (...) {
        // a destructor must not throw; the lock stays held (a supervisor breaks it)
    }
}

// ---- supervisor --------------------------------------------------------------

Supervisor::Supervisor(Channel& ch, uint32_t key) : ch_(ch) {
    ch_.set_reg(regs::MODE, key, "MODE <- key");
    if (!(ch_.reg(regs::MODE) & 1))
        throw CopError(strf("PE%u: COP supervisor mode not entered: the key is not the hub's COP_KEY", ch_.pe()),
                       ch_.pe(), 0, C_KEY);
}

Supervisor::~Supervisor() {
    try {
        ch_.set_reg(regs::MODE, 0, "MODE <- 0");
    } catch (...) {
        // a destructor must not throw
    }
}

void Supervisor::set_process(unsigned ppn, unsigned pid) {
    ch_.set_reg(regs::PROC, (ppn & 0xf) | (pid & 0xff) << 4, "PROC");
}
void Supervisor::set_tc(unsigned mask, uint64_t pes) { ch_.call_on(mask, OP_SETTC, pes); }
void Supervisor::set_bm(unsigned mask, uint64_t pes) { ch_.call_on(mask, OP_SETBM, pes); }
void Supervisor::break_lock() { ch_.set_reg(regs::LOCK, 0, "LOCK (break)"); }
void Supervisor::hold(bool on) { ch_.set_reg(regs::HOLD, on ? 1 : 0, "HOLD"); }

// ---- rounds from one thread (aggnet cop, the demo) ---------------------------------

double Rounds::percentile(double q) const {
    if (us.empty()) return 0;
    std::vector<double> v = us;
    std::sort(v.begin(), v.end());
    return v[size_t(q * double(v.size() - 1) + 0.5)];
}

namespace {
uint64_t draw(uint64_t seed, unsigned round, unsigned pe) {
    // splitmix64 of (seed, round, pe): every caller draws the same contributions
    uint64_t z = seed + 0x9E3779B97F4A7C15ull * (uint64_t(round) << 7 | pe) + 0x632BE59BD9B4E019ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (round & 1) ? z % 1000 : z;  // every other round small values
}

// Finishes every started CALL of h (into got), even after one failed; then rethrows the first error.
void finish_all(const std::vector<Channel*>& chans, std::vector<Channel::Handle>& h, std::vector<uint64_t>& got) {
    std::exception_ptr first;
    for (size_t p = 0; p < chans.size(); ++p) {
        try {
            if (h[p].open) got[p] = chans[p]->finish(h[p]);
        } catch (...) {
            if (!first) first = std::current_exception();
        }
    }
    if (first) std::rethrow_exception(first);
}
}  // namespace

Rounds run_rounds(const std::vector<Channel*>& chans, const std::string& op, unsigned count, uint64_t seed) {
    static const std::pair<const char*, Op> reds[] = {{"sum", Op::Sum}, {"max", Op::Max}, {"min", Op::Min},
                                                      {"or", Op::Or},   {"and", Op::And}, {"xor", Op::Xor}};
    const unsigned n = unsigned(chans.size());
    if (!n) throw Error("COP rounds: no channels");
    bool known = false;
    for (const char* o : kRoundOps) known |= op == o;
    if (!known) throw Error("COP rounds: no operation '" + op + "'");
    Rounds r;
    r.op = op;
    r.pes = n;
    uint64_t calls0 = 0;
    for (Channel* c : chans) calls0 += c->calls();
    uint64_t base = 0;
    if (op == "fetch-add") base = chans[0]->read64(1);
    std::vector<Channel::Handle> h(n);
    std::vector<uint64_t> got(n), v(n);
    for (unsigned k = 0; k < count; ++k) {
        for (unsigned p = 0; p < n; ++p) v[p] = draw(seed, k, chans[p]->pe());
        if (op == "fetch-add")
            for (Channel* c : chans) c->set_addr(1);  // once: ADDR is written only when it changes
        const unsigned root = k % n;
        // the double ops' term of PE p: a small integer (fscan: a quarter of one), so every
        // partial sum is exact and plain addition is the reference
        const auto fterm = [&](unsigned p) {
            const double x = double(int64_t(v[p] % 2000) - 1000);
            return op == "fscan" ? x / 4 : x;
        };
        const auto t0 = std::chrono::steady_clock::now();
        for (unsigned p = 0; p < n; ++p) {
            Channel& c = *chans[p];
            if (op == "barrier") h[p] = c.start_barrier();
            else if (op == "scan") h[p] = c.start_scan(int64_t(v[p]));
            else if (op == "fetch-add") h[p] = c.start(OP_RMW64, 1);
            else if (op == "exsum") h[p] = c.start(OP_EXSUMF, dbits(fterm(p)));
            else if (op == "fscan") h[p] = c.start(OP_SCANIF, dbits(fterm(p)));
            else if (op == "exscan") h[p] = c.start(OP_EXSCANIF, dbits(fterm(p)));
            else if (op == "bcast") h[p] = p == root ? Channel::Handle{} : c.start(OP_RECV);
            else
                for (const auto& e : reds)
                    if (op == e.first) h[p] = c.start_reduce(e.second, int64_t(v[p]));
        }
        if (op == "bcast") chans[root]->broadcast(v[root]);
        finish_all(chans, h, got);
        const auto t1 = std::chrono::steady_clock::now();
        r.us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
        // the references: plain arithmetic over the round's contributions
        auto bad = [&](unsigned p, uint64_t want) {
            throw Error(strf("COP %s round %u: PE%u got 0x%llx, want 0x%llx", op.c_str(), k, chans[p]->pe(),
                             (unsigned long long)got[p], (unsigned long long)want));
        };
        if (op == "scan") {
            uint64_t acc = 0;
            for (unsigned p = 0; p < n; ++p)
                if (got[p] != (acc += v[p])) bad(p, acc);
        } else if (op == "fetch-add") {
            std::vector<uint64_t> t(got.begin(), got.end());
            std::sort(t.begin(), t.end());
            for (unsigned p = 0; p < n; ++p)
                if (t[p] != base + p) bad(p, base + p);
            base += n;
        } else if (op == "bcast") {
            for (unsigned p = 0; p < n; ++p)
                if (p != root && got[p] != v[root]) bad(p, v[root]);
        } else if (op == "exsum") {
            // small integers: every partial sum is exact, so the sum is the exact one
            double acc = 0;
            for (unsigned p = 0; p < n; ++p) acc += fterm(p);
            for (unsigned p = 0; p < n; ++p)
                if (got[p] != dbits(acc)) bad(p, dbits(acc));
        } else if (op == "fscan" || op == "exscan") {
            // every running sum of these terms is exact, so SCANIF's and EXSCANIF's are the same
            // (test_cop_ops checks both over hard term sets against sim/fp_ref.hpp)
            double acc = 0;
            for (unsigned p = 0; p < n; ++p)
                if (got[p] != dbits(acc += fterm(p))) bad(p, dbits(acc));
        } else if (op != "barrier") {
            for (const auto& e : reds) {
                if (op != e.first) continue;
                uint64_t acc = v[0];
                for (unsigned p = 1; p < n; ++p) {
                    const uint64_t x = v[p];
                    switch (e.second) {
                    case Op::Sum: acc += x; break;
                    case Op::Max: acc = uint64_t(std::max(int64_t(acc), int64_t(x))); break;
                    case Op::Min: acc = uint64_t(std::min(int64_t(acc), int64_t(x))); break;
                    case Op::Or: acc |= x; break;
                    case Op::And: acc &= x; break;
                    case Op::Xor: acc ^= x; break;
                    }
                }
                for (unsigned p = 0; p < n; ++p)
                    if (got[p] != acc) bad(p, acc);
            }
        }
        r.last = op == "bcast" ? v[root] : got[0];
    }
    for (Channel* c : chans) r.calls += c->calls();
    r.calls -= calls0;
    return r;
}

Orders exact_orders(const std::vector<Channel*>& chans, unsigned shuffles, uint64_t seed) {
    const unsigned n = unsigned(chans.size());
    // the terms: groups of four, a large power of two, a small value, its negative, another
    // small value (a group that does not fit, small values only); the small values are
    // quarters, so their sum, the exact sum of all the terms, is exact in a double
    std::vector<double> terms;
    Orders o;
    for (unsigned i = 0; i < n; ++i) {
        const unsigned g = i / 4;
        const bool pair = (g + 1) * 4 <= n;
        const double big = std::ldexp(1.0, int(60 + 60 * g));  // 2^60 .. 2^960 at 64 PEs
        const double small = double(int(i % 7) - 3) / 4 + 1.25;
        if (pair && i % 4 == 0) terms.push_back(big);
        else if (pair && i % 4 == 2) terms.push_back(-big);
        else terms.push_back(small), o.exact += small;
    }
    std::vector<unsigned> perm(n);
    std::mt19937_64 rng(seed);
    std::vector<Channel::Handle> h(n);
    std::vector<uint64_t> got(n);
    const auto round = [&](unsigned opcode, const OrderRow& row) {
        for (unsigned p = 0; p < n; ++p) h[p] = chans[p]->start(opcode, dbits(row.terms[p]));
        finish_all(chans, h, got);
        for (unsigned p = 1; p < n; ++p)
            if (got[p] != got[0])
                throw Error(strf("COP %s: PE%u got 0x%llx, PE%u 0x%llx: every member gets the same bits",
                                 op_name(opcode), chans[p]->pe(), (unsigned long long)got[p], chans[0]->pe(),
                                 (unsigned long long)got[0]));
        return got[0];
    };
    for (unsigned k = 0; k < shuffles; ++k) {
        // the list's order, then reversed, then shuffled
        for (unsigned i = 0; i < n; ++i) perm[i] = k == 1 ? n - 1 - i : i;
        if (k >= 2) std::shuffle(perm.begin(), perm.end(), rng);
        OrderRow row;
        for (unsigned p = 0; p < n; ++p) row.terms.push_back(terms[perm[p]]);
        row.sumf = round(OP_SUMF, row);
        row.exsumf = round(OP_EXSUMF, row);
        if (row.exsumf != dbits(o.exact))
            throw Error(strf("COP EXSUMF order %u: 0x%llx, want the exact sum 0x%llx", k,
                             (unsigned long long)row.exsumf, (unsigned long long)dbits(o.exact)));
        o.rows.push_back(row);
    }
    return o;
}

}  // namespace aggnet::cop
